package io.seglog.replication.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.transport.ControlRequest;
import io.seglog.replication.transport.ControlRequestRefusedException;
import io.seglog.replication.transport.ControlResponse;
import io.seglog.replication.transport.LeaderAndIsrRequest;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.NotControllerException;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.replication.transport.StaleBrokerEpochException;
import io.seglog.replication.transport.StaleControllerEpochException;
import io.seglog.replication.transport.StaleLeaderEpochException;
import io.seglog.replication.transport.StopReplicaRequest;
import io.seglog.replication.transport.UpdateMetadataRequest;
import io.seglog.storage.TopicId;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Seglog's control-message codec: every message type round-trips (empty, large, racks present and absent, leaders
 * -1 and -2, every refusal class); golden bodies with annotated hex dumps pin the version 0 layout byte by byte; and
 * every malformation the integrity policy names is refused with {@link MalformedControlMessageException} naming the
 * field and position (truncation at every offset, huge counts, bad lengths, bad topics, out-of-range ids, ports and
 * booleans, unsorted or repeated entries, unknown codes, keys and versions, trailing bytes).
 */
class ControlCodecTest {
    private static final short V0 = ControlCodec.FIRST_VERSION;

    // ------------------------------------------------------------------------------------------------ fixtures

    static TopicPartition tp(final String topic, final int partition) {
        return new TopicPartition(topic, partition);
    }

    static PartitionStateInfo state(final int controllerEpoch, final int leader, final int leaderEpoch,
                                    final int partitionEpoch, final List<Integer> isr, final List<Integer> replicas,
                                    final boolean isNew) {
        return new PartitionStateInfo(controllerEpoch, new LeaderAndIsr(leader, leaderEpoch, isr, partitionEpoch),
            replicas, isNew);
    }

    static LiveBroker broker(final int id, final long epoch, final String host, final int port, final String rack) {
        return new LiveBroker(id, epoch, host, port, Optional.ofNullable(rack));
    }

