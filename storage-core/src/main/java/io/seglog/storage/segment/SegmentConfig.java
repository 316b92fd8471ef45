package io.seglog.storage.segment;

import io.seglog.storage.config.TopicKeyNames;

/**
 * What a segment, its loader and its recovery scan need to know of the log's configuration, as plain values:
 * the root package's {@code LogConfig} builds one, so this package never depends on the API above it.
 *
 * @param segmentBytes          {@code segment.bytes}: the largest size of a segment's data file
 * @param segmentMs             {@code segment.ms}: the age at which a segment rolls
 * @param segmentIndexBytes     {@code segment.index.bytes}: the preallocated size of each index file
 * @param indexIntervalBytes    {@code index.interval.bytes}: bytes between index entries
 * @param mappedAppendMaxBytes  {@code seglog.mapped.append.max.bytes}: appends up to this size go through a mapping
 *                              of the segment's tail (0: never)
 * @param readMapped            {@code seglog.read.mapped}: readers read batch headers through a mapping
 * @param truncateOnCorruption  {@code seglog.corruption.policy=truncate}: recovery drops corrupt data instead of
 *                              refusing to open
 */
public record SegmentConfig(int segmentBytes, long segmentMs, int segmentIndexBytes, int indexIntervalBytes,
                            int mappedAppendMaxBytes, boolean readMapped, boolean truncateOnCorruption) {
    /**
     * The name of the key behind {@link #truncateOnCorruption}, for messages that tell the operator what to set
     * (defined in LogConfig's table).
     */
    public static final String CORRUPTION_POLICY_KEY = TopicKeyNames.CORRUPTION_POLICY;

    /**
     * Kafka's rule for where a batch may start after the offset {@code nextOffset} that the log (or the previous
     * batch) ends at: there or later, under every cleanup policy. Offsets only grow; a gap is what compaction leaves
     * (Kafka's cleaner drops whole batches, a follower keeps the gaps it replicates), and a log compacted once keeps
     * its gaps when its policy changes to {@code delete}, so gaps cannot be refused by policy.
     *
     * @param baseOffset the batch's base offset
     * @param nextOffset the offset the log continues at
     * @return whether the batch may start there
     */
    public static boolean allowsBatchAt(final long baseOffset, final long nextOffset) {
        return baseOffset >= nextOffset;
    }
}
