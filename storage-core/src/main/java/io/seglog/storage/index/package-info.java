/**
 * The sparse, memory-mapped indexes of a log segment, byte-compatible with Kafka's {@code .index} and
 * {@code .timeindex} files: {@link io.seglog.storage.index.OffsetIndex} maps an offset to a position in the
 * segment's {@code .log} file, {@link io.seglog.storage.index.TimeIndex} maps a timestamp to an offset.
 * {@link io.seglog.storage.index.IndexDescriptor} states the entry layouts.
 *
 * <p>Internal to the storage core: the segment package drives these classes (when to add an entry, when to
 * roll, trim, flush and close); no embedder should use them directly.
 */
package io.seglog.storage.index;
