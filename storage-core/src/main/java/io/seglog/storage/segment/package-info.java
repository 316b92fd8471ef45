/**
 * Segments of a partition log: {@link io.seglog.storage.segment.LogSegment} (one {@code .log} file with its
 * {@code .index} and {@code .timeindex}, named by the 20-digit base offset exactly as Kafka names them) and
 * {@link io.seglog.storage.segment.LogLoader} (the set of segments found in a partition directory, opened after a
 * clean shutdown or recovered after a crash: {@code SegmentRecovery} scans one segment, {@code StrayFiles} tidies
 * the directory first). {@code MappedTail} copies appends of up to {@code seglog.mapped.append.max.bytes} (default
 * 4 KiB) into a shared mapping of the active segment's tail instead of one {@code write} call each.
 * Readers go through {@link io.seglog.storage.segment.SegmentReader} ({@code LogSegment.reader()}) with their own
 * {@link io.seglog.storage.segment.BatchCursor}, and read batch headers through a shared read-only mapping of each
 * segment's data file ({@code seglog.read.mapped}, on by default) instead of one {@code pread} each.
 *
 * <p>Owns: each segment's data file, its published size and its writer state (LogSegment), the readers' mapping
 * (SegmentReader). Depends on the indexes, the epoch cache (for recovery) and the format, never on the API
 * package: it takes a {@link io.seglog.storage.segment.SegmentConfig} and reports damage as a checked
 * {@link io.seglog.storage.segment.CorruptSegmentException}. Internal; not exported.
 */
package io.seglog.storage.segment;
