package io.seglog.storage.cleaner;

/**
 * What the cleaner reads of one log's configuration, as plain values (the log's {@code LogConfig} stays in the API
 * package, which the cleaner does not import: the API package composes the cleaner, never the other way round).
 * Immutable.
 *
 * @param compact                {@code cleanup.policy} includes {@code compact}
 * @param minCleanableDirtyRatio {@code min.cleanable.dirty.ratio}
 * @param minCompactionLagMs     {@code min.compaction.lag.ms}
 * @param maxCompactionLagMs     {@code max.compaction.lag.ms}
 * @param deleteRetentionMs      {@code delete.retention.ms}
 * @param segmentBytes           {@code segment.bytes}: the most data one cleaned segment may hold
 * @param segmentIndexBytes      {@code segment.index.bytes}: the most index bytes one cleaned segment may hold
 */
public record CompactionSettings(boolean compact, double minCleanableDirtyRatio, long minCompactionLagMs,
                                 long maxCompactionLagMs, long deleteRetentionMs, int segmentBytes,
                                 int segmentIndexBytes) {
}
