package io.seglog.storage.example;

import io.seglog.storage.LogConfig;
import io.seglog.storage.LogSlice;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.format.RecordView;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchBuilder;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Creates a partition log, appends a few batches as a leader, reads them back by offset and by timestamp,
 * closes the log, reopens it and shows that it finds the same segments, end offset and answers.
 *
 * <p>Run: {@code java -cp storage-core/target/classes:$(cat storage-core/target/runtime-classpath.txt)
 * io.seglog.storage.example.QuickStart [directory]}; without a directory it uses a new temporary one.
 */
public final class QuickStart {
    private static final long BASE_TIMESTAMP_MS = 1_700_000_000_000L;
    private static final byte[] SOURCE = "quickstart".getBytes(StandardCharsets.UTF_8);

    private QuickStart() {
    }

    /**
     * Runs the example.
     *
     * @param args an optional directory for the log (the partition directory {@code quickstart-0} is created
     *             in it)
     * @throws IOException if the temporary directory cannot be created or a slice cannot be read
     */
    public static void main(final String[] args) throws IOException {
        // slf4j-simple (on this module's runtime class path only) logs at INFO by default; keep the tour readable:
        // warnings and errors of every library, Seglog's own INFO. Either property given on the command line wins.
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.log.io.seglog", "info");
        final Path root = args.length > 0 ? Paths.get(args[0]) : Files.createTempDirectory("seglog-quickstart");
        run(root.resolve("quickstart-0"), System.out);
    }

    /**
     * The example, writing what it sees to {@code out}.
     *
     * @param partitionDir the partition directory
     * @param out          where to print
     * @throws IOException if a slice cannot be read
     * @throws IllegalStateException if the reopened log differs from the one that was closed
     */
    public static void run(final Path partitionDir, final PrintStream out) throws IOException {
        // Small segments so that a few batches already make several segment files.
        final LogConfig config = LogConfig.builder().segmentBytes(512).indexIntervalBytes(128).build();
        out.println("log directory: " + partitionDir.toAbsolutePath());

        final List<String> firstRun = new ArrayList<>();
        final long[] segmentsBefore;
        final long endBefore;
        try (PartitionLog log = PartitionLog.open(partitionDir, config, FileIO.system(), Clock.systemUTC())) {
            final long start = log.logEndOffset();
            final RecordBatchBuilder builder = new RecordBatchBuilder();
            final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
            for (int b = 0; b < 6; b++) {
                builder.wrap(buffer, 0, buffer.capacity());
                for (int r = 0; r < 3; r++) {
                    final int n = b * 3 + r;
                    // Timestamps rise with a dip every third record: the log does not need them ordered.
                    final long timestamp = BASE_TIMESTAMP_MS + n * 1_000L - (r == 2 ? 1_500 : 0);
                    builder.beginRecord(timestamp, ("key-" + n).getBytes(StandardCharsets.UTF_8),
                        ("order #" + n).getBytes(StandardCharsets.UTF_8), 1).header("source", SOURCE).endRecord();
                }
                final int size = builder.build();
                final ByteBuffer batch = buffer.byteBuffer().duplicate();
                batch.limit(size).position(0);
                final long last = log.appendAsLeader(batch, 0);
                out.println("appended batch " + b + ": offsets " + (last - 2) + ".." + last + " (" + size + " bytes)");
            }
            describe(log, start, firstRun);
            firstRun.forEach(out::println);
            segmentsBefore = log.segmentBaseOffsets();
            endBefore = log.logEndOffset();
        }
        out.println("closed: logEndOffset=" + endBefore + ", files=" + segmentNames(partitionDir));

        try (PartitionLog log = PartitionLog.open(partitionDir, config, FileIO.system(), Clock.systemUTC())) {
            final List<String> secondRun = new ArrayList<>();
            describe(log, endBefore - 18, secondRun);
            out.println("reopened: logEndOffset=" + log.logEndOffset() + ", segments at "
                + Arrays.toString(log.segmentBaseOffsets()));
            final boolean same = Arrays.equals(segmentsBefore, log.segmentBaseOffsets())
                && endBefore == log.logEndOffset() && firstRun.equals(secondRun);
            out.println(same ? "reopened log matches: same segments, log end offset, reads and timestamp lookups"
                : "MISMATCH after reopen: " + secondRun);
            if (!same) {
                throw new IllegalStateException("the reopened log differs from the closed one");
            }
        }
    }

    private static void describe(final PartitionLog log, final long start, final List<String> lines) throws IOException {
        final long middle = start + 7;
        final LogSlice slice = log.read(middle, 200, Long.MAX_VALUE, true);
        lines.add("read(offset=" + middle + ", maxBytes=200): " + slice.sizeInBytes() + " bytes from segment "
            + slice.segmentBaseOffset() + " at position " + slice.position() + ", first batch at offset "
            + slice.firstOffset());
        final ByteBuffer bytes = ByteBuffer.allocateDirect(slice.sizeInBytes());
        slice.readInto(bytes);
        final UnsafeBuffer view = new UnsafeBuffer(bytes, 0, slice.sizeInBytes());
        final RecordBatch batch = new RecordBatch();
        final RecordView record = new RecordView();
        for (int position = 0; position < slice.sizeInBytes(); position += batch.sizeInBytes()) {
            batch.wrap(view, position);
            while (batch.nextRecord(record)) {
                lines.add("  offset " + record.offset() + " ts " + record.timestamp() + " key "
                    + new String(record.keyBytes(), StandardCharsets.UTF_8) + " value "
                    + new String(record.valueBytes(), StandardCharsets.UTF_8));
            }
        }
        for (final long ts : new long[] {BASE_TIMESTAMP_MS + 4_000, BASE_TIMESTAMP_MS + 10_200, BASE_TIMESTAMP_MS + 99_000}) {
            lines.add("offsetForTimestamp(" + ts + ") = " + log.offsetForTimestamp(ts));
        }
    }

    private static List<String> segmentNames(final Path partitionDir) throws IOException {
        final List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(partitionDir)) {
            for (final Path file : files) {
                names.add(file.getFileName() + "(" + Files.size(file) + ")");
            }
        }
        names.sort(null);
        return names;
    }
}
