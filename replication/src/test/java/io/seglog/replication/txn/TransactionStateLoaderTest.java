package io.seglog.replication.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.LogConfig;
import io.seglog.storage.LogReader;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import io.seglog.storage.io.FileIO;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.coordinator.transaction.TransactionLog;
import org.apache.kafka.coordinator.transaction.TxnTransitMetadata;
import org.apache.kafka.server.common.TransactionVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code __transaction_state} partition written with Kafka 4.4's {@code TransactionLog} (random updates of a few
 * transactional ids at every transactions version, expirations as tombstones, batches compressed or not, a marker
 * among them) into a real log, loaded back by ours: every transactional id has the metadata Kafka's reader gives when
 * it replays the same records in order, and the ids Kafka's replay removes are gone. Ours written back through the
 * coordinator's transit (a prepared change) is what Kafka reads. A damaged record is refused with its offset.
 */
class TransactionStateLoaderTest {
    @TempDir
    Path dir;

    @Test
    void aPartitionKafkaWroteLoadsAsKafkaLoadsIt() throws Exception {
        final SplittableRandom r = new SplittableRandom(3);
        final Map<String, org.apache.kafka.coordinator.transaction.TransactionMetadata> expected = new HashMap<>();
        try (PartitionLog log = PartitionLog.open(dir.resolve("__transaction_state-0"), LogConfig.builder().build(),
            FileIO.system(), InstantSource.system())) {
            int tombstones = 0;
            for (int batch = 0; batch < 150; batch++) {
                if (batch == 75) {
                    log.appendTransactionMarker(7L, (short) 0, 0, true, 0);
                    continue;
                }
                final List<SimpleRecord> records = new ArrayList<>();
                for (int n = r.nextInt(1, 4); n > 0; n--) {
                    final String id = "txn-" + r.nextInt(12);
                    final byte[] key = TransactionLog.keyToBytes(id);
                    if (r.nextInt(8) == 0) {
                        records.add(new SimpleRecord(1_000L, key, null));
                        expected.remove(id);
                        tombstones++;
                        continue;
                    }
                    // The cluster's transactions version at least the client's, as a coordinator writes them.
                    final TransactionVersion client = randomVersion(r);
                    final TransactionVersion cluster = TransactionVersion.values()[r.nextInt(client.ordinal(),
                        TransactionVersion.values().length)];
                    final byte[] value = TransactionLog.valueToBytes(randomTransit(r, client), cluster);
                    records.add(new SimpleRecord(1_000L, key, value));
                    expected.put(id, assertInstanceOf(TransactionLog.TxnRecord.class, TransactionLog.read(
                        ByteBuffer.wrap(key), ByteBuffer.wrap(value))).metadata());
                }
                append(log, MemoryRecords.withRecords(r.nextBoolean() ? Compression.NONE : Compression.lz4().build(),
                    records.toArray(new SimpleRecord[0])));
            }
            assertTrue(tombstones > 10 && expected.size() > 3, "tombstones " + tombstones + ", ids " + expected.size());

            final Map<String, TransactionMetadata> loaded = load(log);
            assertEquals(expected.keySet(), loaded.keySet());
            for (final Map.Entry<String, org.apache.kafka.coordinator.transaction.TransactionMetadata> e
                : expected.entrySet()) {
                final org.apache.kafka.coordinator.transaction.TransactionMetadata k = e.getValue();
                final TransactionMetadata o = loaded.get(e.getKey());
                TransactionMetadataOracleTest.assertFields(k, o, e.getKey() + ": " + o);
            }
        }
    }

    @Test
    void aPreparedChangeIsWrittenAsKafkaReadsIt() {
        final TransactionMetadata ours = new TransactionMetadata("orders-app", 42, -1, -1, (short) 3, (short) -1,
            60_000, TransactionState.EMPTY, java.util.Set.of(), -1, 5, (short) 2);
        final TransactionMetadata.Transit added = ours.prepareAddPartitions(java.util.Set.of(
            new TopicPartition("orders", 1), new TopicPartition("orders", 0), new TopicPartition("audit", 4)), 100,
            (short) 2);
        for (final short version : new short[] {TransactionRecords.VALUE_VERSION_0, TransactionRecords.VALUE_VERSION_1}) {
            final byte[] value = TransactionRecords.encodeValue(TransactionMetadata.valueOf(added, version), version);
            final org.apache.kafka.coordinator.transaction.TransactionMetadata k = assertInstanceOf(
                TransactionLog.TxnRecord.class, TransactionLog.read(ByteBuffer.wrap(TransactionLog.keyToBytes(
                    "orders-app")), ByteBuffer.wrap(value))).metadata();
            assertEquals(42, k.producerId());
            assertEquals(3, k.producerEpoch());
            assertEquals(org.apache.kafka.coordinator.transaction.TransactionState.ONGOING, k.state());
            assertEquals(100, k.txnStartTimestamp());
            assertEquals(3, k.topicPartitions().size());
            assertEquals(version == 1 ? 2 : 0, k.clientTransactionVersion().featureLevel(), "version " + version);
        }
    }

