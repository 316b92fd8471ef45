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
 *   <li>{@link io.seglog.storage.format.RecordBatchBuilder}: writes batches into a caller's buffer,
 *       byte-identical to Kafka's {@code MemoryRecordsBuilder} when uncompressed, compressed with any of
 *       {@link io.seglog.storage.format.CompressionType}'s codecs on request.</li>
 *   <li>{@link io.seglog.storage.format.BatchRecordReader}: the records of any batch, a compressed one
 *       decompressed (bounded) into a reused buffer.</li>
 * </ul>
 *
 * <p>The codecs themselves ({@code Codecs} and one class per codec, package-private) run gzip on the JDK's
 * inflater/deflater, snappy on snappy-java, lz4 on lz4-java's block compressor and XXHash32, zstd on zstd-jni's
 * contexts, each in Kafka's framing, over direct buffers and reused native state; their output is bounded by a
 * {@code DecompressionBuffer} that refuses to grow past its limit, so a small batch that would expand without
 * bound is refused before the memory is taken.
 *
 * <p>The byte layout, integrity policy and validation rules are described in {@code docs/format.md}. Every
 * class here is single-threaded: give each thread its own flyweights, builder and validator. Exported: embedders
 * build and read batches with these classes.
 */
package io.seglog.storage.format;
