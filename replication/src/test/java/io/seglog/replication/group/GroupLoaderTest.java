package io.seglog.replication.group;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.group.GroupRequests.FetchedOffset;
import io.seglog.replication.group.GroupRequests.Sync;
import io.seglog.replication.group.GroupRequests.SyncResult;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.group.generated.GroupMetadataKey;
import org.apache.kafka.coordinator.group.generated.GroupMetadataValue;
import org.apache.kafka.coordinator.group.generated.OffsetCommitKey;
import org.apache.kafka.coordinator.group.generated.OffsetCommitValue;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.junit.jupiter.api.Test;

/**
 * A coordinator loads an offsets partition as Kafka's coordinator wrote it: batches built by kafka-clients with
 * records from Kafka 4.4's serde (uncompressed and lz4, offsets overwritten and deleted, a group's metadata), read
 * into a {@link GroupManager} with the same answers Kafka's coordinator would give; transactional batches skipped; a
 * partial batch at the end left for the next read; a record without a key refused with its offset.
 */
class GroupLoaderTest {
    private static final String GROUP = "billing";
    private final GroupCoordinatorRecordSerde serde = new GroupCoordinatorRecordSerde();

    private SimpleRecord offset(final String topic, final int partition, final long offset, final String metadata) {
        final CoordinatorRecord r = CoordinatorRecord.record(new OffsetCommitKey().setGroup(GROUP).setTopic(topic)
            .setPartition(partition), new ApiMessageAndVersion(new OffsetCommitValue().setOffset(offset)
            .setLeaderEpoch(4).setMetadata(metadata).setCommitTimestamp(1_700_000_000_000L), (short) 4));
        return new SimpleRecord(1_700_000_000_000L, serde.serializeKey(r), serde.serializeValue(r));
    }

    private SimpleRecord offsetTombstone(final String topic, final int partition) {
        final CoordinatorRecord r = CoordinatorRecord.tombstone(new OffsetCommitKey().setGroup(GROUP).setTopic(topic)
            .setPartition(partition));
        return new SimpleRecord(1_700_000_000_000L, serde.serializeKey(r), null);
    }

    private SimpleRecord group(final String memberId, final byte[] assignment) {
        final GroupMetadataValue value = new GroupMetadataValue().setProtocolType("consumer").setGeneration(7)
            .setProtocol("range").setLeader(memberId).setCurrentStateTimestamp(1_700_000_000_000L)
            .setMembers(List.of(new GroupMetadataValue.MemberMetadata().setMemberId(memberId).setClientId("app")
                .setClientHost("/10.0.0.1").setRebalanceTimeout(30_000).setSessionTimeout(45_000)
                .setSubscription(new byte[] {1, 2}).setAssignment(assignment)));
        final CoordinatorRecord r = CoordinatorRecord.record(new GroupMetadataKey().setGroup(GROUP),
            new ApiMessageAndVersion(value, (short) 3));
        return new SimpleRecord(1_700_000_000_000L, serde.serializeKey(r), serde.serializeValue(r));
    }

    private static ByteBuffer concat(final MemoryRecords... parts) {
        int size = 0;
        for (final MemoryRecords p : parts) {
            size += p.sizeInBytes();
        }
        final ByteBuffer out = ByteBuffer.allocate(size);
        for (final MemoryRecords p : parts) {
            out.put(p.buffer().duplicate());
        }
        return out.flip();
    }

    private static GroupManager manager(final ManualGroupScheduler scheduler) {
        return new GroupManager(GroupConfig.defaults(), scheduler, entries -> CompletableFuture.completedFuture(null),
            new SplittableRandom(4), () -> 1_700_000_000_000L);
    }

