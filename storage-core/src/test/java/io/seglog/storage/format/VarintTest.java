package io.seglog.storage.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.utils.internals.ByteUtils;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Our zig-zag codec against Kafka's {@code ByteUtils} (the oracle) over extremes and seeded random values,
 * plus the bounded-read errors Kafka reports with exceptions and we report with status codes.
 */
class VarintTest {
    private static final int[] INT_EXTREMES = {0, 1, -1, 63, -64, 64, -65, 8191, -8192, 8192, 1 << 20, -(1 << 20),
        1 << 27, (1 << 28) - 1, 1 << 28, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE - 1,
        Integer.MIN_VALUE + 1};
    private static final long[] LONG_EXTREMES = {0L, 1L, -1L, 63L, -64L, 64L, Integer.MAX_VALUE, Integer.MIN_VALUE,
        1L << 35, -(1L << 35), 1L << 62, -(1L << 62), (1L << 56) - 1, 1L << 56, Long.MAX_VALUE, Long.MIN_VALUE,
        Long.MAX_VALUE - 1, Long.MIN_VALUE + 1, 1_700_000_000_000L, -1_700_000_000_000L};

    private final UnsafeBuffer ours = new UnsafeBuffer(new byte[16]);
    private final ByteBuffer kafka = ByteBuffer.allocate(16);

    @Test
    void varintExtremesMatchKafka() {
        for (final int value : INT_EXTREMES) {
            assertVarintMatchesKafka(value, "extreme");
        }
    }

    @Test
    void varlongExtremesMatchKafka() {
        for (final long value : LONG_EXTREMES) {
            assertVarlongMatchesKafka(value, "extreme");
        }
    }

    @ParameterizedTest(name = "seed={0}")
    @ValueSource(longs = {1L, 42L, 0x5eed_10c5L, 20_261_129L, -7L})
    void randomValuesMatchKafka(final long seed) {
        final SplittableRandom random = new SplittableRandom(seed);
        final String context = "seed=" + seed;
        for (int i = 0; i < 20_000; i++) {
            // Shift by a random amount so every encoded length, not just the longest, is common.
            assertVarintMatchesKafka(random.nextInt() >> random.nextInt(32), context);
            assertVarlongMatchesKafka(random.nextLong() >> random.nextInt(64), context);
        }
    }

    @Test
    void truncatedVarintIsReportedNotThrown() {
        Varint.writeVarint(ours, 0, Integer.MIN_VALUE);
        assertEquals(5, Varint.size(Varint.readVarint(ours, 0, 5)));
        for (int limit = 0; limit < 5; limit++) {
            assertEquals(Varint.TRUNCATED, Varint.readVarint(ours, 0, limit), "limit=" + limit);
        }
        Varint.writeVarlong(ours, 0, Long.MIN_VALUE);
        assertEquals(10, Varint.varlongSize(ours, 0, 10));
        for (int limit = 0; limit < 10; limit++) {
            assertEquals(Varint.TRUNCATED, Varint.varlongSize(ours, 0, limit), "limit=" + limit);
        }
    }

    @Test
    void overlongVarintIsReportedNotThrown() {
        for (int i = 0; i < 16; i++) {
            ours.putByte(i, (byte) 0x80);
        }
        assertEquals(Varint.TOO_LONG, Varint.readVarint(ours, 0, 16));
        assertEquals(Varint.TOO_LONG, Varint.varlongSize(ours, 0, 16));
        // Five continuation bytes then a terminator is still too long for a 32-bit varint, and Kafka agrees.
        ours.putByte(5, (byte) 0x01);
        assertEquals(Varint.TOO_LONG, Varint.readVarint(ours, 0, 16));
        assertKafkaRejectsVarint(6);
    }

    @Test
    void fifthByteHighBitsAreIgnoredLikeKafka() {
        // 0xff in the fifth byte carries bits Kafka drops silently; we decode the same value.
        final byte[] bytes = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0x7f};
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        final long packed = Varint.readVarint(buffer, 0, bytes.length);
        assertEquals(5, Varint.size(packed));
        assertEquals(ByteUtils.readVarint(ByteBuffer.wrap(bytes)), Varint.value(packed));
    }

    private void assertKafkaRejectsVarint(final int length) {
        final byte[] bytes = new byte[length];
        ours.getBytes(0, bytes);
        try {
            ByteUtils.readVarint(ByteBuffer.wrap(bytes));
            throw new AssertionError("Kafka accepted an overlong varint");
        } catch (final IllegalArgumentException expected) {
            // Kafka throws; we return TOO_LONG for the same bytes.
        }
    }

    private void assertVarintMatchesKafka(final int value, final String context) {
        final String message = context + " value=" + value;
        kafka.clear();
        ByteUtils.writeVarint(value, kafka);
        final int kafkaSize = kafka.position();
        final int ourSize = Varint.writeVarint(ours, 0, value);
        assertEquals(kafkaSize, ourSize, message);
        assertEquals(ByteUtils.sizeOfVarint(value), Varint.sizeOfVarint(value), message);
        for (int i = 0; i < ourSize; i++) {
            assertEquals(kafka.get(i), ours.getByte(i), message + " byte " + i);
        }
        final long packed = Varint.readVarint(ours, 0, ourSize);
        assertEquals(ourSize, Varint.size(packed), message);
        assertEquals(value, Varint.value(packed), message);
        kafka.flip();
        assertEquals(value, ByteUtils.readVarint(kafka), message);
    }

    private void assertVarlongMatchesKafka(final long value, final String context) {
        final String message = context + " value=" + value;
        kafka.clear();
        ByteUtils.writeVarlong(value, kafka);
        final int kafkaSize = kafka.position();
        final int ourSize = Varint.writeVarlong(ours, 0, value);
        assertEquals(kafkaSize, ourSize, message);
        assertEquals(ByteUtils.sizeOfVarlong(value), Varint.sizeOfVarlong(value), message);
        for (int i = 0; i < ourSize; i++) {
            assertEquals(kafka.get(i), ours.getByte(i), message + " byte " + i);
        }
        assertEquals(ourSize, Varint.varlongSize(ours, 0, ourSize), message);
        assertEquals(value, Varint.readVarlongUnchecked(ours, 0), message);
        kafka.flip();
        assertEquals(value, ByteUtils.readVarlong(kafka), message);
    }
}
