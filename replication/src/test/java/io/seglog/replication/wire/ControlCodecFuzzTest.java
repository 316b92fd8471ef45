package io.seglog.replication.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Seeded randomised test of the control codec ({@code -Dseglog.control.fuzz.seed}, {@code
 * -Dseglog.control.fuzz.cases}): random valid messages of every type round-trip exactly, and random mutations of
 * their bodies (bytes overwritten, counts and lengths set to extremes, bytes inserted or removed, truncations, the
 * wrong key or version) either decode to something that re-encodes to exactly the mutated bytes (the encoding is
 * canonical) or fail with {@link MalformedControlMessageException}; any other outcome, an {@link OutOfMemoryError}
 * included, fails the test with the seed and the case.
 */
class ControlCodecFuzzTest {
    private static final long SEED = Long.getLong("seglog.control.fuzz.seed", 0x5e61_0c0d_ecL);
    private static final int CASES = Integer.getInteger("seglog.control.fuzz.cases", 20_000);
    private static final short[] CONTROL_KEYS = {ControlCodec.LEADER_AND_ISR_KEY, ControlCodec.UPDATE_METADATA_KEY,
        ControlCodec.STOP_REPLICA_KEY};
    private static final String TOPIC_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
    private static final String[] TOPIC_POOL = {"a", "a.b", "orders", "orders-2", "Z_z", "_", "-"};
    private static final int[] SPECIAL_INT32 = {0, 1, -1, 2, Integer.MAX_VALUE, Integer.MIN_VALUE, 65_535, 65_536, -2,
        -3};
    private static final int[] SPECIAL_INT16 = {0, 1, -1, -2, Short.MAX_VALUE, Short.MIN_VALUE, 11, 41, 74, 77};

    /** Which decoder reads a body, and so which encoder writes what it returns. */
    private enum Kind { REQUEST, RESPONSE, SHUTDOWN_REQUEST, SHUTDOWN_RESPONSE }

    /**
     * A message: its kind, the key it is sent or answered with (requests and responses), the version it is written
     * and read at, and the value.
     */
    private record Message(Kind kind, short key, short version, Object value) {
        Message(final Kind kind, final short key, final Object value) {
            this(kind, key, ControlCodec.latestVersion(key), value);
        }
    }

    @Test
    void randomMessagesRoundTripAndMutationsDecodeCanonicallyOrAreMalformed() {
        final SplittableRandom random = new SplittableRandom(SEED);
        final int[] kinds = new int[Kind.values().length];
        int reEncoded = 0;
        int malformed = 0;
        for (int i = 0; i < CASES; i++) {
            Message message = null;
            byte[] body = null;
            short key = 0;
            short version = ControlCodec.FIRST_VERSION;
            try {
                message = randomMessage(random);
                body = encode(message);
                kinds[message.kind().ordinal()]++;
                assertRoundTrip(message, body);
                for (int m = 0; m < 3; m++) {
                    final byte[] mutated = mutate(random, body);
                    key = random.nextInt(20) == 0 ? CONTROL_KEYS[random.nextInt(CONTROL_KEYS.length)] : message.key();
                    version = random.nextInt(50) == 0 ? (short) (random.nextInt(-1, ControlCodec.latestVersion(key) + 2))
                        : message.version();
                    if (message.kind() == Kind.REQUEST && key != message.key()) {
                        version = ControlCodec.latestVersion(key) < version ? ControlCodec.latestVersion(key) : version;
                    }
                    body = mutated;
                    final Object outcome;
                    try {
                        outcome = decode(message.kind(), key, version, ByteBuffer.wrap(mutated));
                    } catch (final MalformedControlMessageException e) {
                        malformed++;
                        continue;
                    }
                    assertArrayEquals(mutated, encode(new Message(message.kind(), key, version, outcome)),
                        () -> "a mutated body decoded to something that encodes differently: " + outcome);
                    reEncoded++;
                }
            } catch (final Throwable t) { // an OutOfMemoryError too: report it with the seed
                throw new AssertionError("seed=" + SEED + " (-Dseglog.control.fuzz.seed=" + SEED + ") case=" + i
                    + " message=" + message + " key=" + key + " version=" + version + " body="
                    + (body == null ? null : HexFormat.of().formatHex(body)) + ": " + t, t);
            }
        }
        for (final Kind kind : Kind.values()) {
            assertTrue(kinds[kind.ordinal()] > CASES / 20, kind + " generated " + kinds[kind.ordinal()] + " times");
        }
        // Both outcomes must be common, or the mutations are not exercising the decoder.
        assertTrue(malformed > CASES / 2, "malformed=" + malformed);
        assertTrue(reEncoded > CASES / 20, "reEncoded=" + reEncoded);
        assertEquals(3 * CASES, malformed + reEncoded);
    }

