package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.seglog.storage.io.FileIO;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.LogAppendInfo;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every sequence and epoch case of an idempotent leader append, answered by our log and by Kafka 4.4's own
 * {@code UnifiedLog} (the oracle) fed the same bytes: the same outcome (appended, duplicate, out of order, fenced) and
 * the same offsets, step by step; then seeded random walks through the same rules. Kafka 4.4 refuses a client
 * append of more than one batch ("Compressed outer record has more than one batch"), so appends of several batches,
 * which Seglog accepts, are checked against Kafka's {@code ProducerAppendInfo} rules by hand
 * ({@link #severalBatchesInOneAppendAreCheckedInOrderAsKafkasUpdatedEntry}).
 */
@Timeout(120)
class ProducerSequenceOracleTest {
    private static final int MAX = Integer.MAX_VALUE;

    @TempDir
    Path dir;

    private KafkaScheduler scheduler;
    private UnifiedLog kafka;
    private PartitionLog ours;
    private final LeaderAppendResult info = new LeaderAppendResult();
    private final LeaderAppendResult.Handler<LeaderAppendResult> keep = info::copyFrom;

    /** One batch: producer id (-1 for a plain batch), epoch, first sequence, record count. */
    record Batch(long pid, int epoch, int seq, int records) {
        @Override
        public String toString() {
            return pid < 0 ? "plain" : "p" + pid + "/e" + epoch + "/s" + seq + "x" + records;
        }
    }

    @BeforeEach
    void openBoth() throws Exception {
        scheduler = new KafkaScheduler(1);
        scheduler.startup();
        kafka = UnifiedLog.create(dir.resolve("kafka-0").toFile(), new org.apache.kafka.storage.internals.log.LogConfig(
                Map.of()), 0L, 0L, scheduler, new BrokerTopicStats(), Time.SYSTEM, 300_000,
            new ProducerStateManagerConfig(86_400_000, false), 600_000, new LogDirFailureChannel(10), true,
            Optional.of(Uuid.randomUuid()));
        ours = PartitionLog.open(dir.resolve("ours-0"), LogConfig.builder().build(), FileIO.system(),
            InstantSource.system());
    }

    @AfterEach
    void closeBoth() throws Exception {
        ours.close();
        kafka.close();
        scheduler.shutdown();
    }

    private static Batch b(final long pid, final int epoch, final int seq, final int records) {
        return new Batch(pid, epoch, seq, records);
    }

    private static List<Batch> one(final long pid, final int epoch, final int seq, final int records) {
        return List.of(b(pid, epoch, seq, records));
    }

    static Stream<Arguments> cases() {
        return Stream.of(
            Arguments.of("an unknown producer may start at any sequence", List.of(one(1, 0, 5, 1))),
            Arguments.of("in sequence", List.of(one(1, 0, 0, 2), one(1, 0, 2, 3))),
            Arguments.of("a gap is out of order", List.of(one(1, 0, 0, 2), one(1, 0, 3, 1))),
            Arguments.of("a retry of the last batch is a duplicate",
                List.of(one(1, 0, 0, 2), one(1, 0, 2, 2), one(1, 0, 2, 2))),
            Arguments.of("a retry of the oldest of five batches is a duplicate", List.of(one(1, 0, 0, 1),
                one(1, 0, 1, 1), one(1, 0, 2, 1), one(1, 0, 3, 1), one(1, 0, 4, 1), one(1, 0, 0, 1))),
            Arguments.of("a retry of the sixth batch back is out of order", List.of(one(1, 0, 0, 1), one(1, 0, 1, 1),
                one(1, 0, 2, 1), one(1, 0, 3, 1), one(1, 0, 4, 1), one(1, 0, 5, 1), one(1, 0, 0, 1))),
            Arguments.of("an overlapping range that is not a retained batch is out of order",
                List.of(one(1, 0, 0, 3), one(1, 0, 1, 2))),
            Arguments.of("an older epoch is fenced", List.of(one(1, 1, 0, 1), one(1, 0, 1, 1))),
            Arguments.of("a new epoch starts at sequence 0", List.of(one(1, 0, 0, 3), one(1, 1, 0, 1))),
            Arguments.of("a new epoch not at 0 is out of order", List.of(one(1, 0, 0, 3), one(1, 1, 4, 1))),
            Arguments.of("a retry in the old epoch after a bump is fenced",
                List.of(one(1, 0, 0, 1), one(1, 1, 0, 1), one(1, 0, 0, 1))),
            Arguments.of("the sequence wraps from MAX to 0", List.of(one(1, 0, MAX - 1, 2), one(1, 0, 0, 1))),
            Arguments.of("a batch wraps inside itself", List.of(one(1, 0, MAX, 3), one(1, 0, 2, 1),
                one(1, 0, MAX, 3))),
            Arguments.of("MAX then 1 is out of order", List.of(one(1, 0, MAX, 1), one(1, 0, 1, 1))),
            Arguments.of("producers are independent", List.of(one(1, 0, 0, 1), one(2, 0, 0, 1), one(1, 0, 1, 1),
                one(2, 0, 2, 1))),
            Arguments.of("plain batches skip the checks", List.of(one(1, 0, 0, 1), one(-1, -1, -1, 2),
                one(1, 0, 1, 1), one(1, 0, 1, 1))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void answersEverySequenceAndEpochCaseAsKafka(final String name, final List<List<Batch>> appends)
        throws Exception {
        for (int i = 0; i < appends.size(); i++) {
            compare(name + ", append " + i + " " + appends.get(i), appends.get(i));
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1L, 2L, 3L, 4L})
    void randomAppendsMatchKafka(final long seed) throws Exception {
        final SplittableRandom random = new SplittableRandom(seed);
        final int[] epochs = {0, 0, 0};
        final int[] next = {0, 0, 0};
        for (int step = 0; step < 150; step++) {
            final List<Batch> append = new ArrayList<>();
            for (int n = 1; n > 0; n--) { // Kafka takes one batch per client append (LogValidator)
                final int p = random.nextInt(3);
                final int epoch = Math.max(0, epochs[p] + random.nextInt(-1, 2) * (random.nextInt(5) == 0 ? 1 : 0));
                final int records = 1 + random.nextInt(3);
                final int seq = epoch > epochs[p] ? (random.nextBoolean() ? 0 : random.nextInt(3))
                    : Math.max(0, next[p] + (random.nextInt(4) == 0 ? random.nextInt(-6, 3) : 0));
                append.add(b(p + 1, epoch, seq, records));
            }
            final AppendOutcome outcome = compare("seed " + seed + " step " + step + " " + append, append);
            if (outcome == AppendOutcome.APPENDED) {
                for (final Batch batch : append) {
                    epochs[(int) batch.pid() - 1] = batch.epoch();
                    next[(int) batch.pid() - 1] = batch.seq() + batch.records();
                }
            }
        }
    }

    @org.junit.jupiter.api.Test
    void severalBatchesInOneAppendAreCheckedInOrderAsKafkasUpdatedEntry() {
        // Kafka's ProducerAppendInfo checks each batch against the producer as the earlier batches left it.
        ours.appendAsLeader(encode(List.of(b(1, 0, 0, 2), b(1, 0, 2, 2))), 0, keep);
        assertEquals(AppendOutcome.APPENDED, info.outcome());
        assertEquals(3, info.lastOffset());

        ours.appendAsLeader(encode(List.of(b(1, 0, 4, 1), b(1, 0, 6, 1))), 0, keep);
        assertEquals(AppendOutcome.OUT_OF_ORDER_SEQUENCE, info.outcome(), "a gap in the second batch");
        assertEquals(1, info.batchIndex());
        assertEquals(4, info.currentLastSequence(), "the first batch of the append ended at 4");
        assertEquals(4, ours.logEndOffset(), "all or nothing");

        ours.appendAsLeader(encode(List.of(b(2, 0, 0, 1), b(1, 0, 0, 2))), 0, keep);
        assertEquals(AppendOutcome.DUPLICATE, info.outcome(), "a retry answers for the whole append");
        assertEquals(0, info.firstOffset());
        assertEquals(1, info.lastOffset());
        assertEquals(4, ours.logEndOffset());

        ours.appendAsLeader(encode(List.of(b(1, 1, 0, 1), b(1, 0, 7, 1))), 0, keep);
        assertEquals(AppendOutcome.INVALID_PRODUCER_EPOCH, info.outcome(),
            "an epoch bump earlier in the append fences the old epoch after it");
        assertEquals(1, info.currentProducerEpoch());
        assertEquals(4, ours.logEndOffset());
    }

    /** Appends the same bytes to both logs and asserts the same answer; returns ours. */
    private AppendOutcome compare(final String what, final List<Batch> append) throws Exception {
        final ByteBuffer bytes = encode(append);
        final ByteBuffer forKafka = ByteBuffer.allocate(bytes.remaining()).put(bytes.duplicate()).flip();
        final long kafkaEndBefore = kafka.logEndOffset();
        String kafkaAnswer;
        try {
            final LogAppendInfo k = kafka.appendAsLeader(MemoryRecords.readableRecords(forKafka), 0);
            kafkaAnswer = (kafka.logEndOffset() == kafkaEndBefore ? "DUPLICATE" : "APPENDED") + " [" + k.firstOffset()
                + ", " + k.lastOffset() + "]";
        } catch (final OutOfOrderSequenceException e) {
            kafkaAnswer = "OUT_OF_ORDER_SEQUENCE";
        } catch (final InvalidProducerEpochException e) {
            kafkaAnswer = "INVALID_PRODUCER_EPOCH";
        }
        ours.appendAsLeader(bytes, 0, keep);
        final String ourAnswer = info.succeeded() ? info.outcome() + " [" + info.firstOffset() + ", "
            + info.lastOffset() + "]" : info.outcome().toString();
        assertEquals(kafkaAnswer, ourAnswer, what + " (our message: " + info.message() + ")");
        assertEquals(kafka.logEndOffset(), ours.logEndOffset(), what);
        return info.outcome();
    }

    private static ByteBuffer encode(final List<Batch> append) {
        int size = 0;
        final List<ByteBuffer> parts = new ArrayList<>();
        for (final Batch batch : append) {
            final SimpleRecord[] records = new SimpleRecord[batch.records()];
            for (int i = 0; i < records.length; i++) {
                records[i] = new SimpleRecord(System.currentTimeMillis(), null, ("v" + i).getBytes());
            }
            final MemoryRecords built = batch.pid() < 0 ? MemoryRecords.withRecords(Compression.NONE, records)
                : MemoryRecords.withIdempotentRecords(Compression.NONE, batch.pid(), (short) batch.epoch(),
                    batch.seq(), records);
            parts.add(built.buffer());
            size += built.sizeInBytes();
        }
        final ByteBuffer all = ByteBuffer.allocate(size);
        parts.forEach(all::put);
        return all.flip();
    }
}
