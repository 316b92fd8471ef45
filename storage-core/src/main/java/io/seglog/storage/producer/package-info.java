/**
 * Producer state of a partition log, as Kafka's {@code ProducerStateManager} keeps it: per producer id its epoch
 * and the last five batches' sequence and offset ranges, so that a leader refuses a fenced epoch or a sequence gap
 * and answers a retried batch with its original offsets instead of appending it twice (idempotent produce).
 *
 * <p>{@link io.seglog.storage.producer.ProducerStateManager} owns the state and the {@code .snapshot} files
 * ({@link io.seglog.storage.producer.ProducerSnapshotDescriptor} is their layout, {@code ProducerSnapshotFile} the
 * codec); the leader check reports a duplicate or a refusal to a
 * {@link io.seglog.storage.producer.ProducerCheckSink}, which the log's one answer to the append implements.
 * Transactions are not implemented: the transactional fields Kafka's snapshot carries (coordinator epoch, first
 * offset of the open transaction) are kept and written so that Kafka reads our snapshots, nothing more.
 *
 * <p>Depends on the segment layer (to rebuild state from batches), the checkpoint writer (atomic file
 * replacement), the format and the file seam; never on the API package. Internal; not exported.
 */
package io.seglog.storage.producer;
