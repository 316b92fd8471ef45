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
 * The quick record path ({@link RecordView#parseQuick}: 1-2 byte varints, up to 63 headers, one bounds test per
 * record)
 * against {@link RecordView#parseChecked} as the oracle: whatever it accepts, the checked parse accepts with the
 * same fields, and it accepts the common shapes (so the comparison is not vacuous). Covered: every field at
 * one, two (also non-canonical) and longer encodings, records ending exactly at the limit, records with
 * headers, negative and overrunning lengths, overlong varints, and the record at every distance from the
 * buffer's end (where the path's unchecked reads must hand over), on heap, direct and raw-address buffers.
 * Also the 16-bit varint reader exhaustively and the validator's errors unchanged at the buffer's end.
 */
class RecordQuickPathTest {
    private final RecordView quick = new RecordView();
    private final RecordView checked = new RecordView();

    @Test
    void shortVarintMatchesTheCheckedReaderForEveryTwoBytePattern() {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[2]);
        for (int pattern = 0; pattern < 1 << 16; pattern++) {
            buffer.putByte(0, (byte) pattern);
            buffer.putByte(1, (byte) (pattern >>> 8));
            final int packed = UncheckedReads.shortVarint(buffer.byteArray(), buffer.addressOffset(), 0);
            final long expected = Varint.readVarint(buffer, 0, 2);
            final String context = "bytes=" + Integer.toHexString(pattern);
            assertTrue(UncheckedReads.shortSize(packed) == 1 || UncheckedReads.shortSize(packed) == 2, context);
            if (expected < 0) {
                assertTrue(packed < 0, context + " two continued bytes must be refused");
            } else {
                assertTrue(packed >= 0, context);
                assertEquals(Varint.size(expected), UncheckedReads.shortSize(packed), context);
                assertEquals(Varint.value(expected), UncheckedReads.shortValue(packed), context);
            }
        }
    }

    @Test
    void acceptsTheCommonShapesWithTheCheckedFields() {
        final int[] lengths = {-1, 0, 1, 63, 64, 100, 1000, 8000};
        final long[] timestampDeltas = {0, 1, -1, 63, 64, -65, 8191, -8192};
        final int[] offsetDeltas = {0, 1, 63, 64, 8191};
        int accepted = 0;
        for (final int key : lengths) {
            for (final int value : lengths) {
                for (final long timestampDelta : timestampDeltas) {
                    for (final int offsetDelta : offsetDeltas) {
                        final int headers = (key + value + offsetDelta) % 4 == 0 ? 3 : (key + value) % 3 == 0 ? 63 : 0;
                        final byte[] record = record(timestampDelta, offsetDelta, key, value, headers);
                        final UnsafeBuffer buffer = padded(record, 0, 16);
                        final int size = parseQuick(buffer, record.length);
                        final String context = "key=" + key + " value=" + value + " ts=" + timestampDelta
                            + " delta=" + offsetDelta + " headers=" + headers;
                        // Two-byte varints carry 14 bits: the record length must fit too.
                        if (record.length - 2 < 8192) {
                            assertEquals(record.length, size, context);
                            accepted++;
                        }
                        if (size > 0) {
                            assertSameFields(buffer, 0, record.length, context);
                        }
                    }
                }
            }
        }
        assertTrue(accepted > 1000, "accepted=" + accepted);
    }

    @Test
    void leavesLongVarintsHeadersAndRecordsNearTheBufferEndToTheOtherPaths() {
        // A three-byte timestamp delta, 64 headers (a two-byte count), and a plain record 15 bytes from the end.
        final byte[] longDelta = record(1 << 14, 0, -1, 10, 0);
        final byte[] manyHeaders = record(0, 0, -1, 10, 64);
        final byte[] plain = record(0, 0, -1, 10, 0);
        for (final byte[] record : new byte[][] {longDelta, manyHeaders}) {
            final UnsafeBuffer buffer = padded(record, 0, 16);
            assertEquals(0, parseQuick(buffer, record.length));
            // The general parse still reads it, as the checked parse does.
            assertEquals(record.length, quick.parse(buffer, 0, record.length));
            assertSameFields(buffer, 0, record.length, "handed over");
        }
        final UnsafeBuffer near = padded(plain, 0, RecordView.QUICK_SLACK - 1);
        assertEquals(0, parseQuick(near, plain.length));
        assertEquals(plain.length, quick.parse(near, 0, plain.length));
    }

    @Test
    void mutatedRecordsAtEveryDistanceFromTheBufferEndParseAsTheCheckedParseDoes() {
        int quickAccepted = 0;
        int failures = 0;
        for (final long seed : TestBatches.SEEDS) {
            final SplittableRandom random = new SplittableRandom(seed);
            for (int i = 0; i < 3_000; i++) {
                final byte[] record = randomRecord(random);
                final int mutations = random.nextInt(3);
                for (int m = 0; m < mutations; m++) {
                    record[random.nextInt(Math.min(record.length, 10))] = interestingByte(random);
                }
                final int slack = random.nextInt(RecordView.QUICK_SLACK + 8);
                // The limit: the record's end, or short of it (a record overrunning its batch), or past it.
                final int limit = Math.max(0, Math.min(record.length + slack, record.length + random.nextInt(5) - 2));
                for (final DirectBuffer buffer : buffers(record, slack, random)) {
                    final String context = "seed=" + seed + " i=" + i + " slack=" + slack + " limit=" + limit + " "
                        + buffer.getClass().getSimpleName() + (buffer.byteArray() == null ? " off-heap" : " heap");
                    final int quickEnd = buffer.capacity() - RecordView.QUICK_SLACK;
                    if (quickEnd >= 0) {
                        final int size = parseQuick(buffer, limit);
                        if (size > 0) {
                            quickAccepted++;
                            assertSameFields(buffer, 0, limit, context);
                        }
                    }
                    if (assertSameParse(buffer, limit, context) < 0) {
                        failures++;
                    }
                }
            }
        }
        assertTrue(quickAccepted > 1_000, "quickAccepted=" + quickAccepted);
        assertTrue(failures > 1_000, "failures=" + failures);
    }

    @Test
    void validatorReportsTheSameErrorWhereverTheBatchEndsInItsBuffer() {
        final RecordBatchBuilder builder = new RecordBatchBuilder();
        final SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < 400; i++) {
            final byte[] batch = new byte[4096];
            final UnsafeBuffer source = new UnsafeBuffer(batch);
            builder.wrap(source, 0, batch.length);
            final int records = 1 + random.nextInt(5);
            for (int r = 0; r < records; r++) {
                builder.appendRecord(1_700_000_000_000L + random.nextInt(100), null, new byte[random.nextInt(80)]);
            }
            final int size = builder.build();
            // Mutate a byte in the last record (the one flush against the buffer's end), then fix the CRC.
            final int at = size - 1 - random.nextInt(Math.min(12, size - RecordBatchDescriptor.RECORDS_OFFSET));
            source.putByte(at, interestingByte(random));
            new RecordBatch().wrap(source, 0).writeCrc();
            String expected = null;
            for (int slack = 0; slack <= RecordView.QUICK_SLACK + 2; slack++) {
                final UnsafeBuffer placed = new UnsafeBuffer(ByteBuffer.allocateDirect(size + slack));
                placed.putBytes(0, batch, 0, size);
                final String outcome = outcome(placed, size);
                if (expected == null) {
                    expected = outcome;
                }
                assertEquals(expected, outcome, "batch=" + i + " slack=" + slack);
            }
        }
    }

    private static String outcome(final DirectBuffer buffer, final int size) {
        final RecordBatchValidator validator = new RecordBatchValidator(1 << 20);
        try {
            validator.validate(buffer, 0, size);
            return "ok max=" + validator.lastBatchMaxTimestamp() + " min=" + validator.lastBatchMinTimestamp()
                + " deltaOfMax=" + validator.lastBatchOffsetDeltaOfMaxTimestamp();
        } catch (final InvalidRecordException e) {
            return e.getMessage();
        }
    }

    /**
     * The quick path alone on the record at 0. {@code parse} first, only so that the flyweight holds the buffer
     * for {@code nextHeader}; {@code parseQuick} then overwrites every field it reports.
     */
    private int parseQuick(final DirectBuffer buffer, final int limit) {
        quick.parse(buffer, 0, limit);
        return quick.parseQuick(buffer.byteArray(), buffer.addressOffset(), 0, limit,
            buffer.capacity() - RecordView.QUICK_SLACK);
    }

    private int assertSameParse(final DirectBuffer buffer, final int limit, final String context) {
        final int expected = checked.parseChecked(buffer, 0, limit);
        final int actual = quick.parse(buffer, 0, limit);
        assertEquals(expected, actual, context + " size");
        if (expected < 0) {
            assertEquals(checked.errorField, quick.errorField, context);
            assertEquals(checked.errorValue, quick.errorValue, context);
            assertEquals(checked.errorLimit, quick.errorLimit, context);
            assertEquals(checked.errorPosition, quick.errorPosition, context);
            assertEquals(checked.errorDetail, quick.errorDetail, context);
        } else {
            assertSameFields(buffer, 0, limit, context);
        }
        return expected;
    }

    /** {@link #quick} holds a parsed record: the checked parse of the same bytes must give the same fields. */
    private void assertSameFields(final DirectBuffer buffer, final int position, final int limit, final String context) {
        final int checkedSize = checked.parseChecked(buffer, position, limit);
        assertEquals(quick.sizeInBytes(), checkedSize, context + (checkedSize < 0 ? " checked error: "
            + checked.errorField + "=" + checked.errorValue + " limit " + checked.errorLimit + " at "
            + checked.errorPosition + " " + checked.errorDetail : ""));
        assertEquals(checked.attributes(), quick.attributes(), context);
        assertEquals(checked.timestampDelta(), quick.timestampDelta(), context);
        assertEquals(checked.offsetDelta(), quick.offsetDelta(), context);
        assertEquals(checked.keyLength(), quick.keyLength(), context);
        assertEquals(checked.keyOffset(), quick.keyOffset(), context);
        assertEquals(checked.valueLength(), quick.valueLength(), context);
        assertEquals(checked.valueOffset(), quick.valueOffset(), context);
        assertEquals(checked.headerCount(), quick.headerCount(), context);
        final RecordHeader a = new RecordHeader();
        final RecordHeader b = new RecordHeader();
        while (checked.nextHeader(a)) {
            assertTrue(quick.nextHeader(b), context + " header missing");
            assertEquals(a.keyOffset(), b.keyOffset(), context);
            assertEquals(a.valueLength(), b.valueLength(), context);
        }
        assertTrue(!quick.nextHeader(b), context + " extra header");
    }

    private static UnsafeBuffer padded(final byte[] record, final int before, final int after) {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[before + record.length + after]);
        buffer.putBytes(before, record);
        return buffer;
    }

    /** The record at offset 0 of a heap, an offset heap, a direct and a raw-address buffer, slack bytes after it. */
    private static DirectBuffer[] buffers(final byte[] record, final int slack, final SplittableRandom random) {
        final int capacity = record.length + slack;
        final ByteBuffer direct = ByteBuffer.allocateDirect(capacity + 3);
        final DirectBuffer[] buffers = {
            new UnsafeBuffer(new byte[capacity]),
            new UnsafeBuffer(new byte[capacity + 5], 5, capacity),
            new UnsafeBuffer(direct, 3, capacity),
            new UnsafeBuffer(BufferUtil.address(direct) + 3, capacity),
        };
        final byte[] tail = new byte[slack];
        for (int i = 0; i < slack; i++) {
            tail[i] = interestingByte(random);
        }
        for (final DirectBuffer buffer : buffers) {
            ((MutableDirectBuffer) buffer).putBytes(0, record);
            ((MutableDirectBuffer) buffer).putBytes(record.length, tail);
        }
        return buffers;
    }

    private static byte interestingByte(final SplittableRandom random) {
        final byte[] choices = {0, 1, 2, 3, 0x0c, 0x7f, (byte) 0x80, (byte) 0x81, (byte) 0xff, (byte) 0xfe, 0x7e};
        return random.nextInt(4) == 0 ? (byte) random.nextInt(256) : choices[random.nextInt(choices.length)];
    }

    private static byte[] randomRecord(final SplittableRandom random) {
        final int[] lengths = {-1, 0, 1, 5, 63, 64, 100, 200};
        final long[] deltas = {0L, 1L, -1L, 63L, 64L, -100L, 8191L, 8192L, 1L << 20, Long.MIN_VALUE};
        final int[] offsetDeltas = {0, 1, 63, 64, 8191, 8192, Integer.MAX_VALUE};
        final byte[] record = record(deltas[random.nextInt(deltas.length)],
            offsetDeltas[random.nextInt(offsetDeltas.length)], lengths[random.nextInt(lengths.length)],
            lengths[random.nextInt(lengths.length)], random.nextInt(4) == 0 ? 1 + random.nextInt(3) : 0);
        if (random.nextInt(8) == 0) {
            return nonCanonicalLength(record);
        }
        return record;
    }

    /** The same record with its length varint re-encoded one byte longer than needed (still legal). */
    private static byte[] nonCanonicalLength(final byte[] record) {
        final UnsafeBuffer in = new UnsafeBuffer(record);
        final long packed = Varint.readVarint(in, 0, record.length);
        final int size = Varint.size(packed);
        if (size >= Varint.MAX_VARINT_LENGTH) {
            return record;
        }
        final byte[] longer = new byte[record.length + 1];
        System.arraycopy(record, 0, longer, 0, size);
        longer[size - 1] |= (byte) 0x80;
        longer[size] = 0;
        System.arraycopy(record, size, longer, size + 1, record.length - size);
        return longer;
    }

    /** A record: null or zero-filled key and value of the given lengths, and {@code headers} small headers. */
    static byte[] record(final long timestampDelta, final int offsetDelta, final int keyLength, final int valueLength,
                         final int headers) {
        final byte[] body = new byte[64 + Math.max(0, keyLength) + Math.max(0, valueLength) + headers * 16];
        final UnsafeBuffer out = new UnsafeBuffer(body);
        int p = 0;
        out.putByte(p++, (byte) 0);
        p += Varint.writeVarlong(out, p, timestampDelta);
        p += Varint.writeVarint(out, p, offsetDelta);
        p += Varint.writeVarint(out, p, keyLength);
        p += Math.max(0, keyLength);
        p += Varint.writeVarint(out, p, valueLength);
        p += Math.max(0, valueLength);
        p += Varint.writeVarint(out, p, headers);
        for (int h = 0; h < headers; h++) {
            p += Varint.writeVarint(out, p, 1);
            out.putByte(p++, (byte) 'h');
            p += Varint.writeVarint(out, p, h == 0 ? -1 : 2);
            p += h == 0 ? 0 : 2;
        }
        final byte[] record = new byte[p + 5];
        final UnsafeBuffer whole = new UnsafeBuffer(record);
        final int lengthSize = Varint.writeVarint(whole, 0, p);
        whole.putBytes(lengthSize, body, 0, p);
        final byte[] exact = new byte[lengthSize + p];
        System.arraycopy(record, 0, exact, 0, exact.length);
        return exact;
    }
}