    private static void assertRoundTrip(final Message message, final byte[] body) {
        final Object decoded = decode(message.kind(), message.key(), message.version(), ByteBuffer.wrap(body));
        if (message.value() instanceof ControlResponse response) {
            ControlCodecTest.assertSameResponse(response, (ControlResponse) decoded);
        } else if (message.value() instanceof RuntimeException refusal) {
            ControlCodecTest.assertSameRefusal(refusal, (Throwable) decoded);
        } else {
            assertEquals(message.value(), decoded);
        }
        assertArrayEquals(body, encode(new Message(message.kind(), message.key(), message.version(), decoded)),
            "re-encoded");
    }

    /** Decodes; a decoded refusal (which the decoders throw) is returned as the value. */
    private static Object decode(final Kind kind, final short key, final short version, final ByteBuffer body) {
        try {
            switch (kind) {
                case REQUEST:
                    return ControlCodec.decodeRequest(key, version, body);
                case RESPONSE:
                    return ControlCodec.decodeResponse(key, version, body);
                case SHUTDOWN_REQUEST:
                    return ControlCodec.decodeControlledShutdownRequest(version, body);
                default:
                    return ControlCodec.decodeControlledShutdownResponse(version, body);
            }
        } catch (final ControlRequestRefusedException | NotControllerException refusal) {
            if (kind == Kind.RESPONSE || kind == Kind.SHUTDOWN_RESPONSE) {
                return refusal;
            }
            throw refusal;
        }
    }

    @SuppressWarnings("unchecked")
    private static byte[] encode(final Message message) {
        final Object value = message.value();
        final ByteBuffer body;
        if (value instanceof ControlRequest request) {
            assertEquals(message.key(), ControlCodec.apiKey(request), "a request decodes as its own type");
            body = ControlCodec.encodeRequest(request, message.version());
        } else if (value instanceof ControlResponse response) {
            body = ControlCodec.encodeResponse(response);
        } else if (value instanceof ControlCodec.ControlledShutdown shutdown) {
            body = ControlCodec.encodeControlledShutdownRequest(shutdown.brokerId(), shutdown.brokerEpoch());
        } else if (value instanceof Set<?> stillLed) {
            body = ControlCodec.encodeControlledShutdownResponse((Set<TopicPartition>) stillLed);
        } else if (message.kind() == Kind.RESPONSE) {
            body = ControlCodec.encodeRefusal((ControlRequestRefusedException) value);
        } else {
            body = ControlCodec.encodeControlledShutdownRefusal((RuntimeException) value);
        }
        assertEquals(0, body.position());
        assertEquals(body.capacity(), body.limit(), "sized exactly");
        return ControlCodecTest.bytes(body);
    }

    // ------------------------------------------------------------------------------------------------ mutations

