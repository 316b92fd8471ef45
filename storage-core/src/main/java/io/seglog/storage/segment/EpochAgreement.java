package io.seglog.storage.segment;

import static io.seglog.storage.format.RecordBatchDescriptor.BASE_OFFSET_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET;

import io.seglog.storage.checkpoint.EpochEntry;
import io.seglog.storage.epoch.LeaderEpochCache;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * Checks the entries of a loaded {@code leader-epoch-checkpoint} against the batches they describe, before an
 * open trusts them: the checkpoint carries no checksum (Kafka's format) and a batch's {@code partitionLeaderEpoch}
 * is not covered by its CRC, so when the two disagree neither can be taken on its word, and trusting the
 * checkpoint would answer OffsetsForLeaderEpoch with the wrong offsets. Each entry {@code (epoch, startOffset)}
 * inside the log must start a batch of that epoch whose previous batch has a lower one (the first entry, which a
 * log start may have moved inside a batch, must then lie in a batch of its epoch), and the log's last batch must carry
 * the last entry's epoch. A lookup per entry (through the offset index) and one for the last batch,
 * so the check costs little next to the open; segments a crash scan covered were checked batch by batch already.
 *
 * <p>Stateless.
 */
public final class EpochAgreement {
    private EpochAgreement() {
    }

    /**
     * The first disagreement between the checkpoint's entries and the batches, or null.
     *
     * @param checkpoint the entries read from the checkpoint
     * @param segments   the loaded segments, oldest first, at least one
     * @param endOffset  the log end offset
     * @param checkpointFile the checkpoint's path, named in the message
     * @param logStartOffset the log start the open restores (a first entry may have been moved up to it)
     * @return the finding (naming the segment file, the batch's position and offset, expected and found), or null
     * @throws IOException if a read fails
     */
    public static CorruptSegmentException check(final LeaderEpochCache checkpoint, final List<LogSegment> segments,
                                                final long endOffset, final Path checkpointFile,
                                                final long logStartOffset)
        throws IOException {
        final List<EpochEntry> entries = checkpoint.entriesInRange(-1, endOffset);
        final long first = segments.get(0).baseOffset();
        if (entries.isEmpty() || endOffset <= first) {
            return null;
        }
        final ByteBuffer scratch = ByteBuffer.allocate(64);
        final BatchCursor cursor = new BatchCursor();
        final String remedy = remedy(checkpointFile);
        for (int i = 0; i < entries.size(); i++) {
            final EpochEntry entry = entries.get(i);
            if (entry.startOffset() < first) {
                continue; // below the log (retention, or the log's start): nothing to compare with
            }
            // The first entry may have been moved up to the log start, inside a batch (Kafka's truncateFromStart):
            // then it must lie in a batch of its epoch, not begin one.
            final boolean moved = i == 0 && entry.startOffset() == logStartOffset;
            final CorruptSegmentException found = checkEntry(entry, moved, segments, cursor, scratch, remedy);
            if (found != null) {
                return found;
            }
        }
        return checkLastBatch(entries.get(entries.size() - 1), segments, endOffset, cursor, scratch, remedy);
    }

    /** One entry against the batch it starts (or, moved to the log start, lies in) and the batch before it. */
    private static CorruptSegmentException checkEntry(final EpochEntry entry, final boolean moved,
                                                      final List<LogSegment> segments, final BatchCursor cursor,
                                                      final ByteBuffer scratch, final String remedy)
        throws IOException {
        final long start = entry.startOffset();
        final LogSegment segment = floor(segments, start);
        final Header at = header(segment, start, cursor, scratch);
        // In a log compacted at some time (whatever its policy now) the batch that began the epoch may be gone:
        // the first batch after it carries the epoch.
        final boolean compactedAway = at != null && at.baseOffset > start
            && at.epoch == entry.epoch();
        if (at == null || !moved && !compactedAway && at.baseOffset != start) {
            return new CorruptSegmentException(segment.logFile(), new CorruptSegmentException.Finding(
                at == null ? segment.sizeInBytes() : at.position, start, "baseOffset", Long.toString(start),
                at == null ? "no batch" : Long.toString(at.baseOffset), "the checkpoint starts epoch "
                    + entry.epoch() + " at offset " + start + ", which does not begin a batch" + remedy));
        }
        if (at.epoch >= 0 && at.epoch != entry.epoch()) {
            return new CorruptSegmentException(segment.logFile(), new CorruptSegmentException.Finding(
                at.position, start, "partitionLeaderEpoch", Integer.toString(entry.epoch()),
                Integer.toString(at.epoch), "the checkpoint starts epoch " + entry.epoch() + " at offset "
                    + start + remedy));
        }
        if (!moved && start > segments.get(0).baseOffset()) {
            final LogSegment before = floor(segments, start - 1);
            final Header previous = header(before, start - 1, cursor, scratch);
            // (In a compacted log the batch found for start - 1 may be the one at or after start: no check.)
            if (previous != null && previous.baseOffset < start && previous.epoch >= entry.epoch()) {
                return new CorruptSegmentException(before.logFile(), new CorruptSegmentException.Finding(
                    previous.position, previous.baseOffset, "partitionLeaderEpoch",
                    "below " + entry.epoch(), Integer.toString(previous.epoch), "the checkpoint starts epoch "
                        + entry.epoch() + " at offset " + start + ", but the batch before it has epoch "
                        + previous.epoch + remedy));
            }
        }
        return null;
    }

    /** The checkpoint's latest epoch against the log's last batch. */
    private static CorruptSegmentException checkLastBatch(final EpochEntry last, final List<LogSegment> segments,
                                                          final long endOffset, final BatchCursor cursor,
                                                          final ByteBuffer scratch, final String remedy)
        throws IOException {
        final LogSegment tail = floor(segments, endOffset - 1);
        final Header lastBatch = header(tail, endOffset - 1, cursor, scratch);
        if (lastBatch != null && lastBatch.epoch >= 0 && lastBatch.epoch != last.epoch()) {
            return new CorruptSegmentException(tail.logFile(), new CorruptSegmentException.Finding(lastBatch.position,
                lastBatch.baseOffset, "partitionLeaderEpoch", Integer.toString(last.epoch()),
                Integer.toString(lastBatch.epoch), "the checkpoint's latest epoch is " + last.epoch()
                    + ", but the log's last batch has epoch " + lastBatch.epoch + remedy));
        }
        return null;
    }

    private static String remedy(final Path checkpointFile) {
        return "; the leader-epoch checkpoint " + checkpointFile + " and the batches disagree (neither carries a"
            + " checksum for it): if the checkpoint is damaged, delete it (the epochs are rebuilt from the batches) or"
            + " set " + SegmentConfig.CORRUPTION_POLICY_KEY + "=truncate; if the batch is, re-fetch the partition from"
            + " a replica";
    }

    /** A batch's position, base offset and leader epoch. */
    private record Header(int position, long baseOffset, int epoch) {
    }

    private static Header header(final LogSegment segment, final long offset, final BatchCursor cursor,
                                 final ByteBuffer scratch) throws IOException {
        final int size = segment.sizeInBytes();
        if (!segment.reader().findBatch(offset, size, cursor)) {
            return null;
        }
        segment.readHeader(scratch, cursor.position(), size, LogSegment.OFFSET_HEADER_BYTES);
        return new Header(cursor.position(), scratch.getLong(BASE_OFFSET_OFFSET),
            scratch.getInt(PARTITION_LEADER_EPOCH_OFFSET));
    }

    /** The segment holding {@code offset}: the last whose base offset is at or below it. */
    private static LogSegment floor(final List<LogSegment> segments, final long offset) {
        int lo = 0;
        int hi = segments.size() - 1;
        while (lo < hi) {
            final int mid = (lo + hi + 1) >>> 1;
            if (segments.get(mid).baseOffset() <= offset) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return segments.get(lo);
    }
}
