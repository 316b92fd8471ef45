package io.seglog.replication.txn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.coordinator.transaction.TransactionLog;
import org.apache.kafka.coordinator.transaction.TransactionMetadata;
import org.apache.kafka.coordinator.transaction.TxnTransitMetadata;
import org.apache.kafka.server.common.TransactionVersion;
import org.junit.jupiter.api.Test;

/**
 * {@code __transaction_state} records and the coordinator's states against Kafka 4.4's own classes
 * ({@code TransactionLog}, {@code TransactionState}): the same key bytes; every value Kafka writes (random states,
 * partitions, producer ids and epochs, at each transactions version) read by us as Kafka reads it, and ours read by
 * Kafka as we wrote it, byte for byte where Kafka's order is defined; Kafka's states, names and transitions; the
 * coordinator partition of a transactional id; and malformed records refused by field, never over-allocated.
 */
class TransactionRecordsOracleTest {
    @Test
    void statesAreKafkas() {
        for (final org.apache.kafka.coordinator.transaction.TransactionState k
            : org.apache.kafka.coordinator.transaction.TransactionState.values()) {
            final TransactionState ours = TransactionState.fromId(k.id());
            assertNotNull(ours, k.stateName());
            assertEquals(k.stateName(), ours.stateName());
            assertEquals(k.isExpirationAllowed(), ours.isExpirationAllowed(), k.stateName());
            final Set<TransactionState> previous = EnumSet.noneOf(TransactionState.class);
            k.validPreviousStates().forEach(p -> previous.add(TransactionState.fromId(p.id())));
            assertEquals(previous, ours.validPreviousStates(), "the states " + k.stateName() + " may follow");
        }
        assertEquals(org.apache.kafka.coordinator.transaction.TransactionState.values().length,
            TransactionState.values().length);
    }

