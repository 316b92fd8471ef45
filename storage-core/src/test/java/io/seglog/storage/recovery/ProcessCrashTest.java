package io.seglog.storage.recovery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.KafkaBatches;
import io.seglog.storage.LogConfig;
import io.seglog.storage.ManualClock;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.io.FileIO;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * ST-17: a real process crash. A child JVM ({@link CrashingAppender}) appends and waits with
 * {@code awaitDurable}, printing each offset the completed future reports durable; the parent kills it with SIGKILL after a random number of durable
 * lines, possibly mid-append or mid-fsync, and reopens the log (crash recovery): every printed offset must read
 * back with its own value, and the log must continue from there. Several kills hit the same directory in a row,
 * so recovery also runs over logs that earlier recoveries repaired. {@code -Dseglog.crash.trials=N} runs N
 * kills (default 20).
 */
class ProcessCrashTest {
    private static final int TRIALS = Integer.getInteger("seglog.crash.trials", 20);
    private static final long SEED = 1717L;

    @TempDir
    Path dir;

    @Test
    @Timeout(600)
    void everyOffsetReportedDurableSurvivesSigkill() throws Exception {
        final SplittableRandom random = new SplittableRandom(SEED);
        final Path logDir = dir.resolve("crash-0");
        long maxDurable = -1;
        long maxReopenNs = 0;
        for (int trial = 0; trial < TRIALS; trial++) {
            final int killAfter = 1 + random.nextInt(60);
            final int flushEvery = 1 + random.nextInt(8);
            final Process child = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Xmx128m", "-XX:TieredStopAtLevel=1",
                CrashingAppender.class.getName(), logDir.toString(), Integer.toString(flushEvery))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            long durable = -1;
            int lines = 0;
            try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
                String line;
                // Reading blocks on the child's output: the kill point is a count of durable lines, not a time.
                while (lines < killAfter && (line = out.readLine()) != null) {
                    durable = Math.max(durable, Long.parseLong(line.substring("durable ".length())));
                    lines++;
                }
                child.destroyForcibly();
                assertTrue(child.waitFor(30, TimeUnit.SECONDS), "trial " + trial + ": the child did not die");
            }
            assertEquals(killAfter, lines, "trial " + trial + ": the child stopped printing early");
            maxDurable = Math.max(maxDurable, durable);
            final long start = System.nanoTime();
            // Reopened as a log manager would after a crash, with the durable offset as recovery point: a real
            // SIGKILL must never look like corruption below it.
            try (PartitionLog log = PartitionLog.open(logDir, LogConfig.builder().segmentBytes(16 * 1024)
                .indexIntervalBytes(512).segmentIndexBytes(4096).build(), FileIO.system(), new ManualClock(0),
                maxDurable + 1, false)) {
                maxReopenNs = Math.max(maxReopenNs, System.nanoTime() - start);
                assertTrue(log.logEndOffset() > maxDurable, "trial " + trial + ": log end " + log.logEndOffset()
                    + " lost durable offset " + maxDurable);
                for (long offset = 0; offset <= maxDurable; offset++) {
                    final ByteBuffer bytes = KafkaBatches.bytesOf(log.read(offset, 1, Long.MAX_VALUE, true));
                    final List<Record> records = KafkaBatches.records(bytes);
                    assertEquals(1, records.size(), "trial " + trial + ", offset " + offset);
                    assertEquals(offset, records.get(0).offset(), "trial " + trial);
                    final byte[] value = new byte[records.get(0).valueSize()];
                    records.get(0).value().get(value);
                    assertArrayEquals(CrashingAppender.valueFor(offset), value, "trial " + trial + ", offset " + offset);
                }
            }
        }
        System.out.printf("ProcessCrashTest: %d SIGKILL trials, highest durable offset %d, lost=0, max reopen %.1f ms%n",
            TRIALS, maxDurable, maxReopenNs / 1e6);
    }
}
