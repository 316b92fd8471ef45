package io.seglog.replication.group;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.seglog.replication.group.GroupRecords.GroupKey;
import io.seglog.replication.group.GroupRecords.GroupValue;
import io.seglog.replication.group.GroupRecords.MemberValue;
import io.seglog.replication.group.GroupRecords.OffsetKey;
import io.seglog.replication.group.GroupRecords.OffsetValue;
import io.seglog.replication.group.GroupRecords.OtherKey;
import io.seglog.storage.TopicId;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMetadataKey;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMetadataValue;
import org.apache.kafka.coordinator.group.generated.GroupMetadataKey;
import org.apache.kafka.coordinator.group.generated.GroupMetadataValue;
import org.apache.kafka.coordinator.group.generated.OffsetCommitKey;
import org.apache.kafka.coordinator.group.generated.OffsetCommitValue;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.junit.jupiter.api.Test;

/**
 * Our {@code __consumer_offsets} records against Kafka 4.4's own serde ({@code GroupCoordinatorRecordSerde}, what its
 * group coordinator and {@code kafka-dump-log --offsets-decoder} use): what we write is byte for byte what Kafka writes
 * for the same record and reads back with every field equal; what Kafka writes at any version it ever wrote we read with
 * every field equal; damaged records are refused with the field and position, never another exception.
 */
class GroupRecordsTest {
    private static final int CASES = 2_000;
    private final GroupCoordinatorRecordSerde kafka = new GroupCoordinatorRecordSerde();

    // ------------------------------------------------------------------------------------------ random records

