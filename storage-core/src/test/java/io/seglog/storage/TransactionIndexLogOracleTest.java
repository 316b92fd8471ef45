package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.FetchDataInfo;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The aborted-transaction index as the log writes, truncates, rebuilds and reads it, against Kafka 4.4's
 * {@code UnifiedLog} and against the definition: the same transactional batches, markers, plain batches, high
 * watermarks and follower truncations appended to both logs over several segments give the same {@code .txnindex}
 * bytes per segment, and every {@code read_committed} read gives the aborted transactions the definition gives (and
 * Kafka gives, within the answer); Kafka opens our directory and we open Kafka's with the same answers; an index lost
 * with the producer snapshots, or corrupt, is rebuilt by the open to the same bytes.
 */
class TransactionIndexLogOracleTest {
    private static final int SEGMENT_BYTES = 24 * 1024;
    private static final byte[] VALUE = new byte[700];

    @TempDir
    Path dir;
    private KafkaScheduler scheduler;
    private final List<UnifiedLog> kafkaLogs = new ArrayList<>();
    private final List<PartitionLog> ourLogs = new ArrayList<>();
    /** What was appended: {base offset, producer id (-1 plain), count, 0 data / 1 commit / 2 abort}. */
    private final List<long[]> history = new ArrayList<>();

    @BeforeEach
    void start() {
        scheduler = new KafkaScheduler(1);
        scheduler.startup();
    }

    @AfterEach
    void stop() throws Exception {
        for (final PartitionLog log : ourLogs) {
            log.close();
        }
        for (final UnifiedLog log : kafkaLogs) {
            log.close();
        }
        scheduler.shutdown();
    }

    private UnifiedLog openKafka(final Path partition) throws Exception {
        final UnifiedLog log = UnifiedLog.create(partition.toFile(), new org.apache.kafka.storage.internals.log.LogConfig(
                Map.of("internal.segment.bytes", SEGMENT_BYTES)), 0L, 0L, scheduler, new BrokerTopicStats(),
            Time.SYSTEM, 300_000, new ProducerStateManagerConfig(86_400_000, false), 600_000,
            new LogDirFailureChannel(10), true, Optional.of(Uuid.randomUuid()));
        kafkaLogs.add(log);
        return log;
    }

    private PartitionLog openOurs(final Path partition) {
        final PartitionLog log = PartitionLog.open(partition, config(), FileIO.system(), InstantSource.system());
        ourLogs.add(log);
        return log;
    }

    private static LogConfig config() {
        return LogConfig.builder().segmentBytes(SEGMENT_BYTES).build();
    }

    @Test
    void theLogWritesReadsAndRebuildsTheIndexAsKafkaDoes() throws Exception {
        for (long seed = 1; seed <= 6; seed++) {
            history.clear();
            final Path run = Files.createDirectory(dir.resolve("seed-" + seed));
            final UnifiedLog kafka = openKafka(run.resolve("kafka-0"));
            final PartitionLog ours = openOurs(run.resolve("ours-0"));
            final long hw = steps(seed, kafka, ours);
            final String at = "seed " + seed;
            assertTrue(ours.segmentBaseOffsets().length >= 3, at + ": segments " + ours.segmentBaseOffsets().length);
            assertTrue(history.stream().anyMatch(b -> b[3] == 2), at + ": an abort was written");
            final List<String> read = readCommitted(kafka, ours, at);

            // Both closed: the same index files, byte for byte.
            kafka.close();
            kafkaLogs.remove(kafka);
            ours.close();
            ourLogs.remove(ours);
            final Map<String, byte[]> expected = txnIndexes(run.resolve("ours-0"));
            assertEquals(txnIndexes(run.resolve("kafka-0")).keySet(), expected.keySet(), at + ": index files");
            for (final Map.Entry<String, byte[]> e : txnIndexes(run.resolve("kafka-0")).entrySet()) {
                assertArrayEquals(e.getValue(), expected.get(e.getKey()), at + ": " + e.getKey());
            }

            // Kafka opens our directory, and we open Kafka's: the same answers.
            final UnifiedLog kafkaOnOurs = openKafka(copy(run.resolve("ours-0"), run.resolve("kafka-on-ours-0")));
            final PartitionLog oursOnKafka = openOurs(copy(run.resolve("kafka-0"), run.resolve("ours-on-kafka-0")));
            kafkaOnOurs.updateHighWatermark(hw);
            oursOnKafka.updateHighWatermark(hw);
            assertEquals(read, readCommitted(kafkaOnOurs, oursOnKafka, at + " (swapped directories)"));

            // Lost with every snapshot (a replay from the log start), or one corrupt: rebuilt to the same bytes.
            final Path lost = copy(run.resolve("ours-0"), run.resolve("lost-0"));
            try (Stream<Path> files = Files.list(lost)) {
                for (final Path f : files.toList()) {
                    final String name = f.getFileName().toString();
                    if (name.endsWith(".snapshot") || name.endsWith(".txnindex")) {
                        Files.delete(f);
                    }
                }
            }
            PartitionLog.open(lost, config(), FileIO.system(), InstantSource.system(), 0, false).close();
            assertIndexes(expected, lost, at + ": rebuilt after a loss");
            final Path corrupt = copy(run.resolve("ours-0"), run.resolve("corrupt-0"));
            final Path damaged = corrupt.resolve(expected.keySet().iterator().next());
            final byte[] bytes = Files.readAllBytes(damaged);
            bytes[0] = 0x7f; // the first entry's version
            Files.write(damaged, bytes);
            final long end = history.isEmpty() ? 0 : history.get(history.size() - 1)[0]
                + history.get(history.size() - 1)[2];
            // Read-only, it cannot be rebuilt: a read_committed read over it is refused, and the file is left as is.
            try (PartitionLog readOnly = PartitionLog.openReadOnly(corrupt, config(), FileIO.system(),
                InstantSource.system())) {
                final LogReader reader = readOnly.reader();
                reader.read(readOnly.logStartOffset(), 1 << 20, readOnly.logEndOffset(), true);
                assertThrows(StorageException.class, () -> reader.abortedTransactions((pid, first) -> { }),
                    at + ": a corrupt index is no answer");
            }
            assertArrayEquals(bytes, Files.readAllBytes(damaged), at + ": kept until a rebuild replaces it");
            // A clean open (nothing scanned, the latest snapshot trusted) still rebuilds the discarded index.
            PartitionLog.open(corrupt, config(), FileIO.system(), InstantSource.system(), end, true).close();
            assertIndexes(expected, corrupt, at + ": rebuilt after corruption");
        }
    }

