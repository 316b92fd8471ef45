package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.cleaner.LogCleaner;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction of a transactional topic (a Streams changelog under exactly-once): an aborted record is no newer value of
 * its key, so the committed value it follows survives cleaning; the aborted records themselves are removed; the
 * markers and the aborted transactions' index entries stay, so a {@code read_committed} reader sees the same latest
 * value of every key before and after cleaning, and after a reopen. The cleaner stops at the last stable offset: an
 * open transaction's records are not cleaned.
 */
class CleanerTransactionsTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path logDir;

    private final ManualClock clock = new ManualClock(T0);
    private final Map<Long, Integer> sequences = new TreeMap<>();

    private LogConfig config() {
        return LogConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT).segmentBytes(1024)
            .minCleanableDirtyRatio(0.01).fileDeleteDelayMs(0).build();
    }

    private LogManager openManager() {
        return LogManager.open(LogManagerConfig.builder().logDirs(logDir).logConfig(config())
            .cleanerConfig(new CleanerConfig(false, 1, 1 << 20, 1 << 16, 0.9, Double.MAX_VALUE, 0)).build(),
            FileIO.system(), null, clock);
    }

    @Test
    void abortedRecordsNeverReplaceACommittedValueAndAreCleanedAway() throws IOException {
        final TopicPartition tp = new TopicPartition("changelog", 0);
        final Map<String, String> before;
        final long cleanableEnd;
        try (LogManager manager = openManager()) {
            final PartitionLog log = manager.getOrCreate(tp);
            // Producer 1 commits k0 and k1; producer 2 then writes k0 and k2 in a transaction that aborts, with
            // plain records of other keys between its data and its marker; producer 3's abort spans segments.
            transactional(log, 1, "k0", "committed-0");
            transactional(log, 1, "k1", "committed-1");
            log.appendTransactionMarker(1, (short) 0, 0, true, 0);
            transactional(log, 2, "k0", "aborted-0");
            transactional(log, 3, "k3", "aborted-3");
            for (int i = 0; i < 20; i++) {
                plain(log, "p" + (i % 4), "plain-" + i);
            }
            transactional(log, 2, "k2", "aborted-2");
            log.appendTransactionMarker(2, (short) 0, 0, false, 0);
            for (int i = 20; i < 40; i++) {
                plain(log, "p" + (i % 4), "plain-" + i);
            }
            log.appendTransactionMarker(3, (short) 0, 0, false, 0);
            for (int i = 40; i < 60; i++) {
                plain(log, "p" + (i % 4), "plain-" + i);
            }
            // Producer 4's transaction stays open: the cleaner must stop below it (the last stable offset).
            transactional(log, 4, "k0", "open-0");
            cleanableEnd = log.logEndOffset() - 1;
            for (int i = 60; i < 80; i++) {
                plain(log, "p" + (i % 4), "plain-" + i);
            }
            log.updateHighWatermark(log.logEndOffset());
            assertEquals(cleanableEnd, log.lastStableOffset(), "producer 4's open transaction holds the LSO");
            before = readCommitted(log);
            assertEquals("committed-0", before.get("k0"));
            assertFalse(before.containsKey("k2"));
            final int recordsBefore = LogCleanerTest.readAll(log.dir()).size();
            try (LogCleaner cleaner = new LogCleaner(new CleanerConfig(true, 1, 1 << 20, 1 << 16, 0.9,
                Double.MAX_VALUE, 0).settings(), List.of(logDir.toAbsolutePath().normalize()),
                () -> List.of(new PartitionCleaning(log, tp)), FileIO.system(), clock)) {
                assertTrue(cleaner.cleanOnce(), "a round ran");
                assertTrue(cleaner.uncleanablePartitions().isEmpty(), "cleaned without failure");
            }
            final List<LogCleanerTest.Rec> after = LogCleanerTest.readAll(log.dir());
            assertTrue(after.size() < recordsBefore, "records were cleaned: " + recordsBefore + " -> " + after.size());
            for (final LogCleanerTest.Rec r : after) {
                if (r.offset() < cleanableEnd) {
                    assertFalse(r.value() != null && r.value().startsWith("aborted"), "aborted record kept: " + r);
                }
            }
            assertTrue(after.stream().anyMatch(r -> "open-0".equals(r.value())), "the open transaction is intact");
            assertEquals(before, readCommitted(log), "read_committed after cleaning");
            assertTrue(txnIndexBytes(log.dir()) >= 2L * 34, "both aborts are still indexed");
        }
        try (LogManager manager = openManager()) {
            final PartitionLog log = manager.log(tp).orElseThrow();
            log.updateHighWatermark(log.logEndOffset());
            assertEquals(before, readCommitted(log), "read_committed after a reopen");
        }
    }

    private void transactional(final PartitionLog log, final long pid, final String key, final String value) {
        final int seq = sequences.getOrDefault(pid, 0);
        sequences.put(pid, seq + 1);
        append(log, MemoryRecords.withTransactionalRecords(Compression.NONE, pid, (short) 0, seq,
            new SimpleRecord(T0, key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8))));
    }

    private static void plain(final PartitionLog log, final String key, final String value) {
        append(log, MemoryRecords.withRecords(Compression.NONE,
            new SimpleRecord(T0, key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8))));
    }

    private static void append(final PartitionLog log, final MemoryRecords records) {
        log.appendAsLeader(ByteBuffer.allocate(records.sizeInBytes()).put(records.buffer().duplicate()).flip(), 0);
    }

    /**
     * The latest value of each key a {@code read_committed} consumer sees up to the LSO, with Kafka's consumer rule:
     * a producer's transactional batches from an aborted transaction's first offset up to its ABORT marker are
     * dropped, the aborted transactions told by the reads.
     */
    static Map<String, String> readCommitted(final PartitionLog log) throws IOException {
        final long lso = log.lastStableOffset();
        final LogReader reader = log.reader();
        final TreeSet<long[]> aborted = new TreeSet<>((a, b) -> a[1] != b[1] ? Long.compare(a[1], b[1])
            : Long.compare(a[0], b[0]));
        final Set<Long> abortedProducers = new HashSet<>();
        final Map<String, String> latest = new TreeMap<>();
        long offset = log.logStartOffset();
        while (offset < lso) {
            if (!reader.read(offset, 1 << 20, lso, true)) {
                break;
            }
            reader.abortedTransactions((pid, first) -> aborted.add(new long[] {pid, first}));
            final ByteBuffer bytes = ByteBuffer.allocate(reader.sizeInBytes());
            reader.readInto(bytes);
            bytes.flip();
            for (final RecordBatch batch : MemoryRecords.readableRecords(bytes).batches()) {
                offset = batch.lastOffset() + 1;
                while (!aborted.isEmpty() && aborted.first()[1] <= batch.baseOffset()) {
                    abortedProducers.add(aborted.pollFirst()[0]);
                }
                if (batch.isControlBatch()) {
                    final List<Record> records = new ArrayList<>();
                    batch.forEach(records::add);
                    if (!records.isEmpty() && ControlRecordType.parse(records.get(0).key()) == ControlRecordType.ABORT) {
                        abortedProducers.remove(batch.producerId());
                    }
                    continue;
                }
                if (batch.isTransactional() && abortedProducers.contains(batch.producerId())) {
                    continue;
                }
                for (final Record r : batch) {
                    if (r.offset() < lso) {
                        latest.put(StandardCharsets.UTF_8.decode(r.key()).toString(),
                            r.hasValue() ? StandardCharsets.UTF_8.decode(r.value()).toString() : null);
                    }
                }
            }
        }
        return latest;
    }

    private static long txnIndexBytes(final Path dir) throws IOException {
        long total = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (final Path f : files.toList()) {
                if (f.getFileName().toString().endsWith(".txnindex")) {
                    total += Files.size(f);
                }
            }
        }
        return total;
    }
}