    @Test
    void aKeyOfALaterVersionIsSkippedAsKafkaSkipsIt() {
        try (PartitionLog log = PartitionLog.open(dir.resolve("__transaction_state-2"), LogConfig.builder().build(),
            FileIO.system(), InstantSource.system())) {
            final byte[] value = TransactionLog.valueToBytes(randomTransit(new SplittableRandom(2),
                TransactionVersion.TV_0), TransactionVersion.TV_0);
            final byte[] later = TransactionLog.keyToBytes("x");
            later[1] = 9; // key version 9
            append(log, MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(1_000L, later, value),
                new SimpleRecord(1_000L, TransactionLog.keyToBytes("a"), value)));
            assertEquals(java.util.Set.of("a"), load(log).keySet());
        }
    }

    @Test
    void aDamagedRecordIsRefusedWithItsOffset() throws Exception {
        try (PartitionLog log = PartitionLog.open(dir.resolve("__transaction_state-1"), LogConfig.builder().build(),
            FileIO.system(), InstantSource.system())) {
            final byte[] value = TransactionLog.valueToBytes(randomTransit(new SplittableRandom(1),
                TransactionVersion.TV_0), TransactionVersion.TV_0);
            append(log, MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(1_000L,
                TransactionLog.keyToBytes("a"), value)));
            final byte[] bad = value.clone();
            bad[2 + 8 + 2 + 4] = 42; // the status byte
            append(log, MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(1_000L,
                TransactionLog.keyToBytes("b"), bad)));
            final MalformedTransactionRecordException e = assertThrows(MalformedTransactionRecordException.class,
                () -> load(log));
            assertTrue(e.getMessage().contains("offset 1 of __transaction_state-1"), e.getMessage());
            assertEquals("transactionStatus", e.field());
        }
    }

    private static Map<String, TransactionMetadata> load(final PartitionLog log) {
        final Map<String, TransactionMetadata> loaded = new HashMap<>();
        try (TransactionStateLoader loader = new TransactionStateLoader(1 << 20)) {
            final LogReader reader = log.reader();
            long offset = log.logStartOffset();
            while (offset < log.logEndOffset() && reader.read(offset, 4096, Long.MAX_VALUE, true)) {
                final ByteBuffer bytes = ByteBuffer.allocate(reader.sizeInBytes());
                try {
                    reader.readInto(bytes);
                } catch (final java.io.IOException e) {
                    throw new AssertionError(e);
                }
                offset = loader.load(bytes.flip(), loaded, "__transaction_state-" + log.dir().getFileName()
                    .toString().substring("__transaction_state-".length()));
            }
        }
        return loaded;
    }

    private static TransactionVersion randomVersion(final SplittableRandom r) {
        return TransactionVersion.values()[r.nextInt(TransactionVersion.values().length)];
    }

    private static TxnTransitMetadata randomTransit(final SplittableRandom r, final TransactionVersion client) {
        final org.apache.kafka.coordinator.transaction.TransactionState state =
            org.apache.kafka.coordinator.transaction.TransactionState.values()[r.nextInt(8)];
        final HashSet<org.apache.kafka.common.TopicPartition> partitions = new HashSet<>();
        if (state != org.apache.kafka.coordinator.transaction.TransactionState.EMPTY) {
            for (int p = r.nextInt(4); p > 0; p--) {
                partitions.add(new org.apache.kafka.common.TopicPartition("t" + r.nextInt(3), r.nextInt(5)));
            }
        }
        return new TxnTransitMetadata(r.nextLong(1L << 40), r.nextBoolean() ? -1 : r.nextLong(1L << 40),
            r.nextBoolean() ? -1 : r.nextLong(1L << 40), (short) r.nextInt(1000), (short) -1, r.nextInt(1, 900_000),
            state, partitions, r.nextBoolean() ? -1 : r.nextLong(1L << 41), r.nextLong(1L << 41), client);
    }

    private static void append(final PartitionLog log, final MemoryRecords records) {
        log.appendAsLeader(ByteBuffer.allocate(records.sizeInBytes()).put(records.buffer()).flip(), 0);
    }
}
