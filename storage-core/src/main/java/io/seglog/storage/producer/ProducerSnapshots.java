package io.seglog.storage.producer;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a {@code .snapshot} file for the inspection tools, without a partition log: each producer as the line
 * Kafka's {@code kafka-dump-log} prints for it.
 */
public final class ProducerSnapshots {
    private ProducerSnapshots() {
    }

    /**
     * The producers of a snapshot file, one line each, in file order: id, epoch, coordinator epoch, the open
     * transaction's first offset and the last timestamp, then the newest batch's sequences, last offset, offset delta
     * and timestamp when it has one.
     *
     * @param io   the file layer (only reads are made)
     * @param file the snapshot file
     * @return the lines
     * @throws CorruptSnapshotException naming the file, position and field when a check fails (the CRC among them)
     * @throws IOException              if the file cannot be read
     */
    public static List<String> describe(final FileIO io, final Path file) throws IOException {
        final List<ProducerEntry> entries = ProducerSnapshotFile.read(io, file);
        final List<String> lines = new ArrayList<>(entries.size());
        for (final ProducerEntry e : entries) {
            final StringBuilder line = new StringBuilder(160)
                .append("producerId: ").append(e.producerId())
                .append(" producerEpoch: ").append(e.epoch())
                .append(" coordinatorEpoch: ").append(e.coordinatorEpoch())
                .append(" currentTxnFirstOffset: ").append(e.currentTxnFirstOffset() < 0 ? "OptionalLong.empty"
                    : "OptionalLong[" + e.currentTxnFirstOffset() + "]")
                .append(" lastTimestamp: ").append(e.lastTimestamp()).append(' ');
            if (!e.isEmpty()) {
                final int newest = e.batchCount() - 1;
                line.append("firstSequence: ").append(e.batchFirstSeq(newest))
                    .append(" lastSequence: ").append(e.batchLastSeq(newest))
                    .append(" lastOffset: ").append(e.batchLastOffset(newest))
                    .append(" offsetDelta: ").append(e.batchLastOffset(newest) - e.batchFirstOffset(newest))
                    .append(" timestamp: ").append(e.batchTimestamp(newest));
            }
            lines.add(line.toString());
        }
        return lines;
    }
}