    /** Random steps, as a follower appends; returns the high watermark. */
    private long steps(final long seed, final UnifiedLog kafka, final PartitionLog ours) throws Exception {
        final SplittableRandom r = new SplittableRandom(seed);
        final int producers = 2 + r.nextInt(3);
        final Map<Long, Integer> sequences = new TreeMap<>();
        final Map<Long, Boolean> open = new TreeMap<>();
        long next = 0;
        long highWatermark = 0;
        for (int step = 0; step < 400; step++) {
            final int what = r.nextInt(12);
            final long pid = 100 + r.nextInt(producers);
            if (what < 5) {
                final int count = 1 + r.nextInt(3);
                final int seq = sequences.getOrDefault(pid, 0);
                append(kafka, ours, MemoryRecords.withTransactionalRecords(next, Compression.NONE, pid, (short) 0,
                    seq, 0, records(count)));
                sequences.put(pid, seq + count);
                open.put(pid, true);
                history.add(new long[] {next, pid, count, 0});
                next += count;
            } else if (what < 8 && open.getOrDefault(pid, false)) {
                final boolean abort = r.nextInt(3) > 0;
                append(kafka, ours, MemoryRecords.withEndTransactionMarker(next, System.currentTimeMillis(), 0, pid,
                    (short) 0, new EndTransactionMarker(abort ? ControlRecordType.ABORT : ControlRecordType.COMMIT,
                        3)));
                open.put(pid, false);
                history.add(new long[] {next, pid, 1, abort ? 2 : 1});
                next += 1;
            } else if (what < 9) {
                final int count = 1 + r.nextInt(3);
                append(kafka, ours, MemoryRecords.withRecords(next, Compression.NONE, 0, records(count)));
                history.add(new long[] {next, -1, count, 0});
                next += count;
            } else if (what < 11) {
                highWatermark = highWatermark + r.nextLong(0, next - highWatermark + 1);
                kafka.updateHighWatermark(highWatermark);
                ours.updateHighWatermark(highWatermark);
            } else if (r.nextInt(3) == 0 && !history.isEmpty()
                && history.get(history.size() - 1)[0] >= highWatermark) {
                // A follower's truncation above the HW, to a batch boundary.
                final long hw = highWatermark;
                final List<long[]> above = history.stream().filter(b -> b[0] >= hw).toList();
                final long to = above.get(r.nextInt(above.size()))[0];
                kafka.truncateTo(to);
                ours.truncateTo(to);
                next = to;
                history.removeIf(b -> b[0] >= to);
                sequences.clear();
                open.clear();
                for (final long[] b : history) {
                    if (b[1] >= 0) {
                        open.put(b[1], b[3] == 0);
                        if (b[3] == 0) {
                            sequences.merge(b[1], (int) b[2], Integer::sum);
                        }
                    }
                }
                kafka.updateHighWatermark(highWatermark);
                ours.updateHighWatermark(highWatermark);
            }
            assertEquals(kafka.logEndOffset(), ours.logEndOffset(), "seed " + seed + " step " + step);
        }
        highWatermark = next;
        kafka.updateHighWatermark(highWatermark);
        ours.updateHighWatermark(highWatermark);
        return highWatermark;
    }