    @Test
    void keysAndCoordinatorPartitionsAreKafkas() {
        final SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < 500; i++) {
            final String id = randomId(r);
            final byte[] kafka = TransactionLog.keyToBytes(id);
            assertArrayEquals(kafka, TransactionRecords.encodeKey(id), id);
            assertEquals(id, TransactionRecords.decodeKey(ByteBuffer.wrap(kafka)));
            for (final int partitions : new int[] {1, 3, 50}) {
                assertEquals(Utils.abs(id.hashCode()) % partitions, TransactionRecords.partitionFor(id, partitions));
            }
        }
    }

    @Test
    void valuesReadAndWrittenAsKafkaReadsAndWritesThem() {
        final SplittableRandom r = new SplittableRandom(11);
        int exact = 0;
        for (int i = 0; i < 2_000; i++) {
            final String id = randomId(r);
            final TransactionVersion tv = TransactionVersion.values()[r.nextInt(TransactionVersion.values().length)];
            final org.apache.kafka.coordinator.transaction.TransactionState state =
                org.apache.kafka.coordinator.transaction.TransactionState.values()[r.nextInt(8)];
            final HashSet<TopicPartition> partitions = new HashSet<>();
            if (state != org.apache.kafka.coordinator.transaction.TransactionState.EMPTY) {
                for (int p = r.nextInt(5); p > 0; p--) {
                    partitions.add(new TopicPartition("topic-" + r.nextInt(3), r.nextInt(6)));
                }
            }
            final TxnTransitMetadata meta = new TxnTransitMetadata(r.nextLong(0, 1L << 40),
                r.nextBoolean() ? -1 : r.nextLong(0, 1L << 40), r.nextBoolean() ? -1 : r.nextLong(0, 1L << 40),
                (short) r.nextInt(Short.MAX_VALUE), (short) -1, r.nextInt(1, 900_000), state, partitions,
                r.nextBoolean() ? -1 : r.nextLong(1L << 41), r.nextLong(1L << 41), tv);
            final byte[] kafkaBytes = TransactionLog.valueToBytes(meta, tv);
            final TransactionMetadata kafkaRead = kafkaRead(id, kafkaBytes);

            // Kafka's bytes, read by us as Kafka reads them.
            final TransactionRecords.TransactionValue ours = TransactionRecords.decodeValue(ByteBuffer.wrap(kafkaBytes));
            assertSame(kafkaRead, ours, "Kafka's value " + meta);
            // Kafka's reader keeps no next producer id; the bytes do (version 1), and ours reads them.
            assertEquals(tv.transactionLogValueVersion() >= 1 ? meta.nextProducerId() : -1, ours.nextProducerId());

            // Ours, at the version Kafka writes for this transactions version, read by Kafka as we wrote it.
            final short version = tv.transactionLogValueVersion();
            final byte[] ourBytes = TransactionRecords.encodeValue(ours, version);
            assertSame(kafkaRead(id, ourBytes), ours, "our value " + ours);
            if (partitions.size() <= 1) {
                assertArrayEquals(kafkaBytes, ourBytes, "the same bytes: " + meta);
                exact++;
            }
        }
        assertTrue(exact > 300, "byte-for-byte comparisons: " + exact);
    }

    @Test
    void malformedValuesAreRefusedByField() {
        final TransactionRecords.TransactionValue value = new TransactionRecords.TransactionValue(5, 4, -1,
            (short) 3, (short) -1, 60_000, TransactionState.ONGOING, Map.of("orders", new int[] {0, 1}), 1_000,
            900, (short) 2);
        final byte[] good = TransactionRecords.encodeValue(value, TransactionRecords.VALUE_VERSION_1);
        assertEquals(value, TransactionRecords.decodeValue(ByteBuffer.wrap(good)));
        for (int cut = 0; cut < good.length; cut++) {
            final int at = cut;
            assertThrows(MalformedTransactionRecordException.class,
                () -> TransactionRecords.decodeValue(ByteBuffer.wrap(Arrays.copyOf(good, at))), "cut at " + cut);
        }
        // A partition count of 2^31 - 1 is refused before anything is allocated.
        final byte[] huge = good.clone();
        final int countAt = 2 + 8 + 2 + 4 + 1;
        huge[countAt] = (byte) 0xff;
        final MalformedTransactionRecordException e = assertThrows(MalformedTransactionRecordException.class,
            () -> TransactionRecords.decodeValue(ByteBuffer.wrap(huge)));
        assertTrue(e.getMessage().contains("transactionPartitions") || e.getMessage().contains("topic"),
            e.getMessage());
        final byte[] status = good.clone();
        status[countAt - 1] = 9;
        assertEquals("transactionStatus", assertThrows(MalformedTransactionRecordException.class,
            () -> TransactionRecords.decodeValue(ByteBuffer.wrap(status))).field());
        assertThrows(IllegalArgumentException.class, () -> TransactionRecords.encodeValue(value,
            TransactionRecords.VALUE_VERSION_0), "version 0 cannot hold the previous producer id");
    }

    private static TransactionMetadata kafkaRead(final String id, final byte[] value) {
        final TransactionLog.ReadResult read = TransactionLog.read(ByteBuffer.wrap(TransactionLog.keyToBytes(id)),
            ByteBuffer.wrap(value));
        return assertInstanceOf(TransactionLog.TxnRecord.class, read).metadata();
    }

    private static void assertSame(final TransactionMetadata kafka, final TransactionRecords.TransactionValue ours,
                                   final String what) {
        assertEquals(kafka.producerId(), ours.producerId(), what);
        assertEquals(kafka.prevProducerId(), ours.previousProducerId(), what);
        assertEquals(kafka.producerEpoch(), ours.producerEpoch(), what);
        assertEquals(kafka.txnTimeoutMs(), ours.timeoutMs(), what);
        assertEquals(kafka.state().id(), ours.state().id(), what);
        assertEquals(kafka.txnStartTimestamp(), ours.startTimestampMs(), what);
        assertEquals(kafka.txnLastUpdateTimestamp(), ours.lastUpdateTimestampMs(), what);
        assertEquals(kafka.clientTransactionVersion().featureLevel(), ours.clientTransactionVersion(), what);
        final Map<String, Set<Integer>> kafkaPartitions = new TreeMap<>();
        kafka.topicPartitions().forEach(tp -> kafkaPartitions.computeIfAbsent(tp.topic(), t -> new HashSet<>())
            .add(tp.partition()));
        final Map<String, Set<Integer>> ourPartitions = new TreeMap<>();
        ours.partitions().forEach((t, ids) -> Arrays.stream(ids).forEach(p -> ourPartitions
            .computeIfAbsent(t, x -> new HashSet<>()).add(p)));
        assertEquals(kafkaPartitions, ourPartitions, what);
    }

    private static String randomId(final SplittableRandom r) {
        final StringBuilder b = new StringBuilder();
        for (int n = 1 + r.nextInt(24); n > 0; n--) {
            b.appendCodePoint(r.nextInt(8) == 0 ? 0x4e00 + r.nextInt(200) : 'a' + r.nextInt(26));
        }
        return b.toString();
    }
}