    /** The bytes from a buffer's position to its limit, leaving it as it was. */
    static byte[] bytes(final ByteBuffer buffer) {
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    /** Bytes from hex strings (one per field in the goldens); spaces are ignored. */
    static byte[] hex(final String... fields) {
        return HexFormat.of().parseHex(String.join("", fields).replace(" ", ""));
    }

    /** A copy of {@code bytes} with {@code value} written big-endian at {@code offset} in {@code width} bytes. */
    static byte[] patch(final byte[] bytes, final int offset, final int width, final long value) {
        final byte[] copy = bytes.clone();
        for (int i = 0; i < width; i++) {
            copy[offset + i] = (byte) (value >>> (8 * (width - 1 - i)));
        }
        return copy;
    }

    static void assertSameRefusal(final Throwable expected, final Throwable actual) {
        assertSame(expected.getClass(), actual.getClass(), "class");
        assertEquals(expected.getMessage(), actual.getMessage(), "message");
        if (expected instanceof ControlRequestRefusedException e) {
            final ControlRequestRefusedException a = (ControlRequestRefusedException) actual;
            assertEquals(e.requestEpoch(), a.requestEpoch(), "requestEpoch");
            assertEquals(e.currentEpoch(), a.currentEpoch(), "currentEpoch");
            assertEquals(e.reason(), a.reason(), "reason");
        } else {
            assertEquals(((NotControllerException) expected).brokerId(), ((NotControllerException) actual).brokerId());
        }
    }

    static void assertSameResponse(final ControlResponse expected, final ControlResponse actual) {
        assertEquals(expected.partitionErrors().keySet(), actual.partitionErrors().keySet(), "refused partitions");
        expected.partitionErrors().forEach((tp, e) -> assertSameRefusal(e, actual.partitionErrors().get(tp)));
    }

    static ControlRequest roundTrip(final ControlRequest request) {
        final ByteBuffer body = ControlCodec.encodeRequest(request, V0);
        assertEquals(0, body.position(), "flipped");
        assertEquals(body.capacity(), body.limit(), "sized exactly");
        final ControlRequest decoded = ControlCodec.decodeRequest(ControlCodec.apiKey(request), V0, body);
        assertEquals(request, decoded);
        assertArrayEquals(bytes(body), bytes(ControlCodec.encodeRequest(decoded, V0)), "re-encodes to the same bytes");
        return decoded;
    }

    static MalformedControlMessageException malformedRequest(final short key, final byte[] body) {
        return assertThrows(MalformedControlMessageException.class,
            () -> ControlCodec.decodeRequest(key, V0, ByteBuffer.wrap(body)));
    }

    static void assertMalformed(final MalformedControlMessageException e, final String field, final int position) {
        assertEquals(field, e.field(), e.getMessage());
        assertEquals(position, e.position(), e.getMessage());
        assertTrue(e.getMessage().contains(e.messageType()) && e.getMessage().contains(field)
            && e.getMessage().contains(e.found()), e.getMessage());
    }

    static LeaderAndIsrRequest goldenLeaderAndIsr() {
        return new LeaderAndIsrRequest(1, 5, 0x100,
            Map.of(tp("t", 0), state(5, 2, 3, 4, List.of(2, 1), List.of(1, 2), true)),
            Map.of(2, broker(2, 0x200, "h", 9092, "r")));
    }

    /** {@link #goldenLeaderAndIsr()}, 94 bytes. */
    static final byte[] LEADER_AND_ISR_BYTES = hex(
        "00000001",          //  0 controllerId = 1
        "00000005",          //  4 controllerEpoch = 5
        "0000000000000100",  //  8 brokerEpoch = 256
        "00000001",          // 16 partition count = 1
        "0001 74",           // 20 topic: length 1, "t"
        "00000000",          // 23 partition = 0
        "00000005",          // 27 controllerEpoch (of the decision) = 5
        "00000002",          // 31 leader = 2
        "00000003",          // 35 leaderEpoch = 3
        "00000004",          // 39 partitionEpoch = 4
        "01",                // 43 isNew = true
        "00000002",          // 44 isr count = 2
        "00000002 00000001", // 48 isr = [2, 1] (order kept)
        "00000002",          // 56 replica count = 2
        "00000001 00000002", // 60 replicas = [1, 2]
        "00000001",          // 68 live leader count = 1
        "00000002",          // 72 id = 2
        "0000000000000200",  // 76 epoch = 512
        "0001 68",           // 84 host: length 1, "h"
        "00002384",          // 87 port = 9092
        "0001 72");          // 91 rack: length 1, "r"; 94 = end

    static UpdateMetadataRequest goldenUpdateMetadata() {
        return new UpdateMetadataRequest(1, 5, 0x100,
            Map.of(2, broker(2, 0x200, "b", 9093, "r"), 1, broker(1, 0x100, "a", 9092, null)),
            Map.of(tp("t", 0), state(5, LeaderAndIsr.NO_LEADER, 0, 0, List.of(), List.of(1), false)));
    }

    /** {@link #goldenUpdateMetadata()}, 103 bytes. */
    static final byte[] UPDATE_METADATA_BYTES = hex(
        "00000001",          //  0 controllerId = 1
        "00000005",          //  4 controllerEpoch = 5
        "0000000000000100",  //  8 brokerEpoch = 256
        "00000002",          // 16 live broker count = 2, ascending ids
        "00000001",          // 20 id = 1
        "0000000000000100",  // 24 epoch = 256
        "0001 61",           // 32 host "a"
        "00002384",          // 35 port = 9092
        "ffff",              // 39 rack = null (no rack)
        "00000002",          // 41 id = 2
        "0000000000000200",  // 45 epoch = 512
        "0001 62",           // 53 host "b"
        "00002385",          // 56 port = 9093
        "0001 72",           // 60 rack "r"
        "00000001",          // 63 partition count = 1
        "0001 74",           // 67 topic "t"
        "00000000",          // 70 partition = 0
        "00000005",          // 74 controllerEpoch = 5
        "ffffffff",          // 78 leader = -1 (NO_LEADER)
        "00000000",          // 82 leaderEpoch = 0
        "00000000",          // 86 partitionEpoch = 0
        "00",                // 90 isNew = false
        "00000000",          // 91 isr count = 0
        "00000001",          // 95 replica count = 1
        "00000001");         // 99 replicas = [1]; 103 = end

    static StopReplicaRequest goldenStopReplica() {
        return new StopReplicaRequest(1, 5, 0x100, Set.of(tp("b", 1), tp("a", 2), tp("a", 0)), true);
    }

    /** {@link #goldenStopReplica()}, 42 bytes: the set is written in (topic, partition) order. */
    static final byte[] STOP_REPLICA_BYTES = hex(
        "00000001",          //  0 controllerId = 1
        "00000005",          //  4 controllerEpoch = 5
        "0000000000000100",  //  8 brokerEpoch = 256
        "01",                // 16 delete = true
        "00000003",          // 17 partition count = 3
        "0001 61 00000000",  // 21 a-0
        "0001 61 00000002",  // 28 a-2
        "0001 62 00000001"); // 35 b-1; 42 = end

    /** ControlledShutdown of broker 3 at epoch 0x0102030405060708, 12 bytes. */
    static final byte[] CONTROLLED_SHUTDOWN_BYTES = hex(
        "00000003",          //  0 brokerId = 3
        "0102030405060708"); //  4 brokerEpoch; 12 = end

    static ControlResponse goldenResponse() {
        return new ControlResponse(Map.of(tp("t", 0), new StaleLeaderEpochException("no", 3, 4)));
    }

    /** {@link #goldenResponse()}, 35 bytes. */
    static final byte[] RESPONSE_BYTES = hex(
        "0000",              //  0 errorCode = 0: accepted
        "00000001",          //  2 partition error count = 1
        "0001 74 00000000",  //  6 t-0
        "004a",              // 13 errorCode = 74 (FENCED_LEADER_EPOCH: StaleLeaderEpochException)
        "0000000000000003",  // 15 requestEpoch = 3
        "0000000000000004",  // 23 currentEpoch = 4
        "0002 6e6f");        // 31 reason "no"; 35 = end

    /** A whole refusal: StaleControllerEpochException(null, 4, 5), 20 bytes. */
    static final byte[] REFUSAL_BYTES = hex(
        "000b",              //  0 errorCode = 11 (STALE_CONTROLLER_EPOCH)
        "0000000000000004",  //  2 requestEpoch = 4
        "0000000000000005",  // 10 currentEpoch = 5
        "ffff");             // 18 reason = null; 20 = end

    /** The controller's answer that broker 3 still leads t-1, 13 bytes. */
    static final byte[] SHUTDOWN_RESPONSE_BYTES = hex(
        "0000",              //  0 errorCode = 0
        "00000001",          //  2 count = 1
        "0001 74 00000001"); //  6 t-1; 13 = end

    /** NotControllerException(7), 6 bytes. */
    static final byte[] NOT_CONTROLLER_BYTES = hex(
        "0029",              //  0 errorCode = 41 (NOT_CONTROLLER)
        "00000007");         //  2 brokerId = 7; 6 = end

    // ------------------------------------------------------------------------------------------------ golden

    /** {@link #goldenLeaderAndIsr()} with topic id {@code AAAAAAAAAAEAAAAAAAAAAg} (1, 2), at version 1: 110 bytes. */
    static final byte[] LEADER_AND_ISR_V1_BYTES = hex(
        "00000001 00000005 0000000000000100", //  0 header as in v0
        "00000001",          // 16 partition count = 1
        "0001 74 00000000",  // 20 topic "t", partition 0
        "00000005 00000002 00000003 00000004 01", // 27 controllerEpoch, leader, leaderEpoch, partitionEpoch, isNew
        "00000002 00000002 00000001", // 44 isr = [2, 1]
        "00000002 00000001 00000002", // 56 replicas = [1, 2]
        "0000000000000001 0000000000000002", // 68 topicId (v1): most then least significant bits
        "00000001 00000002 0000000000000200 0001 68 00002384 0001 72"); // 84 live leader 2 as in v0; 110 = end

    @Test
    void leaderAndIsrV1CarriesTheTopicIdAndV0IsStillRead() {
        final TopicId id = new TopicId(1, 2);
        final LeaderAndIsrRequest v0 = goldenLeaderAndIsr();
        final LeaderAndIsrRequest withId = new LeaderAndIsrRequest(1, 5, 0x100, Map.of(tp("t", 0),
            withTopicId(v0.partitions().get(tp("t", 0)), id)), v0.liveLeaders());
        assertEquals("AAAAAAAAAAEAAAAAAAAAAg", id.toString());
        assertEquals(ControlCodec.TOPIC_ID_VERSION, ControlCodec.latestVersion(ControlCodec.LEADER_AND_ISR_KEY));
        assertEquals(ControlCodec.TOPIC_ID_VERSION, ControlCodec.latestVersion(ControlCodec.UPDATE_METADATA_KEY));
        assertEquals(V0, ControlCodec.latestVersion(ControlCodec.STOP_REPLICA_KEY));
        assertArrayEquals(LEADER_AND_ISR_V1_BYTES, bytes(ControlCodec.encodeRequest(withId)));
        assertEquals(withId, ControlCodec.decodeRequest(ControlCodec.LEADER_AND_ISR_KEY, ControlCodec.TOPIC_ID_VERSION,
            ByteBuffer.wrap(LEADER_AND_ISR_V1_BYTES)));
        // Version 0 leaves the id out; a v0 body (an older controller's) reads with no id.
        assertArrayEquals(LEADER_AND_ISR_BYTES, bytes(ControlCodec.encodeRequest(withId, V0)));
        assertEquals(TopicId.ZERO, ((LeaderAndIsrRequest) ControlCodec.decodeRequest(ControlCodec.LEADER_AND_ISR_KEY,
            V0, ByteBuffer.wrap(LEADER_AND_ISR_BYTES))).partitions().get(tp("t", 0)).topicId());
        // An UpdateMetadata round-trips its ids at the latest version too.
        final UpdateMetadataRequest um = goldenUpdateMetadata();
        final UpdateMetadataRequest umWithId = new UpdateMetadataRequest(1, 5, 0x100, um.liveBrokers(),
            Map.of(tp("t", 0), withTopicId(um.partitions().get(tp("t", 0)), id)));
        assertEquals(umWithId, ControlCodec.decodeRequest(ControlCodec.UPDATE_METADATA_KEY,
            ControlCodec.TOPIC_ID_VERSION, ControlCodec.encodeRequest(umWithId)));
        assertThrows(IllegalArgumentException.class, () -> ControlCodec.encodeRequest(withId, (short) 2));
    }

    @Test
    void partitionsOfOneTopicMustCarryOneTopicId() {
        final PartitionStateInfo base = goldenLeaderAndIsr().partitions().get(tp("t", 0));
        final LeaderAndIsrRequest mixed = new LeaderAndIsrRequest(1, 5, 0x100, Map.of(
            tp("t", 0), withTopicId(base, new TopicId(1, 2)), tp("t", 1), withTopicId(base, new TopicId(1, 3))),
            Map.of());
        assertThrows(IllegalArgumentException.class, () -> ControlCodec.encodeRequest(mixed));
        // The same bytes built by hand (the second partition's id changed) are refused by the decoder.
        final LeaderAndIsrRequest same = new LeaderAndIsrRequest(1, 5, 0x100, Map.of(
            tp("t", 0), withTopicId(base, new TopicId(1, 2)), tp("t", 1), withTopicId(base, new TopicId(1, 2))),
            Map.of());
        final byte[] body = bytes(ControlCodec.encodeRequest(same));
        body[body.length - 5] = 3; // the last byte of the second partition's topic id, before the empty brokers array
        final MalformedControlMessageException e = assertThrows(MalformedControlMessageException.class,
            () -> ControlCodec.decodeRequest(ControlCodec.LEADER_AND_ISR_KEY, ControlCodec.TOPIC_ID_VERSION,
                ByteBuffer.wrap(body)));
        assertTrue(e.getMessage().contains("topicId") && e.getMessage().contains("one topic id"), e.getMessage());
    }

    private static PartitionStateInfo withTopicId(final PartitionStateInfo s, final TopicId id) {
        return new PartitionStateInfo(s.controllerEpoch(), s.leaderAndIsr(), s.replicas(), s.isNew(), id);
    }

    @Test
    void leaderAndIsrGoldenBytes() {
        assertArrayEquals(LEADER_AND_ISR_BYTES, bytes(ControlCodec.encodeRequest(goldenLeaderAndIsr(), V0)));
        assertEquals(goldenLeaderAndIsr(), ControlCodec.decodeRequest(ControlCodec.LEADER_AND_ISR_KEY, V0,
            ByteBuffer.wrap(LEADER_AND_ISR_BYTES)));
    }

    @Test
    void updateMetadataGoldenBytes() {
        assertArrayEquals(UPDATE_METADATA_BYTES, bytes(ControlCodec.encodeRequest(goldenUpdateMetadata(), V0)));
        assertEquals(goldenUpdateMetadata(), ControlCodec.decodeRequest(ControlCodec.UPDATE_METADATA_KEY, V0,
            ByteBuffer.wrap(UPDATE_METADATA_BYTES)));
    }

    @Test
    void stopReplicaGoldenBytesAreInPartitionOrder() {
        assertArrayEquals(STOP_REPLICA_BYTES, bytes(ControlCodec.encodeRequest(goldenStopReplica(), V0)));
        assertEquals(goldenStopReplica(), ControlCodec.decodeRequest(ControlCodec.STOP_REPLICA_KEY, V0,
            ByteBuffer.wrap(STOP_REPLICA_BYTES)));
    }

    @Test
    void controlledShutdownGoldenBytes() {
        assertArrayEquals(CONTROLLED_SHUTDOWN_BYTES,
            bytes(ControlCodec.encodeControlledShutdownRequest(3, 0x0102030405060708L)));
        assertEquals(ControlCodec.CONTROLLED_SHUTDOWN_LENGTH, CONTROLLED_SHUTDOWN_BYTES.length);
        assertEquals(new ControlCodec.ControlledShutdown(3, 0x0102030405060708L),
            ControlCodec.decodeControlledShutdownRequest(V0, ByteBuffer.wrap(CONTROLLED_SHUTDOWN_BYTES)));
    }

    @Test
    void responseGoldenBytes() {
        assertArrayEquals(RESPONSE_BYTES, bytes(ControlCodec.encodeResponse(goldenResponse())));
        assertSameResponse(goldenResponse(), ControlCodec.decodeResponse(ControlCodec.LEADER_AND_ISR_KEY, V0,
            ByteBuffer.wrap(RESPONSE_BYTES)));
        final StaleControllerEpochException refusal = new StaleControllerEpochException(null, 4, 5);
        assertArrayEquals(REFUSAL_BYTES, bytes(ControlCodec.encodeRefusal(refusal)));
        assertSameRefusal(refusal, assertThrows(StaleControllerEpochException.class,
            () -> ControlCodec.decodeResponse(ControlCodec.STOP_REPLICA_KEY, V0, ByteBuffer.wrap(REFUSAL_BYTES))));
    }

    @Test
    void controlledShutdownResponseGoldenBytes() {
        assertArrayEquals(SHUTDOWN_RESPONSE_BYTES, bytes(ControlCodec.encodeControlledShutdownResponse(
            Set.of(tp("t", 1)))));
        assertEquals(Set.of(tp("t", 1)),
            ControlCodec.decodeControlledShutdownResponse(V0, ByteBuffer.wrap(SHUTDOWN_RESPONSE_BYTES)));
        assertArrayEquals(NOT_CONTROLLER_BYTES, bytes(ControlCodec.encodeControlledShutdownRefusal(
            new NotControllerException(7))));
        final NotControllerException e = assertThrows(NotControllerException.class,
            () -> ControlCodec.decodeControlledShutdownResponse(V0, ByteBuffer.wrap(NOT_CONTROLLER_BYTES)));
        assertEquals(7, e.brokerId());
        assertEquals("broker.id=7 is not the active controller", e.getMessage());
    }

    @Test
    void errorCodesAreKafkasNumbersForTheSameConditions() {
        // Test scope only: the main code defines the numbers itself (it uses no kafka-clients class but the accessors).
        assertEquals(Errors.NONE.code(), ControlCodec.NONE);
        assertEquals(Errors.STALE_CONTROLLER_EPOCH.code(), ControlCodec.STALE_CONTROLLER_EPOCH);
        assertEquals(Errors.NOT_CONTROLLER.code(), ControlCodec.NOT_CONTROLLER);
        assertEquals(Errors.FENCED_LEADER_EPOCH.code(), ControlCodec.FENCED_LEADER_EPOCH);
        assertEquals(Errors.STALE_BROKER_EPOCH.code(), ControlCodec.STALE_BROKER_EPOCH);
    }

    // ------------------------------------------------------------------------------------------------ round trips

    @Test
    void apiKeysNameTheRequestTypes() {
        assertEquals(16_400, ControlCodec.apiKey(goldenLeaderAndIsr()));
        assertEquals(16_401, ControlCodec.apiKey(goldenUpdateMetadata()));
        assertEquals(16_402, ControlCodec.apiKey(goldenStopReplica()));
        assertTrue(ControlCodec.CONTROLLED_SHUTDOWN_KEY >= SeglogApi.MIN_KEY);
    }

    @Test
    void leaderAndIsrRoundTripsWithEveryLeaderKindAndRacksPresentAndAbsent() {
        roundTrip(new LeaderAndIsrRequest(3, Integer.MAX_VALUE, Long.MIN_VALUE, Map.of(
            tp("orders", 0), state(7, 1, 10, 3, List.of(1, 2, 3), List.of(1, 2, 3), false),
            tp("orders", 1), state(7, LeaderAndIsr.NO_LEADER, 11, 0, List.of(), List.of(2, 3), true),
            tp("gone", 4), state(6, LeaderAndIsr.LEADER_DURING_DELETE, 0, Integer.MAX_VALUE, List.of(3), List.of(3),
                false)),
            Map.of(1, broker(1, -1, "host-1.example", 0, "rack-a"), 7, broker(7, Long.MAX_VALUE, "::1", 65_535, null))));
    }

    @Test
    void updateMetadataRoundTripsWithUnicodeHostsAndEmptyRack() {
        roundTrip(new UpdateMetadataRequest(0, 0, 0, Map.of(
            0, broker(0, 1, "", 9092, ""),
            5, broker(5, 2, "höst-\uD83D\uDE00", 9093, "räck")),
            Map.of(tp("a", 0), state(0, 0, 0, 0, List.of(0), List.of(0, 5), false))));
    }

    @Test
    void stopReplicaRoundTripsWithAndWithoutDelete() {
        roundTrip(new StopReplicaRequest(2, 9, 77, Set.of(tp("x", 0), tp("x", 10), tp("x.y", 2)), false));
        roundTrip(new StopReplicaRequest(2, 9, 77, Set.of(tp("x", 0)), true));
    }

    @Test
    void emptyMessagesRoundTrip() {
        roundTrip(new LeaderAndIsrRequest(0, 0, 0, Map.of(), Map.of()));
        roundTrip(new UpdateMetadataRequest(0, 0, 0, Map.of(), Map.of()));
        final StopReplicaRequest stop = new StopReplicaRequest(0, 0, 0, Set.of(), false);
        roundTrip(stop);
        assertEquals(ControlCodec.REQUEST_HEADER_LENGTH + 1 + 4, ControlCodec.encodeRequest(stop, V0).remaining());
        assertSameResponse(ControlResponse.ok(), ControlCodec.decodeResponse(ControlCodec.UPDATE_METADATA_KEY, V0,
            ControlCodec.encodeResponse(ControlResponse.ok())));
        assertEquals(Set.of(), ControlCodec.decodeControlledShutdownResponse(V0,
            ControlCodec.encodeControlledShutdownResponse(Set.of())));
    }

    @Test
    void manyPartitionsRoundTripAndAreSizedExactly() {
        final Map<TopicPartition, PartitionStateInfo> states = new HashMap<>();
        final Map<TopicPartition, ControlRequestRefusedException> errors = new HashMap<>();
        final Set<TopicPartition> partitions = new HashSet<>();
        final String longTopic = "t".repeat(TopicPartition.MAX_TOPIC_LENGTH);
        for (int i = 0; i < 5_000; i++) {
            final TopicPartition tp = tp(i % 2 == 0 ? "topic-" + (i % 97) : longTopic, i);
            states.put(tp, state(4, i % 5, i, i / 2, List.of(i % 5, 5 + i % 3), List.of(i % 5, 5 + i % 3, 9), i % 7 == 0));
            errors.put(tp, new StaleLeaderEpochException("refused " + tp, i, i + 1));
            partitions.add(tp);
        }
        final Map<Integer, LiveBroker> brokers = new HashMap<>();
        for (int id = 0; id < 300; id++) {
            brokers.put(id, broker(id, id * 1000L, "broker-" + id, 9000 + id, id % 2 == 0 ? "r" + id % 3 : null));
        }
        final ByteBuffer lai = ControlCodec.encodeRequest(roundTrip(new LeaderAndIsrRequest(1, 2, 3, states, brokers)), V0);
        assertTrue(lai.remaining() > 5_000 * ControlCodec.MIN_PARTITION_STATE_LENGTH, "size=" + lai.remaining());
        roundTrip(new UpdateMetadataRequest(1, 2, 3, brokers, states));
        roundTrip(new StopReplicaRequest(1, 2, 3, partitions, true));
        final ControlResponse response = new ControlResponse(errors);
        final ByteBuffer body = ControlCodec.encodeResponse(response);
        assertEquals(body.capacity(), body.remaining());
        assertSameResponse(response, ControlCodec.decodeResponse(ControlCodec.LEADER_AND_ISR_KEY, V0, body));
        assertEquals(partitions, ControlCodec.decodeControlledShutdownResponse(V0,
            ControlCodec.encodeControlledShutdownResponse(partitions)));
    }

    @Test
    void acceptedResponsesCarryEveryRefusalClassPerPartition() {
        final ControlResponse response = new ControlResponse(Map.of(
            tp("a", 0), new StaleLeaderEpochException("broker.id=1 refuses a-0 leader=2", 5, 6),
            tp("a", 1), new StaleControllerEpochException("per partition", 1, 2),
            tp("b", 0), new StaleBrokerEpochException(null, -1, Long.MAX_VALUE),
            tp("c", 0), new StaleLeaderEpochException("ünïcode \uD83D\uDE00", 0, 0)));
        for (final short key : new short[] {ControlCodec.LEADER_AND_ISR_KEY, ControlCodec.UPDATE_METADATA_KEY,
            ControlCodec.STOP_REPLICA_KEY}) {
            final ControlResponse decoded = ControlCodec.decodeResponse(key, V0, ControlCodec.encodeResponse(response));
            assertSameResponse(response, decoded);
            assertEquals("null (request epoch=-1, current epoch=" + Long.MAX_VALUE + ")",
                decoded.partitionErrors().get(tp("b", 0)).getMessage(), "the epochs are not appended twice");
        }
    }

    @Test
    void wholeRefusalsAreThrownWithTheSameClassEpochsAndMessage() {
        final List<ControlRequestRefusedException> refusals = List.of(
            new StaleControllerEpochException("broker.id=2 refuses LeaderAndIsrRequest from controller.id=1", 3, 4),
            new StaleBrokerEpochException("broker.id=2 refuses StopReplicaRequest meant for another broker epoch",
                100, 200));
        for (final ControlRequestRefusedException refusal : refusals) {
            final ByteBuffer body = ControlCodec.encodeRefusal(refusal);
            final ControlRequestRefusedException decoded = assertThrows(ControlRequestRefusedException.class,
                () -> ControlCodec.decodeResponse(ControlCodec.UPDATE_METADATA_KEY, V0, body));
            assertSameRefusal(refusal, decoded);
            assertEquals(refusal.getMessage(), decoded.getMessage());
            assertEquals(0, body.position(), "the caller's buffer is not moved");
        }
    }

    @Test
    void controlledShutdownRoundTripsEveryOutcome() {
        assertEquals(new ControlCodec.ControlledShutdown(0, -1), ControlCodec.decodeControlledShutdownRequest(V0,
            ControlCodec.encodeControlledShutdownRequest(0, -1)));
        final Set<TopicPartition> led = Set.of(tp("a", 3), tp("a", 1), tp("z", 0));
        assertEquals(led, ControlCodec.decodeControlledShutdownResponse(V0,
            ControlCodec.encodeControlledShutdownResponse(led)));
        for (final RuntimeException refusal : List.of(new NotControllerException(0), new NotControllerException(12),
            new StaleBrokerEpochException("controlled shutdown of broker.id=3", 5, 9))) {
            final RuntimeException decoded = assertThrows(RuntimeException.class,
                () -> ControlCodec.decodeControlledShutdownResponse(V0,
                    ControlCodec.encodeControlledShutdownRefusal(refusal)));
            assertSameRefusal(refusal, decoded);
        }
    }

    @Test
    void decodingReadsFromThePositionToTheLimitWhateverTheBufferOrder() {
        final ByteBuffer framed = ByteBuffer.allocate(LEADER_AND_ISR_BYTES.length + 10);
        framed.position(7);
        framed.put(LEADER_AND_ISR_BYTES);
        framed.flip().position(7);
        framed.order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(goldenLeaderAndIsr(), ControlCodec.decodeRequest(ControlCodec.LEADER_AND_ISR_KEY, V0, framed));
        assertEquals(7, framed.position(), "position kept");
        assertEquals(ByteOrder.LITTLE_ENDIAN, framed.order(), "order kept");
        final ByteBuffer direct = ByteBuffer.allocateDirect(STOP_REPLICA_BYTES.length).put(STOP_REPLICA_BYTES).flip();
        assertEquals(goldenStopReplica(), ControlCodec.decodeRequest(ControlCodec.STOP_REPLICA_KEY, V0,
            direct.asReadOnlyBuffer()));
    }

    // ------------------------------------------------------------------------------------------------ encoder refusals

    @Test
    void encodersRefuseWhatTheDecodersWould() {
        assertMessage("controllerId=-1 must be >= 0", () -> ControlCodec.encodeRequest(
            new StopReplicaRequest(-1, 0, 0, Set.of(), false), V0));
        assertMessage("replicas of t-0=[1, 1] holds broker.id=1 twice", () -> ControlCodec.encodeRequest(
            new LeaderAndIsrRequest(0, 0, 0, Map.of(tp("t", 0), state(0, 1, 0, 0, List.of(1), List.of(1, 1), false)),
                Map.of()), V0));
        assertMessage("replicas of t-0=-3 must be >= 0", () -> ControlCodec.encodeRequest(
            new UpdateMetadataRequest(0, 0, 0, Map.of(), Map.of(tp("t", 0), state(0, 1, 0, 0, List.of(1),
                List.of(-3), false))), V0));
        assertMessage("liveBrokers holds broker.id=2 under key=1", () -> ControlCodec.encodeRequest(
            new UpdateMetadataRequest(0, 0, 0, Map.of(1, broker(2, 0, "h", 1, null)), Map.of()), V0));
        assertMessage("host length=32768 bytes exceeds 32767", () -> ControlCodec.encodeRequest(
            new LeaderAndIsrRequest(0, 0, 0, Map.of(), Map.of(1, broker(1, 0, "h".repeat(32_768), 1, null))), V0));
        final IllegalArgumentException lone = assertThrows(IllegalArgumentException.class,
            () -> ControlCodec.encodeRequest(new LeaderAndIsrRequest(0, 0, 0, Map.of(),
                Map.of(1, broker(1, 0, "h", 1, "\uD800"))), V0));
        assertTrue(lone.getMessage().startsWith("rack=") && lone.getMessage().endsWith("is not valid Unicode"),
            lone.getMessage());
        assertMessage("brokerId=-1 must be >= 0", () -> ControlCodec.encodeControlledShutdownRequest(-1, 0));
        assertMessage("brokerId=-2 must be >= 0", () -> ControlCodec.encodeControlledShutdownRefusal(
            new NotControllerException(-2)));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ControlCodec.encodeRefusal(
            new StaleLeaderEpochException("x", 1, 2))).getMessage().contains("cannot refuse a whole message"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ControlCodec.encodeControlledShutdownRefusal(
            new IllegalStateException("x"))).getMessage().contains("cannot refuse a ControlledShutdown"));
        final ControlRequestRefusedException unknown = new ControlRequestRefusedException("other", 1, 2) {
            private static final long serialVersionUID = 1L;
        };
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ControlCodec.encodeResponse(
            new ControlResponse(Map.of(tp("t", 0), unknown)))).getMessage().contains("has no error code"));
    }

    private static void assertMessage(final String message, final Runnable action) {
        assertEquals(message, assertThrows(IllegalArgumentException.class, action::run).getMessage());
    }

    // ------------------------------------------------------------------------------------------------ malformed

    /** Every valid body of the goldens, with its decoder. */
    private static List<Map.Entry<byte[], Function<ByteBuffer, Object>>> validBodies() {
        final List<Map.Entry<byte[], Function<ByteBuffer, Object>>> bodies = new ArrayList<>();
        bodies.add(Map.entry(LEADER_AND_ISR_BYTES, b -> ControlCodec.decodeRequest(ControlCodec.LEADER_AND_ISR_KEY, V0, b)));
        bodies.add(Map.entry(UPDATE_METADATA_BYTES,
            b -> ControlCodec.decodeRequest(ControlCodec.UPDATE_METADATA_KEY, V0, b)));
        bodies.add(Map.entry(STOP_REPLICA_BYTES, b -> ControlCodec.decodeRequest(ControlCodec.STOP_REPLICA_KEY, V0, b)));
        bodies.add(Map.entry(CONTROLLED_SHUTDOWN_BYTES, b -> ControlCodec.decodeControlledShutdownRequest(V0, b)));
        bodies.add(Map.entry(RESPONSE_BYTES, b -> ControlCodec.decodeResponse(ControlCodec.STOP_REPLICA_KEY, V0, b)));
        bodies.add(Map.entry(REFUSAL_BYTES, b -> ControlCodec.decodeResponse(ControlCodec.STOP_REPLICA_KEY, V0, b)));
        bodies.add(Map.entry(bytes(ControlCodec.encodeRefusal(new StaleBrokerEpochException("r", 1, 2))),
            b -> ControlCodec.decodeResponse(ControlCodec.LEADER_AND_ISR_KEY, V0, b)));
        bodies.add(Map.entry(SHUTDOWN_RESPONSE_BYTES, b -> ControlCodec.decodeControlledShutdownResponse(V0, b)));
        bodies.add(Map.entry(NOT_CONTROLLER_BYTES, b -> ControlCodec.decodeControlledShutdownResponse(V0, b)));
        bodies.add(Map.entry(bytes(ControlCodec.encodeControlledShutdownRefusal(new StaleBrokerEpochException("s", 3,
            4))), b -> ControlCodec.decodeControlledShutdownResponse(V0, b)));
        return bodies;
    }

    @Test
    void aBodyTruncatedAtEveryOffsetIsMalformed() {
        int cases = 0;
        for (final Map.Entry<byte[], Function<ByteBuffer, Object>> body : validBodies()) {
            for (int length = 0; length < body.getKey().length; length++) {
                final ByteBuffer truncated = ByteBuffer.wrap(body.getKey(), 0, length);
                try {
                    body.getValue().apply(truncated);
                    fail("decoded " + length + " of " + body.getKey().length + " bytes");
                } catch (final MalformedControlMessageException e) {
                    assertTrue(e.position() >= 0 && e.position() <= length, e.getMessage());
                    cases++;
                }
            }
        }
        assertEquals(94 + 103 + 42 + 12 + 35 + 20 + 21 + 13 + 6 + 21, cases);
    }

    @Test
    void aTrailingByteIsMalformed() {
        for (final Map.Entry<byte[], Function<ByteBuffer, Object>> body : validBodies()) {
            final byte[] longer = Arrays.copyOf(body.getKey(), body.getKey().length + 1);
            final MalformedControlMessageException e = assertThrows(MalformedControlMessageException.class,
                () -> body.getValue().apply(ByteBuffer.wrap(longer)));
            assertMalformed(e, "end of body", body.getKey().length);
        }
    }

    @Test
    void aHugeCountFailsFastNamingTheField() {
        // A 20-byte body whose partition count says 2^31 - 1, and one whose count is 2^31 (negative as an int32).
        for (final long count : new long[] {Integer.MAX_VALUE, 1L << 31, 0xffff_ffffL}) {
            final byte[] body = patch(Arrays.copyOf(LEADER_AND_ISR_BYTES, 20), 16, 4, count);
            assertMalformed(malformedRequest(ControlCodec.LEADER_AND_ISR_KEY, body), "partitions count", 16);
            assertMalformed(malformedRequest(ControlCodec.UPDATE_METADATA_KEY, body), "liveBrokers count", 16);
        }
        assertMalformed(malformedRequest(ControlCodec.LEADER_AND_ISR_KEY, patch(LEADER_AND_ISR_BYTES, 44, 4,
            Integer.MAX_VALUE)), "partitions[0].isr count", 44);
        assertMalformed(malformedRequest(ControlCodec.LEADER_AND_ISR_KEY, patch(LEADER_AND_ISR_BYTES, 56, 4, 9)),
            "partitions[0].replicas count", 56);
        assertMalformed(malformedRequest(ControlCodec.LEADER_AND_ISR_KEY, patch(LEADER_AND_ISR_BYTES, 68, 4, 2)),
            "liveLeaders count", 68);
        assertMalformed(malformedRequest(ControlCodec.STOP_REPLICA_KEY, patch(STOP_REPLICA_BYTES, 17, 4,
            Integer.MAX_VALUE)), "partitions count", 17);
        assertMalformed(assertThrows(MalformedControlMessageException.class, () -> ControlCodec.decodeResponse(
            ControlCodec.LEADER_AND_ISR_KEY, V0, ByteBuffer.wrap(patch(RESPONSE_BYTES, 2, 4, 1L << 31)))),
            "partitionErrors count", 2);
        assertMalformed(assertThrows(MalformedControlMessageException.class, () -> ControlCodec
            .decodeControlledShutdownResponse(V0, ByteBuffer.wrap(patch(SHUTDOWN_RESPONSE_BYTES, 2, 4, 2)))),
            "stillLed count", 2);
    }

    @Test
    void badStringLengthsAreMalformed() {
        // -1 is null, which a topic may not be; other negative lengths are never valid.
        assertMalformed(malformedRequest(ControlCodec.LEADER_AND_ISR_KEY, patch(LEADER_AND_ISR_BYTES, 20, 2, 0xffff)),
            "partitions[0].topic length", 20);
        assertMalformed(malformedRequest(ControlCodec.LEADER_AND_ISR_KEY, patch(LEADER_AND_ISR_BYTES, 20, 2, 0xfffe)),
            "partitions[0].topic length", 20);
        assertMalformed(malformedRequest(ControlCodec.LEADER_AND_ISR_KEY, patch(LEADER_AND_ISR_BYTES, 91, 2, 0x8000)),
            "liveLeaders[0].rack length", 91);
        assertMalformed(malformedRequest(ControlCodec.LEADER_AND_ISR_KEY, patch(LEADER_AND_ISR_BYTES, 84, 2, 0xffff)),
            "liveLeaders[0].host length", 84);
        assertMalformed(malformedRequest(ControlCodec.LEADER_AND_ISR_KEY, patch(LEADER_AND_ISR_BYTES, 84, 2, 0x7fff)),
            "liveLeaders[0].host", 86);
        assertMalformed(assertThrows(MalformedControlMessageException.class, () -> ControlCodec.decodeResponse(
            ControlCodec.LEADER_AND_ISR_KEY, V0, ByteBuffer.wrap(patch(REFUSAL_BYTES, 18, 2, 0xfffb)))),
            "reason length", 18);
    }

    @Test
    void invalidUtf8IsMalformed() {
        // A truncated two-byte sequence in the host, then an encoded surrogate and an overlong NUL as the rack.
        assertMalformed(malformedRequest(ControlCodec.LEADER_AND_ISR_KEY, patch(LEADER_AND_ISR_BYTES, 86, 1, 0xc3)),
            "liveLeaders[0].host", 84);
        final byte[] upToRack = Arrays.copyOf(LEADER_AND_ISR_BYTES, 91);
        for (final String rack : new String[] {"0003 eda080", "0002 c080", "0004 f4908080"}) {
            final byte[] body = ByteBuffer.allocate(91 + hex(rack).length).put(upToRack).put(hex(rack)).array();
            final MalformedControlMessageException e = malformedRequest(ControlCodec.LEADER_AND_ISR_KEY, body);
            assertMalformed(e, "liveLeaders[0].rack", 91);
            assertInstanceOf(CharacterCodingException.class, e.getCause());
        }
    }

    @Test
    void aBadTopicNameIsMalformedWithTheValidationAsCause() {
        final MalformedControlMessageException slash = malformedRequest(ControlCodec.LEADER_AND_ISR_KEY,
            patch(LEADER_AND_ISR_BYTES, 22, 1, '/'));
        assertMalformed(slash, "partitions[0].topic", 20);
        assertInstanceOf(IllegalArgumentException.class, slash.getCause());
        assertTrue(slash.getMessage().contains("illegal character '/'"), slash.getMessage());
        final byte[] dot = patch(STOP_REPLICA_BYTES, 23, 1, '.');
        assertMalformed(malformedRequest(ControlCodec.STOP_REPLICA_KEY, dot), "partitions[0].topic", 21);
        // A shutdown response naming topic "" (one padding byte, so the count's bound of 7 bytes an entry holds).
        final byte[] empty = hex("0000", "00000001", "0000 00000000", "00");
        assertMalformed(assertThrows(MalformedControlMessageException.class,
            () -> ControlCodec.decodeControlledShutdownResponse(V0, ByteBuffer.wrap(empty))), "stillLed[0].topic", 6);
    }

    @Test
    void outOfRangeFieldsAreMalformed() {
        final short lai = ControlCodec.LEADER_AND_ISR_KEY;
        assertMalformed(malformedRequest(lai, patch(LEADER_AND_ISR_BYTES, 0, 4, -1)), "controllerId", 0);
        assertMalformed(malformedRequest(lai, patch(LEADER_AND_ISR_BYTES, 23, 4, -1)), "partitions[0].partition", 23);
        assertMalformed(malformedRequest(lai, patch(LEADER_AND_ISR_BYTES, 31, 4, -3)), "partitions[0].leader", 31);
        assertMalformed(malformedRequest(lai, patch(LEADER_AND_ISR_BYTES, 35, 4, -1)), "partitions[0].leaderEpoch", 35);
        assertMalformed(malformedRequest(lai, patch(LEADER_AND_ISR_BYTES, 39, 4, -1)),
            "partitions[0].partitionEpoch", 39);
        assertMalformed(malformedRequest(lai, patch(LEADER_AND_ISR_BYTES, 43, 1, 2)), "partitions[0].isNew", 43);
        assertMalformed(malformedRequest(lai, patch(LEADER_AND_ISR_BYTES, 52, 4, 2)), "partitions[0].isr[1]", 52);
        assertMalformed(malformedRequest(lai, patch(LEADER_AND_ISR_BYTES, 60, 4, -1)), "partitions[0].replicas[0]", 60);
        assertMalformed(malformedRequest(lai, patch(LEADER_AND_ISR_BYTES, 72, 4, -1)), "liveLeaders[0].id", 72);
        assertMalformed(malformedRequest(lai, patch(LEADER_AND_ISR_BYTES, 87, 4, 65_536)), "liveLeaders[0].port", 87);
        assertMalformed(malformedRequest(lai, patch(LEADER_AND_ISR_BYTES, 87, 4, -1)), "liveLeaders[0].port", 87);
        assertMalformed(malformedRequest(ControlCodec.STOP_REPLICA_KEY, patch(STOP_REPLICA_BYTES, 16, 1, 0xff)),
            "delete", 16);
        assertMalformed(assertThrows(MalformedControlMessageException.class,
            () -> ControlCodec.decodeControlledShutdownRequest(V0, ByteBuffer.wrap(patch(CONTROLLED_SHUTDOWN_BYTES, 0,
                4, -1)))), "brokerId", 0);
        assertMalformed(assertThrows(MalformedControlMessageException.class,
            () -> ControlCodec.decodeControlledShutdownResponse(V0, ByteBuffer.wrap(patch(NOT_CONTROLLER_BYTES, 2,
                4, -7)))), "brokerId", 2);
        // Both boundaries of a port are accepted.
        for (final int port : new int[] {0, 65_535}) {
            assertEquals(port, ((LeaderAndIsrRequest) ControlCodec.decodeRequest(lai, V0, ByteBuffer.wrap(
                patch(LEADER_AND_ISR_BYTES, 87, 4, port)))).liveLeaders().get(2).port());
        }
    }

    @Test
    void unsortedOrRepeatedEntriesAreMalformed() {
        final short stop = ControlCodec.STOP_REPLICA_KEY;
        // b-1 rewritten as a-1: after a-2, out of order.
        assertMalformed(malformedRequest(stop, patch(patch(STOP_REPLICA_BYTES, 37, 1, 'a'), 38, 4, 1)),
            "partitions[2].(topic, partition)", 35);
        // a-2 rewritten as a-0: a repeat of a-0 (a set would silently lose it).
        assertMalformed(malformedRequest(stop, patch(STOP_REPLICA_BYTES, 31, 4, 0)),
            "partitions[1].(topic, partition)", 28);
        // Broker 2 rewritten as broker 1: a repeated id.
        assertMalformed(malformedRequest(ControlCodec.UPDATE_METADATA_KEY, patch(UPDATE_METADATA_BYTES, 41, 4, 1)),
            "liveBrokers[1].id", 41);
    }

    @Test
    void unknownErrorCodesAreMalformed() {
        // A stale leader epoch cannot refuse a whole message, and NOT_CONTROLLER does not answer a control request.
        for (final int code : new int[] {ControlCodec.FENCED_LEADER_EPOCH, ControlCodec.NOT_CONTROLLER, 1, -1}) {
            assertMalformed(assertThrows(MalformedControlMessageException.class, () -> ControlCodec.decodeResponse(
                ControlCodec.LEADER_AND_ISR_KEY, V0, ByteBuffer.wrap(patch(REFUSAL_BYTES, 0, 2, code)))),
                "errorCode", 0);
        }
        assertMalformed(assertThrows(MalformedControlMessageException.class, () -> ControlCodec.decodeResponse(
            ControlCodec.LEADER_AND_ISR_KEY, V0, ByteBuffer.wrap(patch(RESPONSE_BYTES, 13, 2, 0)))),
            "partitionErrors[0].errorCode", 13);
        assertMalformed(assertThrows(MalformedControlMessageException.class,
            () -> ControlCodec.decodeControlledShutdownResponse(V0, ByteBuffer.wrap(patch(NOT_CONTROLLER_BYTES, 0, 2,
                ControlCodec.STALE_CONTROLLER_EPOCH)))), "errorCode", 0);
    }

    @Test
    void unknownKeysAndVersionsAreMalformed() {
        final ByteBuffer body = ByteBuffer.wrap(LEADER_AND_ISR_BYTES);
        for (final short key : new short[] {0, 17, 16_399, ControlCodec.CONTROLLED_SHUTDOWN_KEY, 16_404, -1}) {
            final MalformedControlMessageException request = assertThrows(MalformedControlMessageException.class,
                () -> ControlCodec.decodeRequest(key, V0, body));
            assertMalformed(request, "apiKey", MalformedControlMessageException.IN_HEADER);
            assertEquals(String.valueOf(key), request.found());
            assertMalformed(assertThrows(MalformedControlMessageException.class,
                () -> ControlCodec.decodeResponse(key, V0, ByteBuffer.wrap(RESPONSE_BYTES))), "apiKey",
                MalformedControlMessageException.IN_HEADER);
        }
        for (final short version : new short[] {1, -1, Short.MAX_VALUE}) {
            // LeaderAndIsr knows version 1 (topic ids); 2 is the first unknown one.
            final short laiVersion = version == 1 ? 2 : version;
            final List<Runnable> decoders = List.of(
                () -> ControlCodec.decodeRequest(ControlCodec.LEADER_AND_ISR_KEY, laiVersion, body),
                () -> ControlCodec.decodeResponse(ControlCodec.STOP_REPLICA_KEY, version, ByteBuffer.wrap(RESPONSE_BYTES)),
                () -> ControlCodec.decodeControlledShutdownRequest(version, ByteBuffer.wrap(CONTROLLED_SHUTDOWN_BYTES)),
                () -> ControlCodec.decodeControlledShutdownResponse(version, ByteBuffer.wrap(SHUTDOWN_RESPONSE_BYTES)));
            for (final Runnable decoder : decoders) {
                final MalformedControlMessageException e = assertThrows(MalformedControlMessageException.class,
                    decoder::run);
                assertMalformed(e, "version", MalformedControlMessageException.IN_HEADER);
                assertTrue(e.messageType().endsWith(" v" + version) || e.messageType().endsWith(" v" + laiVersion),
                    e.messageType());
            }
        }
    }

    @Test
    void theMessageNamesTypeFieldPositionAndValue() {
        final MalformedControlMessageException e = malformedRequest(ControlCodec.LEADER_AND_ISR_KEY,
            patch(LEADER_AND_ISR_BYTES, 31, 4, -3));
        assertEquals("LeaderAndIsr request v0", e.messageType());
        assertEquals("-3", e.found());
        assertEquals("LeaderAndIsr request v0: partitions[0].leader at byte 31: found -3 (must be at least -2)",
            e.getMessage());
        assertNull(e.getCause());
    }
}
