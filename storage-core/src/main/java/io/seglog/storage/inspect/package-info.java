/**
 * Inspection of log directories without a broker, for operators' tools: {@link io.seglog.storage.inspect.LogVerifier}
 * checks every batch, index entry and checkpoint of a log or partition directory and reports each problem with its
 * file, position and offset, and {@link io.seglog.storage.inspect.LogDump} prints batches, records, index entries,
 * producer snapshots and checkpoints in the shape of Kafka's {@code kafka-dump-log}; both open every file for reading
 * only.
 */
package io.seglog.storage.inspect;