    private static byte[] mutate(final SplittableRandom random, final byte[] body) {
        byte[] bytes = body.clone();
        final int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations; m++) {
            final int op = random.nextInt(7);
            if (op == 4) {
                return Arrays.copyOf(bytes, random.nextInt(bytes.length + 1)); // truncated
            }
            if (bytes.length == 0) {
                return bytes;
            }
            final int at = random.nextInt(bytes.length);
            switch (op) {
                case 0 -> bytes[at] = (byte) random.nextInt(256);
                case 1 -> bytes[at] = new byte[] {0, 1, 2, (byte) 0x7f, (byte) 0x80, (byte) 0xff}[random.nextInt(6)];
                case 2 -> {
                    if (at + 4 <= bytes.length) {
                        ByteBuffer.wrap(bytes).putInt(at, SPECIAL_INT32[random.nextInt(SPECIAL_INT32.length)]);
                    }
                }
                case 3 -> {
                    if (at + 2 <= bytes.length) {
                        ByteBuffer.wrap(bytes).putShort(at, (short) SPECIAL_INT16[random.nextInt(SPECIAL_INT16.length)]);
                    }
                }
                case 5 -> {
                    final byte[] longer = new byte[bytes.length + 1];
                    System.arraycopy(bytes, 0, longer, 0, at);
                    longer[at] = (byte) random.nextInt(256);
                    System.arraycopy(bytes, at, longer, at + 1, bytes.length - at);
                    bytes = longer;
                }
                default -> {
                    final byte[] shorter = new byte[bytes.length - 1];
                    System.arraycopy(bytes, 0, shorter, 0, at);
                    System.arraycopy(bytes, at + 1, shorter, at, bytes.length - at - 1);
                    bytes = shorter;
                }
            }
        }
        return bytes;
    }

    // ------------------------------------------------------------------------------------------------ generators

    private static Message randomMessage(final SplittableRandom random) {
        final short key = CONTROL_KEYS[random.nextInt(CONTROL_KEYS.length)];
        switch (random.nextInt(9)) {
            case 0: {
                final short version = (short) random.nextInt(ControlCodec.TOPIC_ID_VERSION + 1);
                return new Message(Kind.REQUEST, ControlCodec.LEADER_AND_ISR_KEY, version, new LeaderAndIsrRequest(
                    brokerId(random), random.nextInt(), random.nextLong(), states(random, version), brokers(random)));
            }
            case 1: {
                final short version = (short) random.nextInt(ControlCodec.TOPIC_ID_VERSION + 1);
                return new Message(Kind.REQUEST, ControlCodec.UPDATE_METADATA_KEY, version, new UpdateMetadataRequest(
                    brokerId(random), random.nextInt(), random.nextLong(), brokers(random), states(random, version)));
            }
            case 2:
                return new Message(Kind.REQUEST, ControlCodec.STOP_REPLICA_KEY, new StopReplicaRequest(
                    brokerId(random), random.nextInt(), random.nextLong(), partitions(random), random.nextBoolean()));
            case 3:
                final Map<TopicPartition, ControlRequestRefusedException> errors = new HashMap<>();
                for (final TopicPartition tp : partitions(random)) {
                    errors.put(tp, refusal(random, random.nextInt(3)));
                }
                return new Message(Kind.RESPONSE, key, (short) random.nextInt(ControlCodec.latestVersion(key) + 1),
                    new ControlResponse(errors));
            case 4:
                return new Message(Kind.RESPONSE, key, (short) random.nextInt(ControlCodec.latestVersion(key) + 1),
                    refusal(random, random.nextInt(2)));
            case 5:
                return new Message(Kind.SHUTDOWN_REQUEST, ControlCodec.CONTROLLED_SHUTDOWN_KEY,
                    new ControlCodec.ControlledShutdown(brokerId(random), random.nextLong()));
            case 6:
                return new Message(Kind.SHUTDOWN_RESPONSE, ControlCodec.CONTROLLED_SHUTDOWN_KEY, partitions(random));
            case 7:
                return new Message(Kind.SHUTDOWN_RESPONSE, ControlCodec.CONTROLLED_SHUTDOWN_KEY,
                    new NotControllerException(brokerId(random)));
            default:
                return new Message(Kind.SHUTDOWN_RESPONSE, ControlCodec.CONTROLLED_SHUTDOWN_KEY, refusal(random, 1));
        }
    }

    /** A refusal: 0 stale controller epoch, 1 stale broker epoch, 2 stale leader epoch. */
    private static ControlRequestRefusedException refusal(final SplittableRandom random, final int type) {
        final String reason = random.nextInt(5) == 0 ? null : text(random);
        final long requestEpoch = random.nextBoolean() ? random.nextLong() : random.nextInt(100);
        final long currentEpoch = random.nextBoolean() ? random.nextLong() : random.nextInt(100);
        return switch (type) {
            case 0 -> new StaleControllerEpochException(reason, requestEpoch, currentEpoch);
            case 1 -> new StaleBrokerEpochException(reason, requestEpoch, currentEpoch);
            default -> new StaleLeaderEpochException(reason, requestEpoch, currentEpoch);
        };
    }

    /** Partition states; from version 1 each topic has one id (zero for some, as a topic without an id). */
    private static Map<TopicPartition, PartitionStateInfo> states(final SplittableRandom random, final short version) {
        final Map<TopicPartition, PartitionStateInfo> states = new HashMap<>();
        final Map<String, TopicId> ids = new HashMap<>();
        for (final TopicPartition tp : partitions(random)) {
            final TopicId id = version < ControlCodec.TOPIC_ID_VERSION ? TopicId.ZERO : ids.computeIfAbsent(tp.topic(),
                t -> random.nextInt(5) == 0 ? TopicId.ZERO : new TopicId(random.nextLong(), random.nextLong()));
            final int leader = switch (random.nextInt(6)) {
                case 0 -> LeaderAndIsr.NO_LEADER;
                case 1 -> LeaderAndIsr.LEADER_DURING_DELETE;
                default -> brokerId(random);
            };
            states.put(tp, new PartitionStateInfo(random.nextInt(), new LeaderAndIsr(leader, nonNegative(random),
                ids(random), nonNegative(random)), ids(random), random.nextBoolean(), id));
        }
        return states;
    }

    private static Map<Integer, LiveBroker> brokers(final SplittableRandom random) {
        final Map<Integer, LiveBroker> brokers = new HashMap<>();
        final int count = random.nextInt(6);
        for (int i = 0; i < count; i++) {
            final int id = brokerId(random);
            brokers.put(id, new LiveBroker(id, random.nextLong(), text(random), random.nextInt(65_536),
                random.nextBoolean() ? Optional.empty() : Optional.of(text(random))));
        }
        return brokers;
    }

    private static Set<TopicPartition> partitions(final SplittableRandom random) {
        final Set<TopicPartition> partitions = new HashSet<>();
        final int count = random.nextInt(10) == 0 ? random.nextInt(100) : random.nextInt(6);
        for (int i = 0; i < count; i++) {
            partitions.add(new TopicPartition(topic(random), random.nextInt(8) == 0 ? nonNegative(random)
                : random.nextInt(10)));
        }
        return partitions;
    }

    private static String topic(final SplittableRandom random) {
        if (random.nextInt(4) != 0) {
            return TOPIC_POOL[random.nextInt(TOPIC_POOL.length)]; // shared topics: partitions sorted within one
        }
        final int length = random.nextInt(50) == 0 ? TopicPartition.MAX_TOPIC_LENGTH : 1 + random.nextInt(12);
        final StringBuilder topic = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            topic.append(TOPIC_CHARS.charAt(random.nextInt(TOPIC_CHARS.length())));
        }
        final String name = topic.toString();
        return name.equals(".") || name.equals("..") ? "dot" : name;
    }

    /** Unicode text of 0 to 20 code points: ASCII, Latin-1, other BMP characters, and supplementary ones. */
    private static String text(final SplittableRandom random) {
        final int length = random.nextInt(21);
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            final int codePoint = switch (random.nextInt(4)) {
                case 0 -> 0x20 + random.nextInt(0x5f);
                case 1 -> random.nextInt(0x100);
                case 2 -> {
                    final int c = random.nextInt(0x10000);
                    yield Character.isSurrogate((char) c) ? 'x' : c;
                }
                default -> 0x10000 + random.nextInt(0x10ffff - 0x10000 + 1);
            };
            text.appendCodePoint(codePoint);
        }
        return text.toString();
    }

    private static List<Integer> ids(final SplittableRandom random) {
        final Set<Integer> ids = new HashSet<>();
        final int count = random.nextInt(5);
        final List<Integer> list = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            final int id = brokerId(random);
            if (ids.add(id)) {
                list.add(id);
            }
        }
        return list;
    }

    private static int brokerId(final SplittableRandom random) {
        return random.nextInt(20) == 0 ? Integer.MAX_VALUE - random.nextInt(2) : random.nextInt(10);
    }

    private static int nonNegative(final SplittableRandom random) {
        return random.nextBoolean() ? random.nextInt(Integer.MAX_VALUE) : random.nextInt(10);
    }
}
