package io.seglog.storage.epoch;

import static io.seglog.storage.epoch.LeaderEpochCache.UNDEFINED_EPOCH;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.seglog.storage.checkpoint.EpochEntry;
import io.seglog.storage.checkpoint.LeaderEpochCheckpointFile;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import java.util.concurrent.ScheduledFuture;
import org.apache.kafka.server.util.Scheduler;
import org.apache.kafka.storage.internals.epoch.LeaderEpochFileCache;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random assign/truncate sequences: our cache against a plain-list oracle written from Kafka's rules,
 * and (fewer sequences, since Kafka fsyncs on each change) against Kafka 4.4.0's own LeaderEpochFileCache.
 * A failing seed is printed in the message; add it to {@link #REGRESSION_SEEDS} once fixed.
 */
class LeaderEpochCacheRandomizedTest {
    private static final long[] REGRESSION_SEEDS = {};
    private static final int LIST_ORACLE_SEEDS = 40;
    private static final int KAFKA_ORACLE_SEEDS = 2;

    @TempDir
    Path dir;

    /** Kafka's rules written as plainly as possible over a list. */
    static final class ListOracle {
        final List<EpochEntry> entries = new ArrayList<>();

        void assign(final int epoch, final long startOffset) {
            if (!entries.isEmpty()) {
                final EpochEntry last = entries.get(entries.size() - 1);
                if (last.epoch() == epoch && startOffset >= last.startOffset()) {
                    return;
                }
            }
            while (!entries.isEmpty()) {
                final EpochEntry last = entries.get(entries.size() - 1);
                if (last.epoch() >= epoch || last.startOffset() >= startOffset) {
                    entries.remove(entries.size() - 1);
                } else {
                    break;
                }
            }
            entries.add(new EpochEntry(epoch, startOffset));
        }

        void truncateFromEnd(final long endOffset) {
            if (endOffset < 0) {
                return;
            }
            entries.removeIf(entry -> entry.startOffset() >= endOffset);
        }

        void truncateFromStart(final long startOffset) {
            EpochEntry lastRemoved = null;
            while (!entries.isEmpty() && entries.get(0).startOffset() <= startOffset) {
                lastRemoved = entries.remove(0);
            }
            if (lastRemoved != null) {
                entries.add(0, new EpochEntry(lastRemoved.epoch(), startOffset));
            }
        }

        int latestEpoch() {
            return entries.isEmpty() ? UNDEFINED_EPOCH : entries.get(entries.size() - 1).epoch();
        }

        EpochEnd endOffsetFor(final int requested, final long logEndOffset) {
            if (requested == UNDEFINED_EPOCH) {
                return EpochEnd.UNDEFINED;
            }
            if (latestEpoch() == requested && !entries.isEmpty()) {
                return new EpochEnd(requested, logEndOffset);
            }
            EpochEntry floor = null;
            for (final EpochEntry entry : entries) {
                if (entry.epoch() > requested) {
                    return floor == null ? new EpochEnd(requested, entry.startOffset())
                        : new EpochEnd(floor.epoch(), entry.startOffset());
                }
                floor = entry;
            }
            return EpochEnd.UNDEFINED;
        }

        int epochForOffset(final long offset) {
            int previous = UNDEFINED_EPOCH;
            for (final EpochEntry entry : entries) {
                if (entry.startOffset() == offset) {
                    return entry.epoch();
                }
                if (entry.startOffset() > offset) {
                    return previous;
                }
                previous = entry.epoch();
            }
            return previous;
        }

        int previousEpoch(final int epoch) {
            int previous = UNDEFINED_EPOCH;
            for (final EpochEntry entry : entries) {
                if (entry.epoch() < epoch) {
                    previous = entry.epoch();
                }
            }
            return previous;
        }

        int nextEpoch(final int epoch) {
            for (final EpochEntry entry : entries) {
                if (entry.epoch() > epoch) {
                    return entry.epoch();
                }
            }
            return UNDEFINED_EPOCH;
        }
    }

    /** A random operation on all implementations, then a comparison of every query. */
    private static final class Run {
        final long seed;
        final SplittableRandom random;
        final LeaderEpochCache ours = LeaderEpochCache.inMemory();
        final ListOracle oracle = new ListOracle();
        final LeaderEpochFileCache kafka;
        int epoch;
        long logEndOffset;

        Run(final long seed, final LeaderEpochFileCache kafka) {
            this.seed = seed;
            this.random = new SplittableRandom(seed);
            this.kafka = kafka;
        }

        void step(final int step) throws IOException {
            final String op;
            final int kind = random.nextInt(10);
            if (kind < 6) {
                // Mostly the current or a newer epoch; sometimes a stale one or an offset behind the end.
                final int e = random.nextInt(5) == 0 ? Math.max(0, epoch - random.nextInt(4))
                    : epoch + random.nextInt(3);
                final long offset = random.nextInt(5) == 0 ? Math.max(0, logEndOffset - random.nextInt(20))
                    : logEndOffset;
                op = "assign(" + e + ", " + offset + ")";
                ours.assign(e, offset);
                oracle.assign(e, offset);
                if (kafka != null) {
                    kafka.assign(e, offset);
                }
                epoch = Math.max(epoch, e);
                logEndOffset = Math.max(logEndOffset, offset) + random.nextInt(10);
            } else if (kind < 8) {
                final long offset = random.nextInt(10) == 0 ? -1 : random.nextLong(logEndOffset + 2);
                op = "truncateFromEnd(" + offset + ")";
                ours.truncateFromEnd(offset);
                oracle.truncateFromEnd(offset);
                if (kafka != null) {
                    kafka.truncateFromEndAsyncFlush(offset);
                }
                if (offset >= 0) {
                    logEndOffset = Math.min(logEndOffset, offset);
                }
            } else {
                final long offset = random.nextInt(10) == 0 ? -1 : random.nextLong(logEndOffset + 2);
                op = "truncateFromStart(" + offset + ")";
                ours.truncateFromStart(offset);
                oracle.truncateFromStart(offset);
                if (kafka != null) {
                    kafka.truncateFromStartAsyncFlush(offset);
                }
                logEndOffset = Math.max(logEndOffset, offset);
            }
            compare("seed=" + seed + " step=" + step + " after " + op);
        }

        void compare(final String where) {
            assertEquals(oracle.entries, ours.entries(), where);
            assertEquals(oracle.latestEpoch(), ours.latestEpoch(), where);
            final int previous = oracle.entries.size() < 2 ? UNDEFINED_EPOCH
                : oracle.entries.get(oracle.entries.size() - 2).epoch();
            assertEquals(previous, ours.previousEpoch(), where);
            for (int e = -1; e <= epoch + 1; e++) {
                assertEquals(oracle.endOffsetFor(e, logEndOffset), ours.endOffsetFor(e, logEndOffset),
                    where + " endOffsetFor(" + e + ")");
                assertEquals(oracle.previousEpoch(e), ours.previousEpoch(e), where + " previousEpoch(" + e + ")");
                assertEquals(oracle.nextEpoch(e), ours.nextEpoch(e), where + " nextEpoch(" + e + ")");
            }
            for (int i = 0; i < 8; i++) {
                final long offset = random.nextLong(logEndOffset + 5);
                assertEquals(oracle.epochForOffset(offset), ours.epochForOffset(offset),
                    where + " epochForOffset(" + offset + ")");
            }
            if (kafka != null) {
                compareWithKafka(where);
            }
        }

        void compareWithKafka(final String where) {
            final List<EpochEntry> theirs = new ArrayList<>();
            kafka.epochEntries().forEach(entry -> theirs.add(new EpochEntry(entry.epoch(), entry.startOffset())));
            assertEquals(theirs, ours.entries(), where + " (Kafka)");
            for (int e = -1; e <= epoch + 1; e++) {
                final Map.Entry<Integer, Long> answer = kafka.endOffsetFor(e, logEndOffset);
                assertEquals(new EpochEnd(answer.getKey(), answer.getValue()), ours.endOffsetFor(e, logEndOffset),
                    where + " endOffsetFor(" + e + ") (Kafka)");
                assertEquals(toInt(kafka.previousEpoch(e)), ours.previousEpoch(e), where + " previousEpoch (Kafka)");
                assertEquals(toInt(kafka.nextEpoch(e)), ours.nextEpoch(e), where + " nextEpoch (Kafka)");
            }
            for (long offset = 0; offset <= logEndOffset + 1; offset += 1 + logEndOffset / 16) {
                assertEquals(toInt(kafka.epochForOffset(offset)), ours.epochForOffset(offset),
                    where + " epochForOffset(" + offset + ") (Kafka)");
            }
        }

        private static int toInt(final OptionalInt value) {
            return value.isPresent() ? value.getAsInt() : UNDEFINED_EPOCH;
        }
    }

    @Test
    void matchesListOracleOnRandomSequences() throws IOException {
        final SplittableRandom seeds = new SplittableRandom(20261129L);
        final long[] runSeeds = new long[LIST_ORACLE_SEEDS + REGRESSION_SEEDS.length];
        for (int i = 0; i < LIST_ORACLE_SEEDS; i++) {
            runSeeds[i] = seeds.nextLong();
        }
        System.arraycopy(REGRESSION_SEEDS, 0, runSeeds, LIST_ORACLE_SEEDS, REGRESSION_SEEDS.length);
        for (final long seed : runSeeds) {
            final Run run = new Run(seed, null);
            for (int step = 0; step < 300; step++) {
                run.step(step);
            }
        }
    }

    @Test
    void matchesKafkasOwnLeaderEpochFileCache() throws IOException {
        final SplittableRandom seeds = new SplittableRandom(42L);
        for (int i = 0; i < KAFKA_ORACLE_SEEDS; i++) {
            final long seed = seeds.nextLong();
            final Path partitionDir = dir.resolve("t-" + i);
            java.nio.file.Files.createDirectories(partitionDir);
            final var checkpoint = new org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile(
                partitionDir.resolve(LeaderEpochCheckpointFile.FILE_NAME).toFile(), new LogDirFailureChannel(1));
            final LeaderEpochFileCache kafka = new LeaderEpochFileCache(
                new org.apache.kafka.common.TopicPartition("t", i), checkpoint, new NoAsyncFlushScheduler());
            final Run run = new Run(seed, kafka);
            for (int step = 0; step < 80; step++) {
                run.step(step);
            }
            // Our reader reads what Kafka's cache persisted on its last synchronous write.
            new LeaderEpochCheckpointFile(FileIO.system(), partitionDir.resolve(LeaderEpochCheckpointFile.FILE_NAME))
                .read();
        }
    }

    /** Kafka's cache flushes truncations through a scheduler; the comparison needs only its memory state. */
    private static final class NoAsyncFlushScheduler implements Scheduler {
        @Override
        public void startup() {
        }

        @Override
        public void shutdown() {
        }

        @Override
        public ScheduledFuture<?> schedule(final String name, final Runnable task, final long delayMs,
                                           final long periodMs) {
            return null;
        }

        @Override
        public void resizeThreadPool(final int newSize) {
        }
    }
}
