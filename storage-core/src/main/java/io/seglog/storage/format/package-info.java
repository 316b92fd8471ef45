/**
 * Kafka v2 (magic 2) record batches: layout descriptors, validation, flyweight iteration and a builder.
 *
 * <ul>
 *   <li>{@link io.seglog.storage.format.RecordBatchDescriptor}: header offsets, lengths and attribute masks,
 *       the single source of the layout.</li>
 *   <li>{@link io.seglog.storage.format.RecordBatchValidator}: bounded checks of untrusted bytes; throwing and
 *       all-or-nothing for appends, status codes (torn tail vs corruption) for recovery scans.</li>
 *   <li>{@link io.seglog.storage.format.RecordBatch}, {@link io.seglog.storage.format.RecordView},
 *       {@link io.seglog.storage.format.RecordHeader}: allocation-free flyweights; the batch stamps
 *       {@code baseOffset}/{@code partitionLeaderEpoch} in place.</li>
 *   <li>{@link io.seglog.storage.format.RecordBatchBuilder}: writes uncompressed batches into a caller's
 *       buffer, byte-identical to Kafka's {@code MemoryRecordsBuilder}.</li>
 * </ul>
 *
 * <p>The byte layout, integrity policy and validation rules are described in {@code docs/format.md}. Every
 * class here is single-threaded: give each thread its own flyweights, builder and validator. Exported: embedders
 * build and read batches with these classes.
 */
package io.seglog.storage.format;
