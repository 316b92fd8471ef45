package io.seglog.replication.example;

import io.seglog.storage.LogConfig;
import io.seglog.storage.LogManager;
import io.seglog.storage.LogManagerConfig;
import io.seglog.storage.LogSlice;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import io.seglog.storage.format.RecordView;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchBuilder;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Part one of the demo, the storage core alone: a {@link LogManager} over one log directory, leader appends of a
 * few batches built with {@link RecordBatchBuilder}, a read by offset, a lookup by timestamp, a wait until the last
 * offset is durable, then close and reopen showing the same log.
 *
 * <p>Not thread-safe; runs on the caller's thread (the manager's scheduler does the fsyncs).
 */
final class StorageTour {
    static final TopicPartition PARTITION = new TopicPartition("events", 0);
    static final int BATCHES = 4;
    static final int RECORDS_PER_BATCH = 3;

    /**
     * What the storage part saw.
     *
     * @param startOffset     the log end offset when the demo opened the partition (0 for a new directory)
     * @param lastOffset      the last offset the appends were assigned
     * @param durableOffset   the flushed offset (exclusive) reported by {@code awaitDurable(lastOffset)}
     * @param endBeforeClose  the log end offset before closing
     * @param endAfterReopen  the log end offset after reopening
     * @param cleanShutdown   whether the reopened manager found the clean-shutdown marker
     * @param timestampOffset the answer of the timestamp lookup before closing
     * @param reopenMatched   whether the reopened log gave the same end offset, read and timestamp answers
     */
    record Outcome(long startOffset, long lastOffset, long durableOffset, long endBeforeClose, long endAfterReopen,
                   boolean cleanShutdown, long timestampOffset, boolean reopenMatched) {
    }

    private StorageTour() {
    }

    static Outcome run(final Path logDir, final PrintStream out, final Duration stepTimeout)
        throws IOException, InterruptedException, ExecutionException {
        // Small segments so that twelve records already make more than one segment file.
        final LogManagerConfig config = LogManagerConfig.builder().logDirs(logDir)
            .logConfig(LogConfig.builder().segmentBytes(512).indexIntervalBytes(128).build()).build();
        // Whole seconds keep the printed timestamps short; later runs on a kept directory get later timestamps.
        final long baseTimestampMs = System.currentTimeMillis() / 1000 * 1000;

        final Deadline write = Deadline.of("storage: append, read, await durable", stepTimeout);
        final long start;
        final long last;
        final long durable;
        final List<String> firstAnswers;
        final long timestampOffset;
        final long lookupTimestampMs = baseTimestampMs + 6_500;
        try (LogManager logs = LogManager.open(config)) {
            final PartitionLog log = logs.getOrCreate(PARTITION);
            start = log.logEndOffset();
            out.println("[storage] partition " + PARTITION + " in " + log.dir() + ", log end offset " + start);
            last = appendBatches(log, baseTimestampMs);
            out.println("[storage] appended " + BATCHES + " batches of " + RECORDS_PER_BATCH
                + " records as leader (leader epoch 0): offsets " + start + ".." + last);
            firstAnswers = answers(log, start, lookupTimestampMs);
            timestampOffset = log.offsetForTimestamp(lookupTimestampMs);
            out.println("[storage] " + firstAnswers.get(0));
            out.println("[storage] offsetForTimestamp(" + Instant.ofEpochMilli(lookupTimestampMs) + ") = "
                + timestampOffset + " (the first record at or after it)");
            durable = write.get(log.awaitDurable(last), "awaitDurable(" + last + ")");
            out.println("[storage] awaitDurable(" + last + ") completed: offsets below " + durable + " are on disk");
            if (durable <= last) {
                throw new DemoFailure("awaitDurable(" + last + ") completed with flushed offset " + durable);
            }
        }
        final long endBefore = last + 1;

        final long endAfter;
        final boolean clean;
        final boolean matched;
        try (LogManager logs = LogManager.open(config)) {
            final PartitionLog log = logs.log(PARTITION)
                .orElseThrow(() -> new DemoFailure("partition " + PARTITION + " missing after reopening " + logDir));
            endAfter = log.logEndOffset();
            clean = logs.hadCleanShutdown(logDir);
            matched = endAfter == endBefore && firstAnswers.equals(answers(log, start, lookupTimestampMs));
            out.println("[storage] closed and reopened: log end offset " + endAfter + " (was " + endBefore + "), "
                + log.segmentCount() + " segments, clean shutdown " + (clean ? "recorded" : "NOT recorded") + ", "
                + (matched ? "same read and timestamp answers" : "DIFFERENT answers"));
        }
        if (!matched) {
            throw new DemoFailure("the reopened log of " + PARTITION + " differs: log end offset " + endAfter
                + " (expected " + endBefore + ")");
        }
        return new Outcome(start, last, durable, endBefore, endAfter, clean, timestampOffset, matched);
    }

    private static long appendBatches(final PartitionLog log, final long baseTimestampMs) {
        final RecordBatchBuilder builder = new RecordBatchBuilder();
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(1024));
        long last = -1;
        for (int b = 0; b < BATCHES; b++) {
            builder.wrap(buffer, 0, buffer.capacity());
            for (int r = 0; r < RECORDS_PER_BATCH; r++) {
                final int n = b * RECORDS_PER_BATCH + r;
                builder.appendRecord(baseTimestampMs + n * 1_000L, utf8("order-" + n), utf8("{\"qty\":" + (n + 1) + "}"));
            }
            final int size = builder.build();
            final ByteBuffer batch = buffer.byteBuffer().duplicate();
            batch.position(0).limit(size);
            // The log assigns the offsets in place from its end offset and stamps the leader epoch.
            last = log.appendAsLeader(batch, 0);
        }
        return last;
    }

    /** A read by offset (the batch holding start+4) and the timestamp lookup, as text to compare after reopen. */
    private static List<String> answers(final PartitionLog log, final long start, final long timestampMs)
        throws IOException {
        final long offset = start + 4;
        final LogSlice slice = log.read(offset, 1, Long.MAX_VALUE, true);
        final ByteBuffer bytes = ByteBuffer.allocateDirect(slice.sizeInBytes());
        slice.readInto(bytes);
        final RecordBatch batch = new RecordBatch().wrap(new UnsafeBuffer(bytes, 0, slice.sizeInBytes()), 0);
        final StringBuilder text = new StringBuilder("read(offset=" + offset + "): batch " + batch.baseOffset() + ".."
            + batch.lastOffset() + " (" + batch.sizeInBytes() + " bytes, leader epoch " + batch.partitionLeaderEpoch()
            + "):");
        final RecordView record = new RecordView();
        while (batch.nextRecord(record)) {
            text.append(' ').append(record.offset()).append(' ')
                .append(new String(record.keyBytes(), StandardCharsets.UTF_8)).append('=')
                .append(new String(record.valueBytes(), StandardCharsets.UTF_8));
        }
        final List<String> lines = new ArrayList<>();
        lines.add(text.toString());
        lines.add("offsetForTimestamp=" + log.offsetForTimestamp(timestampMs));
        return lines;
    }

    private static byte[] utf8(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
