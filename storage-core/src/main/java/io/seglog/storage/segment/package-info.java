/**
 * Segments of a partition log: {@link io.seglog.storage.segment.LogSegment} (one {@code .log} file with its
 * {@code .index} and {@code .timeindex}, named by the 20-digit base offset exactly as Kafka names them) and
 * {@link io.seglog.storage.segment.LogLoader} (the set of segments found in a partition directory, opened after a
 * clean shutdown or recovered after a crash: {@code SegmentRecovery} scans one segment, {@code StrayFiles} tidies
 * the directory first). {@code MappedTail} copies appends of up to {@code seglog.mapped.append.max.bytes} (default
 * 4 KiB) into a shared mapping of the active segment's tail instead of one {@code write} call each.
 * Readers read batch headers through {@code ReadMap}, a reference-counted read-only mapping of each segment's
 * data file ({@code seglog.read.mapped}, on by default), instead of one {@code pread} each.
 *
 * <p>Internal to the storage core: the public API is {@link io.seglog.storage.PartitionLog}. Classes here are
 * public only because that class, in another package, uses them.
 */
package io.seglog.storage.segment;