    @Test
    void whatKafkasCoordinatorWroteLoadsToTheSameGroupAndOffsets() {
        final byte[] assignment = "orders-0,orders-1".getBytes(StandardCharsets.UTF_8);
        final ByteBuffer log = concat(
            MemoryRecords.withRecords(0L, Compression.NONE, offset("orders", 0, 10, "a"), offset("orders", 1, 20, "b")),
            MemoryRecords.withRecords(2L, Compression.lz4().build(), offset("orders", 0, 15, "c"),
                offsetTombstone("orders", 1), group("app-1", assignment)),
            MemoryRecords.withTransactionalRecords(5L, Compression.NONE, 99L, (short) 0, 0, 0,
                offset("orders", 0, 1_000, "txn")),
            MemoryRecords.withRecords(6L, Compression.NONE, offset("payments", 3, 42, "")));
        final ManualGroupScheduler scheduler = new ManualGroupScheduler();
        final GroupManager groups = manager(scheduler);
        try (GroupLoader loader = new GroupLoader(1 << 20)) {
            assertEquals(7, loader.load(log, groups, "__consumer_offsets-12"), "the offset after the last batch");
            assertEquals(6, loader.records());
            assertEquals(1, loader.skipped(), "the transactional commit");
        }
        assertEquals(0, log.position(), "the caller's buffer is not moved");
        groups.loaded();
        assertEquals(List.of(new FetchedOffset("orders", 0, 15, 4, "c"), new FetchedOffset("payments", 3, 42, 4, "")),
            groups.fetchOffsets(GROUP, null), "the last commit per partition; the tombstone deleted orders-1");
        assertEquals(-1, groups.fetchOffsets(GROUP, List.of(new TopicPartition("orders", 1))).get(0).offset());
        assertEquals(GroupState.STABLE, groups.state(GROUP));
        assertEquals(7, groups.generation(GROUP));
        assertEquals(List.of("app-1"), groups.members(GROUP));
        final CompletableFuture<SyncResult> synced = new CompletableFuture<>();
        groups.sync(new Sync(GROUP, 7, "app-1", null, null, null, Map.of()), synced);
        assertArrayEquals(assignment, synced.getNow(null).assignment(), "the member's assignment as Kafka stored it");
    }

    @Test
    void aPartialBatchAtTheEndIsLeftForTheNextRead() {
        final ByteBuffer whole = concat(MemoryRecords.withRecords(0L, Compression.NONE, offset("t", 0, 1, "")),
            MemoryRecords.withRecords(1L, Compression.NONE, offset("t", 0, 2, "")));
        final ByteBuffer cut = whole.duplicate().limit(whole.limit() - 5);
        final GroupManager groups = manager(new ManualGroupScheduler());
        try (GroupLoader loader = new GroupLoader(1 << 20)) {
            assertEquals(1, loader.load(cut, groups, "p"), "only the first batch is whole");
        }
        assertEquals(1, groups.fetchOffsets(GROUP, List.of(new TopicPartition("t", 0))).get(0).offset());
    }

    @Test
    void aRecordWithoutAKeyOrWithAMalformedValueIsRefusedNamingItsOffset() {
        final ByteBuffer noKey = concat(MemoryRecords.withRecords(40L, Compression.NONE,
            new SimpleRecord(1L, null, new byte[] {0, 1})));
        try (GroupLoader loader = new GroupLoader(1 << 20)) {
            final MalformedGroupRecordException e = assertThrows(MalformedGroupRecordException.class,
                () -> loader.load(noKey, manager(new ManualGroupScheduler()), "__consumer_offsets-3"));
            assertTrue(e.getMessage().contains("offset 40 of __consumer_offsets-3"), e.getMessage());
        }
        final SimpleRecord good = offset("t", 0, 1, "");
        final byte[] value = new byte[good.value().remaining()];
        good.value().duplicate().get(value);
        value[1] = 9; // a version from the future
        final byte[] key = new byte[good.key().remaining()];
        good.key().duplicate().get(key);
        final ByteBuffer badValue = concat(MemoryRecords.withRecords(41L, Compression.NONE,
            new SimpleRecord(1L, key, value)));
        try (GroupLoader loader = new GroupLoader(1 << 20)) {
            final MalformedGroupRecordException e = assertThrows(MalformedGroupRecordException.class,
                () -> loader.load(badValue, manager(new ManualGroupScheduler()), "__consumer_offsets-3"));
            assertEquals("version", e.field());
            assertTrue(e.getMessage().contains("offset 41"), e.getMessage());
        }
    }
}
