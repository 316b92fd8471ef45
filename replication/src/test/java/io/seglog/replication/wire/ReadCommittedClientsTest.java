package io.seglog.replication.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.seglog.replication.Await;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unmodified kafka-clients 4.4 consumers with {@code isolation.level=read_committed} and {@code read_uncommitted}
 * against one broker whose log holds committed, aborted and open transactions (written into the leader's log as the
 * coordinator's markers would be, since the broker does not serve transactional producers yet): Fetch answers with
 * the last stable offset and the aborted transactions, so the committed consumer never sees an aborted or undecided
 * record, stops at the open transaction, and goes on once it commits; ListOffsets' latest offset is the LSO for it and
 * the high watermark for the other.
 */
@Timeout(120)
class ReadCommittedClientsTest {
    private static final TopicPartition ORDERS = new TopicPartition("orders", 0);
    private static final org.apache.kafka.common.TopicPartition CLIENT_TP =
        new org.apache.kafka.common.TopicPartition(ORDERS.topic(), ORDERS.partition());
    private static final int LEADER_EPOCH = 1;

    @TempDir
    Path dir;

    private Set<Thread> threadsBefore;
    private KafkaApisBroker broker;
    private final Map<Long, Integer> sequences = new java.util.HashMap<>();

    @BeforeEach
    void start() {
        threadsBefore = Await.threads();
        broker = new KafkaApisBroker(dir);
        broker.lead(ORDERS, LEADER_EPOCH, List.of(KafkaApisBroker.BROKER), List.of(KafkaApisBroker.BROKER));
    }

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.close();
        }
        Await.noThreadsLeakedSince(threadsBefore, Duration.ofSeconds(30),
            name -> name.startsWith("globalEventExecutor") || name.startsWith("ObjectCleaner"));
    }

    @Test
    void readCommittedConsumersSeeOnlyCommittedRecordsAndStopAtTheLastStableOffset() throws Exception {
        final PartitionLog log = broker.log(ORDERS);
        transactional(log, 500, "committed-1");
        transactional(log, 501, "aborted-1");
        transactional(log, 500, "committed-2");
        transactional(log, 501, "aborted-2");
        log.appendTransactionMarker(501, (short) 0, 0, false, LEADER_EPOCH);
        log.appendTransactionMarker(500, (short) 0, 0, true, LEADER_EPOCH);
        final long openAt = log.logEndOffset();
        transactional(log, 502, "open-1");
        final String bootstrap = "127.0.0.1:" + broker.server.address().getPort();
        produce(bootstrap, "plain-1"); // moves the high watermark to the log end
        assertEquals(log.logEndOffset(), log.highWatermark());
        assertEquals(openAt, log.lastStableOffset(), "producer 502's transaction holds the LSO");

        try (KafkaConsumer<String, String> committed = consumer(bootstrap, "read_committed");
             KafkaConsumer<String, String> uncommitted = consumer(bootstrap, "read_uncommitted")) {
            assertEquals(openAt, committed.endOffsets(List.of(CLIENT_TP)).get(CLIENT_TP), "ListOffsets: the LSO");
            assertEquals(log.highWatermark(), uncommitted.endOffsets(List.of(CLIENT_TP)).get(CLIENT_TP),
                "ListOffsets: the high watermark");
            assertEquals(List.of("committed-1", "committed-2"), readUpTo(committed, openAt));
            assertEquals(List.of("committed-1", "aborted-1", "committed-2", "aborted-2", "open-1", "plain-1"),
                readUpTo(uncommitted, log.highWatermark()));

            // The open transaction commits; the committed consumer reads on from where it stopped.
            log.appendTransactionMarker(502, (short) 0, 0, true, LEADER_EPOCH);
            produce(bootstrap, "plain-2");
            assertEquals(log.highWatermark(), log.lastStableOffset(), "no transaction open");
            assertEquals(List.of("open-1", "plain-1", "plain-2"), readUpTo(committed, log.lastStableOffset()));
        }
    }

    private void transactional(final PartitionLog log, final long pid, final String value) {
        final int seq = sequences.getOrDefault(pid, 0);
        sequences.put(pid, seq + 1);
        final MemoryRecords records = MemoryRecords.withTransactionalRecords(Compression.NONE, pid, (short) 0, seq,
            new SimpleRecord(1_000L, null, value.getBytes(StandardCharsets.UTF_8)));
        log.appendAsLeader(ByteBuffer.allocate(records.sizeInBytes()).put(records.buffer()).flip(), LEADER_EPOCH);
    }

    private static void produce(final String bootstrap, final String value) throws Exception {
        final Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.ACKS_CONFIG, "1");
        pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp, new ByteArraySerializer(),
            new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(ORDERS.topic(), ORDERS.partition(), null,
                value.getBytes(StandardCharsets.UTF_8))).get();
        }
    }

    private static KafkaConsumer<String, String> consumer(final String bootstrap, final String isolation) {
        final Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        // The fixture's broker clock only moves when a test moves it: fetches return at once instead of waiting.
        cp.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 0);
        final KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp, new StringDeserializer(),
            new StringDeserializer());
        consumer.assign(List.of(CLIENT_TP));
        consumer.seekToBeginning(List.of(CLIENT_TP));
        return consumer;
    }

    /** Polls until the consumer's position reaches {@code end}; the values it returned on the way. */
    private static List<String> readUpTo(final KafkaConsumer<String, String> consumer, final long end) {
        final List<String> values = new ArrayList<>();
        Await.until(Duration.ofSeconds(60), () -> {
            consumer.poll(Duration.ofMillis(100)).forEach(r -> values.add(r.value()));
            return consumer.position(CLIENT_TP) >= end;
        }, () -> "position " + consumer.position(CLIENT_TP) + " of " + end + ", read " + values);
        // Nothing past the bound arrives later either.
        consumer.poll(Duration.ofMillis(100)).forEach(r -> values.add(r.value()));
        return values;
    }
}
