package io.seglog.storage.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * The unchecked fast path of record parsing against the checked parse as the oracle: for every record and every
 * mutation of it, {@link RecordView#parse} (fast path first) must give the same size, the same field values and, on
 * failure, the same error as {@link RecordView#parseChecked}. Covered on heap, direct and raw-address buffers, with
 * the record flush against the buffer's end (where an unchecked read one byte too far would leave the memory),
 * with varints of every length 1 to 5 (10 for the timestamp), and with negative lengths. Also the fast varint
 * reader against {@link Varint#readVarint}.
 */
class RecordFastPathTest {
    private static final int MUTATIONS_PER_SEED = 4_000;

    private final RecordView fast = new RecordView();
    private final RecordView checked = new RecordView();

    @Test
    void fastVarintMatchesCheckedVarintUpToThreeBytesAndDefersTheRest() {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8]);
        final int[] values = {0, 1, -1, 63, -64, 64, -65, 8191, -8192, 8192, -8193, (1 << 20) - 1, -(1 << 20),
            1 << 20, -(1 << 20) - 1, 1 << 27, Integer.MAX_VALUE, Integer.MIN_VALUE};
        for (final int value : values) {
            final int size = Varint.writeVarint(buffer, 0, value);
            for (int end = 0; end <= 8; end++) {
                final long expected = Varint.readVarint(buffer, 0, end);
                final long actual = UncheckedReads.varint(buffer.byteArray(), buffer.addressOffset(), 0, end);
                final String context = "value=" + value + " size=" + size + " end=" + end;
                if (size <= 3 && end >= size) {
                    assertEquals(expected, actual, context);
                } else {
                    // Longer encodings and cut ones are left to the checked reader, which reports them.
                    assertEquals(UncheckedReads.SLOW, actual, context);
                }
            }
        }
    }

    @Test
    void fastVarlongMatchesCheckedVarlongUpToThreeBytes() {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[16]);
        final long[] values = {0L, 1L, -1L, 63L, -64L, 8191L, -8193L, (1L << 20) - 1, -(1L << 20), 1L << 20,
            1_700_000_000_000L, Long.MIN_VALUE};
        for (final long value : values) {
            final int size = Varint.writeVarlong(buffer, 0, value);
            final long packed = UncheckedReads.varlongRaw(buffer.byteArray(), buffer.addressOffset(), 0, 16);
            if (size <= 3) {
                assertEquals(size, Varint.size(packed), "value=" + value);
                assertEquals(value, UncheckedReads.zigZag(packed), "value=" + value);
            } else {
                assertEquals(UncheckedReads.SLOW, packed, "value=" + value);
            }
        }
    }

    @Test
    void recordsFlushAgainstTheBufferEndParseAlikeOnEveryKindOfBuffer() {
        final SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 500; i++) {
            final byte[] record = randomRecord(random);
            // Exactly sized, so that the record's last byte is the buffer's last byte.
            final ByteBuffer direct = ByteBuffer.allocateDirect(record.length + 3);
            final DirectBuffer[] buffers = {
                new UnsafeBuffer(record.clone()),
                sliceAtOffset(record, 3),
                new UnsafeBuffer(direct, 3, record.length),
                new UnsafeBuffer(BufferUtil.address(direct) + 3, record.length),
            };
            for (final DirectBuffer buffer : buffers) {
                ((MutableDirectBuffer) buffer).putBytes(0, record);
                assertSameParse(buffer, 0, buffer.capacity(), "record=" + i + " buffer=" + buffer);
                assertTrue(fast.sizeInBytes() == record.length, "whole record parsed");
                // A limit one byte short must fail in the same way on both paths.
                assertSameParse(buffer, 0, buffer.capacity() - 1, "short limit record=" + i);
            }
        }
    }

    @Test
    void mutatedRecordsParseAlikeOnBothPaths() {
        for (final long seed : TestBatches.SEEDS) {
            final SplittableRandom random = new SplittableRandom(seed);
            int failures = 0;
            for (int i = 0; i < MUTATIONS_PER_SEED; i++) {
                final byte[] record = randomRecord(random);
                final int mutations = 1 + random.nextInt(3);
                for (int m = 0; m < mutations; m++) {
                    final int at = random.nextInt(Math.min(record.length, 12));
                    record[at] = interestingByte(random);
                }
                final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(record.length));
                buffer.putBytes(0, record);
                if (assertSameParse(buffer, 0, record.length, "seed=" + seed + " mutation=" + i) < 0) {
                    failures++;
                }
            }
            assertTrue(failures > MUTATIONS_PER_SEED / 10, "seed=" + seed + " failures=" + failures);
        }
    }

    @Test
    void negativeAndFiveByteLengthsTakeTheCheckedPathAndItsErrors() {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        // length=10, attributes, timestampDelta=0, offsetDelta=0, keyLength=-2 (zig-zag 3): below -1.
        int p = Varint.writeVarint(buffer, 0, 10);
        buffer.putByte(p++, (byte) 0);
        p += Varint.writeVarlong(buffer, p, 0);
        p += Varint.writeVarint(buffer, p, 0);
        Varint.writeVarint(buffer, p, -2);
        assertEquals(-1, assertSameParse(buffer, 0, 64, "keyLength=-2"));
        assertEquals("keyLength", fast.errorField);
        assertEquals(-2, fast.errorValue);
        // A five-byte record length (a legal encoding of a small value) still parses, through the checked path.
        final byte[] record = recordWith(0, 1, 7);
        final byte[] padded = new byte[record.length + 4];
        padded[0] = (byte) (record[0] | 0x80);
        padded[1] = (byte) 0x80;
        padded[2] = (byte) 0x80;
        padded[3] = (byte) 0x80;
        padded[4] = 0;
        System.arraycopy(record, 1, padded, 5, record.length - 1);
        final UnsafeBuffer paddedBuffer = new UnsafeBuffer(padded);
        assertEquals(padded.length, assertSameParse(paddedBuffer, 0, padded.length, "five-byte length"));
    }

    /** Parses with both paths and asserts the same outcome; returns the size or -1. */
    private int assertSameParse(final DirectBuffer buffer, final int position, final int limit, final String context) {
        final int expected = checked.parseChecked(buffer, position, limit);
        final int actual = fast.parse(buffer, position, limit);
        assertEquals(expected, actual, context + " size");
        if (expected < 0) {
            assertEquals(checked.errorField, fast.errorField, context + " errorField");
            assertEquals(checked.errorValue, fast.errorValue, context + " errorValue");
            assertEquals(checked.errorLimit, fast.errorLimit, context + " errorLimit");
            assertEquals(checked.errorPosition, fast.errorPosition, context + " errorPosition");
            assertEquals(checked.errorDetail, fast.errorDetail, context + " errorDetail");
            return expected;
        }
        assertEquals(checked.sizeInBytes(), fast.sizeInBytes(), context);
        assertEquals(checked.attributes(), fast.attributes(), context);
        assertEquals(checked.timestampDelta(), fast.timestampDelta(), context);
        assertEquals(checked.offsetDelta(), fast.offsetDelta(), context);
        assertEquals(checked.keyLength(), fast.keyLength(), context);
        assertEquals(checked.keyOffset(), fast.keyOffset(), context);
        assertEquals(checked.valueLength(), fast.valueLength(), context);
        assertEquals(checked.valueOffset(), fast.valueOffset(), context);
        assertEquals(checked.headerCount(), fast.headerCount(), context);
        final RecordHeader a = new RecordHeader();
        final RecordHeader b = new RecordHeader();
        while (checked.nextHeader(a)) {
            assertTrue(fast.nextHeader(b), context + " header missing");
            assertEquals(a.keyOffset(), b.keyOffset(), context);
            assertEquals(a.valueLength(), b.valueLength(), context);
        }
        assertTrue(!fast.nextHeader(b), context + " extra header");
        return expected;
    }

    private static UnsafeBuffer sliceAtOffset(final byte[] record, final int offset) {
        final byte[] array = new byte[record.length + offset];
        return new UnsafeBuffer(array, offset, record.length);
    }

    private static byte interestingByte(final SplittableRandom random) {
        final byte[] choices = {0, 1, 2, 3, 0x7f, (byte) 0x80, (byte) 0x81, (byte) 0xff, (byte) 0xfe, 0x7e};
        return random.nextInt(4) == 0 ? (byte) random.nextInt(256) : choices[random.nextInt(choices.length)];
    }

    /** A record with varints of every length the format allows, null and empty fields, 0-3 headers. */
    private static byte[] randomRecord(final SplittableRandom random) {
        final int[] sizes = {0, 1, 5, 63, 64, 100, 200, 8191, 8192, 20_000};
        final int keyLength = random.nextInt(4) == 0 ? -1 : sizes[random.nextInt(7)];
        final int valueLength = random.nextInt(6) == 0 ? -1 : sizes[random.nextInt(sizes.length)];
        final long[] deltas = {0L, 1L, -1L, 100L, -100L, 1L << 20, 1L << 40, Long.MIN_VALUE};
        final long timestampDelta = deltas[random.nextInt(deltas.length)];
        final int offsetDelta = random.nextInt(3) == 0 ? random.nextInt() : random.nextInt(200);
        final byte[] bytes = new byte[64 + Math.max(0, keyLength) + Math.max(0, valueLength) + 1_000];
        final UnsafeBuffer body = new UnsafeBuffer(bytes);
        int p = 0;
        body.putByte(p++, (byte) 0);
        p += Varint.writeVarlong(body, p, timestampDelta);
        p += Varint.writeVarint(body, p, offsetDelta);
        p += Varint.writeVarint(body, p, keyLength);
        p += Math.max(0, keyLength);
        p += Varint.writeVarint(body, p, valueLength);
        p += Math.max(0, valueLength);
        final int headers = random.nextInt(4);
        p += Varint.writeVarint(body, p, headers);
        for (int h = 0; h < headers; h++) {
            final int headerKey = random.nextInt(5);
            p += Varint.writeVarint(body, p, headerKey);
            p += headerKey;
            final int headerValue = random.nextInt(4) == 0 ? -1 : sizes[random.nextInt(6)];
            p += Varint.writeVarint(body, p, headerValue);
            p += Math.max(0, headerValue);
        }
        final byte[] record = new byte[p + 5];
        final UnsafeBuffer out = new UnsafeBuffer(record);
        final int lengthSize = Varint.writeVarint(out, 0, p);
        out.putBytes(lengthSize, bytes, 0, p);
        final byte[] exact = new byte[lengthSize + p];
        System.arraycopy(record, 0, exact, 0, exact.length);
        return exact;
    }

    private static byte[] recordWith(final int offsetDelta, final int keyLength, final int valueLength) {
        final byte[] bytes = new byte[32];
        final UnsafeBuffer body = new UnsafeBuffer(bytes);
        int p = 0;
        body.putByte(p++, (byte) 0);
        p += Varint.writeVarlong(body, p, 0);
        p += Varint.writeVarint(body, p, offsetDelta);
        p += Varint.writeVarint(body, p, keyLength);
        p += keyLength;
        p += Varint.writeVarint(body, p, valueLength);
        p += valueLength;
        p += Varint.writeVarint(body, p, 0);
        final byte[] record = new byte[p + 1];
        record[0] = (byte) (p << 1); // one-byte zig-zag length; p < 64 here
        System.arraycopy(bytes, 0, record, 1, p);
        return record;
    }
}