    /**
     * A {@code read_committed} read from every batch's base offset below the LSO: ours gives the definition's aborted
     * transactions (the model's, over the answer), Kafka's list holds the same ones within the answer. Returns ours,
     * as text, to compare with another pair of logs.
     */
    private List<String> readCommitted(final UnifiedLog kafka, final PartitionLog ours, final String at)
        throws Exception {
        final long lso = ours.lastStableOffset();
        assertEquals(kafka.lastStableOffset(), lso, at + ": LSO");
        final LogReader reader = ours.reader();
        final List<String> all = new ArrayList<>();
        int nonEmpty = 0;
        for (final long[] b : history) {
            final long start = b[0];
            if (start >= lso) {
                break;
            }
            reader.read(start, 64 * 1024, lso, true);
            final long upper = Math.min(lso, segmentEnd(ours, reader.segmentBaseOffset()));
            final TreeSet<String> found = new TreeSet<>();
            final int told = reader.abortedTransactions((pid, first) -> found.add(pid + "@" + first));
            assertEquals(found.size(), told, at + ": each told once");
            assertEquals(model(start, upper), found, at + ": aborted transactions of a read from " + start);
            final FetchDataInfo info = kafka.read(start, 64 * 1024, FetchIsolation.TXN_COMMITTED, true);
            final TreeSet<String> kafkaFound = new TreeSet<>();
            for (final FetchResponseData.AbortedTransaction t : info.abortedTransactions.orElse(List.of())) {
                if (t.firstOffset() < upper) {
                    kafkaFound.add(t.producerId() + "@" + t.firstOffset());
                }
            }
            assertEquals(kafkaFound, found, at + ": as Kafka's, from " + start);
            nonEmpty += found.isEmpty() ? 0 : 1;
            all.add(start + "=" + found);
        }
        assertTrue(nonEmpty > 0, at + ": some read overlapped an aborted transaction");
        return all;
    }

    private static long segmentEnd(final PartitionLog log, final long base) {
        for (final long b : log.segmentBaseOffsets()) {
            if (b > base) {
                return b;
            }
        }
        return log.logEndOffset();
    }

    /** The aborted transactions by definition: ABORT marker at or after {@code start}, first offset below upper. */
    private TreeSet<String> model(final long start, final long upper) {
        final Map<Long, Long> firsts = new TreeMap<>();
        final TreeSet<String> aborted = new TreeSet<>();
        for (final long[] b : history) {
            if (b[1] < 0) {
                continue;
            }
            if (b[3] == 0) {
                firsts.putIfAbsent(b[1], b[0]);
            } else {
                final Long first = firsts.remove(b[1]);
                if (b[3] == 2 && first != null && b[0] >= start && first < upper) {
                    aborted.add(b[1] + "@" + first);
                }
            }
        }
        return aborted;
    }

    private static void assertIndexes(final Map<String, byte[]> expected, final Path partition, final String at)
        throws IOException {
        final Map<String, byte[]> found = txnIndexes(partition);
        assertEquals(expected.keySet(), found.keySet(), at);
        for (final Map.Entry<String, byte[]> e : expected.entrySet()) {
            assertArrayEquals(e.getValue(), found.get(e.getKey()), at + ": " + e.getKey());
        }
    }

    /** The non-empty {@code .txnindex} files of a partition by name (Kafka leaves an emptied one; so may we). */
    private static Map<String, byte[]> txnIndexes(final Path partition) throws IOException {
        final Map<String, byte[]> found = new TreeMap<>();
        try (Stream<Path> files = Files.list(partition)) {
            for (final Path f : files.toList()) {
                if (f.getFileName().toString().endsWith(".txnindex") && Files.size(f) > 0) {
                    found.put(f.getFileName().toString(), Files.readAllBytes(f));
                }
            }
        }
        return found;
    }

    private static Path copy(final Path from, final Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (final Path f : files.toList()) {
                if (!f.getFileName().toString().endsWith(".lock")) {
                    Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return to;
    }

    private static void append(final UnifiedLog kafka, final PartitionLog ours, final MemoryRecords records) {
        final ByteBuffer ourCopy = ByteBuffer.allocate(records.sizeInBytes()).put(records.buffer().duplicate()).flip();
        kafka.appendAsFollower(records, 0);
        ours.appendAsFollower(ourCopy);
    }

    private static SimpleRecord[] records(final int count) {
        final SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(System.currentTimeMillis(), null, VALUE);
        }
        return records;
    }
}
