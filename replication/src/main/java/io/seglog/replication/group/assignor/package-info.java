/**
 * Kafka's classic-protocol partition assignors as pure functions an embedder can call without a broker: range,
 * round-robin, sticky and cooperative-sticky ({@link io.seglog.replication.group.assignor.Assignor}). They give
 * kafka-clients' assignment wherever Kafka's is deterministic and valid, and hold the invariants where Kafka does
 * not (docs/assignors.md lists the differences). Nothing here does I/O or keeps state between calls.
 */
package io.seglog.replication.group.assignor;
