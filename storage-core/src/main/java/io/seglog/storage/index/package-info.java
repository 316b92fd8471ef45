/**
 * The sparse, memory-mapped indexes of a log segment, byte-compatible with Kafka's {@code .index} and
 * {@code .timeindex} files: {@link io.seglog.storage.index.OffsetIndex} maps an offset to a position in the
 * segment's {@code .log} file, {@link io.seglog.storage.index.TimeIndex} maps a timestamp to an offset.
 * {@link io.seglog.storage.index.IndexDescriptor} states the entry layouts.
 *
 * <p>Owns: each index file, its mapping (a {@code SharedMapping}) and its published entry count. The segment
 * package drives these classes (when to add an entry, when to roll, trim, flush and close). Internal; not
 * exported.
 */
package io.seglog.storage.index;