    private static String text(final SplittableRandom random, final int max) {
        final int length = random.nextInt(max + 1);
        final StringBuilder out = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            // Mostly ASCII, some two- and three-byte UTF-8 and a surrogate pair now and then.
            final int kind = random.nextInt(20);
            if (kind == 0) {
                out.append('\u00e9');
            } else if (kind == 1) {
                out.append('\u20ac');
            } else if (kind == 2) {
                out.appendCodePoint(0x1F600);
            } else {
                out.append((char) ('a' + random.nextInt(26)));
            }
        }
        return out.toString();
    }

    private static byte[] blob(final SplittableRandom random, final int max) {
        final byte[] b = new byte[random.nextInt(max + 1)];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) random.nextInt(256);
        }
        return b;
    }

    private static OffsetValue offsetValue(final SplittableRandom random) {
        final boolean expiring = random.nextInt(5) == 0;
        // Version 1 (the only one with an expire timestamp) has no leader epoch: -1 there.
        return new OffsetValue(random.nextLong(-1, Long.MAX_VALUE), expiring ? -1 : random.nextInt(-1, 1_000),
            text(random, 30),
            random.nextLong(0, 4_000_000_000_000L), expiring ? random.nextLong(0, 4_000_000_000_000L) : -1,
            expiring || random.nextBoolean() ? null : new TopicId(random.nextLong(), random.nextLong() | 1));
    }

    private static GroupValue groupValue(final SplittableRandom random) {
        final int count = random.nextInt(6);
        final List<MemberValue> members = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            members.add(new MemberValue("member-" + i + "-" + text(random, 10),
                random.nextBoolean() ? null : "instance-" + text(random, 8), text(random, 12), "/127.0.0." + i,
                random.nextInt(1, 600_000), random.nextInt(1, 600_000), blob(random, 60), blob(random, 60)));
        }
        final boolean empty = count == 0 && random.nextBoolean();
        return new GroupValue(random.nextBoolean() ? "consumer" : text(random, 10), random.nextInt(0, 1_000),
            empty ? null : "range", empty || count == 0 ? null : members.get(0).memberId(),
            random.nextLong(-1, 4_000_000_000_000L), members);
    }

    // ------------------------------------------------------------------------------------------ Kafka's view

    private static OffsetCommitValue kafkaValue(final OffsetValue v) {
        return new OffsetCommitValue().setOffset(v.offset()).setLeaderEpoch(v.leaderEpoch()).setMetadata(v.metadata())
            .setCommitTimestamp(v.commitTimestamp()).setExpireTimestamp(v.expireTimestamp())
            .setTopicId(v.topicId() == null ? Uuid.ZERO_UUID
                : new Uuid(v.topicId().mostSignificantBits(), v.topicId().leastSignificantBits()));
    }

    private static GroupMetadataValue kafkaValue(final GroupValue v) {
        final List<GroupMetadataValue.MemberMetadata> members = new ArrayList<>();
        for (final MemberValue m : v.members()) {
            members.add(new GroupMetadataValue.MemberMetadata().setMemberId(m.memberId())
                .setGroupInstanceId(m.groupInstanceId()).setClientId(m.clientId()).setClientHost(m.clientHost())
                .setRebalanceTimeout(m.rebalanceTimeout()).setSessionTimeout(m.sessionTimeout())
                .setSubscription(m.subscription()).setAssignment(m.assignment()));
        }
        return new GroupMetadataValue().setProtocolType(v.protocolType()).setGeneration(v.generation())
            .setProtocol(v.protocol()).setLeader(v.leader()).setCurrentStateTimestamp(v.currentStateTimestamp())
            .setMembers(members);
    }

    private static void assertSame(final GroupValue ours, final GroupMetadataValue theirs, final short version,
                                   final String at) {
        assertEquals(ours.protocolType(), theirs.protocolType(), at);
        assertEquals(ours.generation(), theirs.generation(), at);
        assertEquals(ours.protocol(), theirs.protocol(), at);
        assertEquals(ours.leader(), theirs.leader(), at);
        assertEquals(version >= 2 ? ours.currentStateTimestamp() : -1, theirs.currentStateTimestamp(), at);
        assertEquals(ours.members().size(), theirs.members().size(), at);
        for (int i = 0; i < ours.members().size(); i++) {
            final MemberValue m = ours.members().get(i);
            final GroupMetadataValue.MemberMetadata k = theirs.members().get(i);
            assertEquals(m.memberId(), k.memberId(), at);
            assertEquals(version >= 3 ? m.groupInstanceId() : null, k.groupInstanceId(), at);
            assertEquals(m.clientId(), k.clientId(), at);
            assertEquals(m.clientHost(), k.clientHost(), at);
            assertEquals(version >= 1 ? m.rebalanceTimeout() : -1, k.rebalanceTimeout(), at);
            assertEquals(m.sessionTimeout(), k.sessionTimeout(), at);
            assertArrayEquals(m.subscription(), k.subscription(), at);
            assertArrayEquals(m.assignment(), k.assignment(), at);
        }
    }

    // ------------------------------------------------------------------------------------------ tests

    @Test
    void offsetCommitsAreKafkasBytesAndKafkaReadsThemBack() {
        final SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < CASES; i++) {
            final OffsetKey key = new OffsetKey("group-" + text(random, 20), "topic-" + text(random, 20),
                random.nextInt(0, 10_000));
            final OffsetValue value = offsetValue(random);
            final String at = "case " + i + ": " + key + " " + value;
            final short version = value.expireTimestamp() >= 0 ? (short) 1 : (short) 4;
            final CoordinatorRecord theirs = CoordinatorRecord.record(new OffsetCommitKey().setGroup(key.group())
                .setTopic(key.topic()).setPartition(key.partition()), new ApiMessageAndVersion(kafkaValue(value),
                version));
            final byte[] keyBytes = GroupRecords.encode(key);
            final byte[] valueBytes = GroupRecords.encode(value);
            assertArrayEquals(kafka.serializeKey(theirs), keyBytes, at);
            assertArrayEquals(kafka.serializeValue(theirs), valueBytes, at);
            assertEquals(theirs, kafka.deserialize(ByteBuffer.wrap(keyBytes), ByteBuffer.wrap(valueBytes)), at);
            assertEquals(key, GroupRecords.decodeKey(ByteBuffer.wrap(keyBytes)), at);
            assertEquals(value, GroupRecords.decodeOffsetValue(ByteBuffer.wrap(valueBytes)), at);
        }
    }

    @Test
    void offsetCommitsKafkaWroteAtEveryVersionAreRead() {
        final SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < CASES; i++) {
            final OffsetValue value = offsetValue(random);
            for (short version = 0; version <= 4; version++) {
                final String at = "case " + i + " v" + version + ": " + value;
                final CoordinatorRecord theirs = CoordinatorRecord.record(new OffsetCommitKey().setGroup("g")
                    .setTopic("t").setPartition(i), new ApiMessageAndVersion(kafkaValue(value), version));
                final OffsetValue read = GroupRecords.decodeOffsetValue(ByteBuffer.wrap(kafka.serializeValue(theirs)));
                assertEquals(value.offset(), read.offset(), at);
                assertEquals(version >= 3 ? value.leaderEpoch() : -1, read.leaderEpoch(), at);
                assertEquals(value.metadata(), read.metadata(), at);
                assertEquals(value.commitTimestamp(), read.commitTimestamp(), at);
                assertEquals(version == 1 ? value.expireTimestamp() : -1, read.expireTimestamp(), at);
                assertEquals(version >= 4 ? value.topicId() : null, read.topicId(), at);
            }
        }
    }

    @Test
    void groupMetadataIsKafkasBytesAndKafkaReadsItBack() {
        final SplittableRandom random = new SplittableRandom(1234);
        for (int i = 0; i < CASES; i++) {
            final GroupKey key = new GroupKey("group-" + text(random, 30));
            final GroupValue value = groupValue(random);
            final String at = "case " + i + ": " + value;
            final CoordinatorRecord theirs = CoordinatorRecord.record(new GroupMetadataKey().setGroup(key.group()),
                new ApiMessageAndVersion(kafkaValue(value), GroupRecords.GROUP_METADATA_VALUE_VERSION));
            final byte[] keyBytes = GroupRecords.encode(key);
            final byte[] valueBytes = GroupRecords.encode(value);
            assertArrayEquals(kafka.serializeKey(theirs), keyBytes, at);
            assertArrayEquals(kafka.serializeValue(theirs), valueBytes, at);
            assertEquals(theirs, kafka.deserialize(ByteBuffer.wrap(keyBytes), ByteBuffer.wrap(valueBytes)), at);
            assertEquals(key, GroupRecords.decodeKey(ByteBuffer.wrap(keyBytes)), at);
            assertEquals(value, GroupRecords.decodeGroupValue(ByteBuffer.wrap(valueBytes)), at);
        }
    }

    @Test
    void groupMetadataKafkaWroteAtEveryVersionIsRead() {
        final SplittableRandom random = new SplittableRandom(99);
        for (int i = 0; i < CASES / 2; i++) {
            final GroupValue value = groupValue(random);
            for (short version = 0; version <= 4; version++) {
                final String at = "case " + i + " v" + version + ": " + value;
                final CoordinatorRecord theirs = CoordinatorRecord.record(new GroupMetadataKey().setGroup("g"),
                    new ApiMessageAndVersion(kafkaValue(value), version));
                final GroupValue read = GroupRecords.decodeGroupValue(ByteBuffer.wrap(kafka.serializeValue(theirs)));
                // Kafka's reader gives the same fields for what it wrote: compare ours with its.
                final GroupMetadataValue kafkaRead = (GroupMetadataValue) kafka.deserialize(
                    ByteBuffer.wrap(kafka.serializeKey(theirs)), ByteBuffer.wrap(kafka.serializeValue(theirs)))
                    .value().message();
                assertSame(value, kafkaRead, version, at);
                assertEquals(kafkaRead, kafkaValue(read), at + ": ours read every field as Kafka's reader does");
            }
        }
    }

    @Test
    void keysOfOtherGroupKindsAreNamedForTheLoaderToSkip() {
        final CoordinatorRecord consumerGroup = CoordinatorRecord.record(new ConsumerGroupMetadataKey().setGroupId("g"),
            new ApiMessageAndVersion(new ConsumerGroupMetadataValue().setEpoch(3), (short) 0));
        final GroupRecords.Key key = GroupRecords.decodeKey(ByteBuffer.wrap(kafka.serializeKey(consumerGroup)));
        assertEquals(new OtherKey((short) 3), key);
        assertNull(key.group());
        final byte[] legacy = GroupRecords.encode(new OffsetKey("g", "t", 5));
        legacy[1] = 0; // the old offset-commit key type, same fields
        assertEquals(new OffsetKey("g", "t", 5), GroupRecords.decodeKey(ByteBuffer.wrap(legacy)));
    }

    @Test
    void everyTruncationIsRefusedWithItsFieldAndPosition() {
        final SplittableRandom random = new SplittableRandom(5);
        final List<byte[]> offsets = List.of(GroupRecords.encode(offsetValue(random)),
            GroupRecords.encode(new OffsetValue(9, 2, "meta", 77, -1, new TopicId(1, 2))));
        for (final byte[] whole : offsets) {
            for (int cut = 0; cut < whole.length; cut++) {
                final int length = cut;
                final MalformedGroupRecordException e = assertThrows(MalformedGroupRecordException.class,
                    () -> GroupRecords.decodeOffsetValue(ByteBuffer.wrap(whole, 0, length)), "cut at " + cut);
                assertTrue(e.position() <= cut, e.getMessage());
                assertTrue(e.getMessage().contains(e.field()), e.getMessage());
            }
        }
        final byte[] group = GroupRecords.encode(groupValue(new SplittableRandom(3)));
        for (int cut = 0; cut < group.length; cut++) {
            final int length = cut;
            assertThrows(MalformedGroupRecordException.class,
                () -> GroupRecords.decodeGroupValue(ByteBuffer.wrap(group, 0, length)), "cut at " + cut);
        }
        final byte[] key = GroupRecords.encode(new OffsetKey("group", "topic", 3));
        for (int cut = 0; cut < key.length; cut++) {
            final int length = cut;
            assertThrows(MalformedGroupRecordException.class,
                () -> GroupRecords.decodeKey(ByteBuffer.wrap(key, 0, length)), "cut at " + cut);
        }
    }

    @Test
    void lengthsAndCountsAreNeverTrustedForAnAllocation() {
        // A group of "two billion members" in 30 bytes: refused by the bytes left, not by running out of memory.
        final byte[] huge = GroupRecords.encode(new GroupValue("consumer", 1, null, null, -1, List.of()));
        final ByteBuffer patched = ByteBuffer.wrap(huge);
        patched.putInt(huge.length - Integer.BYTES, Integer.MAX_VALUE);
        final MalformedGroupRecordException e = assertThrows(MalformedGroupRecordException.class,
            () -> GroupRecords.decodeGroupValue(ByteBuffer.wrap(huge)));
        assertEquals("members", e.field(), e.getMessage());
        // A subscription claiming 2 GiB.
        final byte[] member = GroupRecords.encode(new GroupValue("consumer", 1, "range", "m", -1,
            List.of(new MemberValue("m", null, "c", "h", 1, 1, new byte[3], new byte[0]))));
        final int at = member.length - 2 * Integer.BYTES - 3;
        ByteBuffer.wrap(member).putInt(at, Integer.MAX_VALUE);
        final MalformedGroupRecordException big = assertThrows(MalformedGroupRecordException.class,
            () -> GroupRecords.decodeGroupValue(ByteBuffer.wrap(member)));
        assertEquals("members[0].subscription", big.field(), big.getMessage());
        // A version from the future, a negative type, bytes left over.
        final byte[] future = GroupRecords.encode(new OffsetValue(1, -1, "", 1, -1, null));
        future[1] = 9;
        assertEquals("version", assertThrows(MalformedGroupRecordException.class,
            () -> GroupRecords.decodeOffsetValue(ByteBuffer.wrap(future))).field());
        assertEquals("type", assertThrows(MalformedGroupRecordException.class,
            () -> GroupRecords.decodeKey(ByteBuffer.wrap(new byte[] {(byte) 0x80, 0}))).field());
        final byte[] key = GroupRecords.encode(new GroupKey("g"));
        final byte[] longer = java.util.Arrays.copyOf(key, key.length + 1);
        assertEquals("end", assertThrows(MalformedGroupRecordException.class,
            () -> GroupRecords.decodeKey(ByteBuffer.wrap(longer))).field());
    }

    @Test
    void seededBitFlipsAreReadOrRefusedNeverAnotherException() {
        final SplittableRandom random = new SplittableRandom(2026);
        int refused = 0;
        for (int i = 0; i < CASES; i++) {
            final boolean group = random.nextBoolean();
            final byte[] bytes = group ? GroupRecords.encode(groupValue(random))
                : GroupRecords.encode(offsetValue(random));
            final int bit = random.nextInt(bytes.length * 8);
            bytes[bit / 8] ^= (byte) (1 << (bit % 8));
            try {
                if (group) {
                    GroupRecords.decodeGroupValue(ByteBuffer.wrap(bytes));
                } else {
                    GroupRecords.decodeOffsetValue(ByteBuffer.wrap(bytes));
                }
            } catch (final MalformedGroupRecordException e) {
                refused++;
            } catch (final RuntimeException e) {
                fail("case " + i + ": bit " + bit + " flipped gave " + e, e);
            }
        }
        assertTrue(refused > 0, "some flips make a record malformed");
    }

    @Test
    void aReadLeavesTheCallersBufferWhereItWas() {
        final ByteBuffer value = ByteBuffer.wrap(GroupRecords.encode(new OffsetValue(5, 1, "m", 2, -1, null)));
        final OffsetValue read = GroupRecords.decodeOffsetValue(value);
        assertEquals(0, value.position());
        assertEquals(5, read.offset());
        assertInstanceOf(GroupKey.class, GroupRecords.decodeKey(ByteBuffer.wrap(GroupRecords.encode(
            new GroupKey("g")))));
    }
}
