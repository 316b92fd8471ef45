package io.seglog.storage.format;

import static io.seglog.storage.format.RecordBatchDescriptor.ATTRIBUTES_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BASE_SEQUENCE_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.CRC_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LENGTH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.MAGIC_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.RECORDS_COUNT_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.RECORDS_OFFSET;
import static java.nio.ByteOrder.BIG_ENDIAN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.format.RecordBatchValidator.Origin;
import java.nio.charset.StandardCharsets;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * One test per validation rule: each corrupts one field of a valid batch (fixing the CRC afterwards when the
 * rule lies behind the CRC check) and asserts the status of {@link RecordBatchValidator#checkBatch} and the
 * field, value, limit, batch index and position of the exception from {@link RecordBatchValidator#validate}.
 *
 * <p>The batches hold records of a fixed shape so the tests can address their bytes: key "k", value "vv",
 * equal timestamps, no header, giving per record {@code [len 9][attr][tsDelta 0][offsetDelta][keyLen][k]
 * [valueLen][v][v][headerCount 0]}, 10 bytes; with one header "h"="x" 4 more bytes and length 13.
 */
class RecordBatchValidatorTest {
    private static final int MAX_BATCH_BYTES = 1 << 20;
    private static final int RECORD_BYTES = 10;
    private static final int RECORD_WITH_HEADER_BYTES = 14;

    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4096]);
    private final RecordBatchValidator client = new RecordBatchValidator(MAX_BATCH_BYTES);
    private final RecordBatchValidator replication = new RecordBatchValidator(MAX_BATCH_BYTES, Origin.REPLICATION);
    private final RecordBatch batch = new RecordBatch();

    private int build(final int offset, final int records, final boolean withHeader) {
        final RecordBatchBuilder builder = new RecordBatchBuilder().wrap(buffer, offset, 2048);
        for (int i = 0; i < records; i++) {
            builder.beginRecord(1_000L, bytes("k"), bytes("vv"), withHeader ? 1 : 0);
            if (withHeader) {
                builder.header("h", bytes("x"));
            }
            builder.endRecord();
        }
        return builder.build();
    }

    private static byte[] bytes(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static int record(final int index) {
        return RECORDS_OFFSET + index * RECORD_BYTES;
    }

    private void fixCrc(final int offset) {
        batch.wrap(buffer, offset).writeCrc();
    }

    private InvalidRecordException rejects(final RecordBatchValidator validator, final int length,
        final int expectedStatus, final String field) {
        assertEquals(expectedStatus, validator.checkBatch(buffer, 0, length), validator.lastDetail());
        assertEquals(field, validator.lastField());
        final InvalidRecordException e = assertThrows(InvalidRecordException.class,
            () -> validator.validate(buffer, 0, length));
        assertEquals(field, e.field(), e.getMessage());
        assertEquals(0, e.batchIndex());
        assertEquals(validator.lastValue(), e.value());
        assertEquals(validator.lastExpected(), e.limit());
        assertTrue(e.getMessage().contains("field=" + field), e.getMessage());
        return e;
    }

    private InvalidRecordException rejects(final int length, final int expectedStatus, final String field) {
        return rejects(client, length, expectedStatus, field);
    }

    @Test
    void acceptsValidBatchesInBothOrigins() {
        final int size = build(0, 3, true);
        assertEquals(size, client.checkBatch(buffer, 0, size));
        assertEquals(size, replication.checkBatch(buffer, 0, size + 100));
        assertEquals(1, client.validate(buffer, 0, size));
        assertEquals(0, client.validate(buffer, 0, 0));
    }

    @Test
    void fewerBytesThanTheLengthFieldIsIncomplete() {
        build(0, 1, false);
        assertEquals(RecordBatchValidator.INCOMPLETE, client.checkBatch(buffer, 0, 11));
        assertEquals("batchLength", client.lastField());
        final InvalidRecordException e = assertThrows(InvalidRecordException.class,
            () -> client.validate(buffer, 0, 11));
        assertEquals("batchLength", e.field());
        assertEquals(11, e.value());
        assertEquals(12, e.limit());
    }

    @Test
    void rejectsNegativeBatchLength() {
        final int size = build(0, 1, false);
        buffer.putInt(LENGTH_OFFSET, -5, BIG_ENDIAN);
        final InvalidRecordException e = rejects(size, RecordBatchValidator.BAD_LENGTH, "batchLength");
        assertEquals(-5, e.value());
        assertEquals(49, e.limit());
        assertEquals(LENGTH_OFFSET, e.position());
    }

    @Test
    void rejectsBatchLengthBelowTheHeader() {
        final int size = build(0, 1, false);
        buffer.putInt(LENGTH_OFFSET, 48, BIG_ENDIAN);
        assertEquals(48, rejects(size, RecordBatchValidator.BAD_LENGTH, "batchLength").value());
    }

    @Test
    void rejectsBatchAboveMaxBatchBytesBeforeLookingFurther() {
        final int size = build(0, 5, false);
        final RecordBatchValidator small = new RecordBatchValidator(size - 1);
        final InvalidRecordException e = rejects(small, size, RecordBatchValidator.BAD_LENGTH, "batchLength");
        assertEquals(size - 12, e.value());
        assertEquals(size - 13, e.limit());
        // A huge length is corruption, not a torn tail, even though the bytes are not there.
        buffer.putInt(LENGTH_OFFSET, Integer.MAX_VALUE, BIG_ENDIAN);
        assertEquals(RecordBatchValidator.BAD_LENGTH, client.checkBatch(buffer, 0, size));
    }

    @Test
    void headerCutBeforeMagicIsIncomplete() {
        build(0, 1, false);
        assertEquals(RecordBatchValidator.INCOMPLETE, client.checkBatch(buffer, 0, 16));
        assertEquals("magic", client.lastField());
    }

    @Test
    void rejectsOtherMagic() {
        final int size = build(0, 1, false);
        buffer.putByte(MAGIC_OFFSET, (byte) 1);
        final InvalidRecordException e = rejects(size, RecordBatchValidator.BAD_MAGIC, "magic");
        assertEquals(1, e.value());
        assertEquals(2, e.limit());
        assertEquals(MAGIC_OFFSET, e.position());
    }

    @Test
    void batchRunningPastTheBufferIsIncompleteForRecoveryAndAnErrorForAppend() {
        final int size = build(0, 3, false);
        for (int available = 17; available < size; available++) {
            assertEquals(RecordBatchValidator.INCOMPLETE, client.checkBatch(buffer, 0, available), "available=" + available);
        }
        final InvalidRecordException e = rejects(size - 1, RecordBatchValidator.INCOMPLETE, "batchLength");
        assertEquals(size - 12, e.value());
        assertEquals(size - 13, e.limit());
    }

    @Test
    void rejectsCrcMismatchNamingExpectedAndFoundInDecimal() {
        final int size = build(0, 2, false);
        final long good = batch.wrap(buffer, 0).crc();
        buffer.putByte(record(1) + 7, (byte) 'X');
        final long computed = batch.computeCrc();
        final InvalidRecordException e = rejects(size, RecordBatchValidator.BAD_CRC, "crc");
        assertEquals(good, e.value());
        assertEquals(computed, e.limit());
        assertEquals(CRC_OFFSET, e.position());
        assertTrue(e.getMessage().contains("expected " + computed + " (computed)"), e.getMessage());
        assertTrue(e.getMessage().contains("found " + good + " (stored)"), e.getMessage());
    }

    @Test
    void rejectsUnknownCompressionCodec() {
        final int size = build(0, 1, false);
        buffer.putShort(ATTRIBUTES_OFFSET, (short) 5, BIG_ENDIAN);
        fixCrc(0);
        assertEquals(5, rejects(size, RecordBatchValidator.BAD_HEADER, "compressionCodec").value());
    }

    @Test
    void rejectsNegativeRecordCount() {
        final int size = build(0, 1, false);
        buffer.putInt(RECORDS_COUNT_OFFSET, -1, BIG_ENDIAN);
        fixCrc(0);
        final InvalidRecordException e = rejects(replication, size, RecordBatchValidator.BAD_HEADER, "recordsCount");
        assertEquals(-1, e.value());
        assertEquals(RECORDS_COUNT_OFFSET, e.position());
    }

    @Test
    void rejectsNegativeLastOffsetDelta() {
        final int size = build(0, 1, false);
        buffer.putInt(LAST_OFFSET_DELTA_OFFSET, -1, BIG_ENDIAN);
        fixCrc(0);
        rejects(replication, size, RecordBatchValidator.BAD_HEADER, "lastOffsetDelta");
    }

    @Test
    void rejectsMoreRecordsThanTheBytesCanHold() {
        final int size = build(0, 2, false);
        buffer.putInt(RECORDS_COUNT_OFFSET, 1_000_000, BIG_ENDIAN);
        buffer.putInt(LAST_OFFSET_DELTA_OFFSET, 999_999, BIG_ENDIAN);
        fixCrc(0);
        final InvalidRecordException e = rejects(size, RecordBatchValidator.BAD_HEADER, "recordsCount");
        assertEquals((size - 61) / 7, e.limit());
    }

    @Test
    void clientBatchNeedsRecords() {
        final int size = build(0, 1, false);
        buffer.putInt(RECORDS_COUNT_OFFSET, 0, BIG_ENDIAN);
        fixCrc(0);
        assertEquals(0, rejects(size, RecordBatchValidator.BAD_HEADER, "recordsCount").value());
    }

    @Test
    void clientBatchCountMustEqualLastOffsetDeltaPlusOne() {
        final int size = build(0, 3, false);
        buffer.putInt(LAST_OFFSET_DELTA_OFFSET, 5, BIG_ENDIAN);
        fixCrc(0);
        final InvalidRecordException e = rejects(size, RecordBatchValidator.BAD_HEADER, "recordsCount");
        assertEquals(3, e.value());
        assertEquals(6, e.limit());
    }

    @Test
    void idempotentClientBatchNeedsASequence() {
        final RecordBatchBuilder builder = new RecordBatchBuilder().wrap(buffer, 0, 512).producer(7L, (short) 0, -1);
        final int size = builder.appendRecord(1L, null, bytes("v")).build();
        final InvalidRecordException e = rejects(size, RecordBatchValidator.BAD_HEADER, "baseSequence");
        assertEquals(BASE_SEQUENCE_OFFSET, e.position());
        assertEquals(size, replication.checkBatch(buffer, 0, size));
    }

    @Test
    void clientRecordsMustHaveSequentialOffsetDeltas() {
        final int size = build(0, 3, false);
        buffer.putByte(record(1) + 3, (byte) (2 << 1));
        buffer.putByte(record(2) + 3, (byte) (1 << 1));
        fixCrc(0);
        final InvalidRecordException e = rejects(size, RecordBatchValidator.BAD_RECORDS, "offsetDelta");
        assertEquals(2, e.value());
        assertEquals(1, e.limit());
        assertEquals(record(1), e.position());
    }

    @Test
    void recoveryChecksTheCrcAndHeaderButDoesNotWalkRecords() {
        final RecordBatchValidator recovery = new RecordBatchValidator(MAX_BATCH_BYTES, Origin.RECOVERY);
        final int size = build(0, 3, false);
        assertEquals(size, recovery.checkBatch(buffer, 0, size), recovery.lastDetail());
        // A record-structure error that a CRC would not catch (the CRC is rewritten to match): the record
        // walk of REPLICATION finds it; RECOVERY trusts the CRC, as Kafka's LogSegment.recover does.
        buffer.putByte(record(1) + 3, (byte) (7 << 1));
        fixCrc(0);
        assertEquals(RecordBatchValidator.BAD_RECORDS, replication.checkBatch(buffer, 0, size));
        assertEquals(size, recovery.checkBatch(buffer, 0, size), recovery.lastDetail());
        // Any byte changed behind the CRC is caught, as are header rules and a torn tail.
        buffer.putByte(record(2) + 5, (byte) (buffer.getByte(record(2) + 5) ^ 0x40));
        assertEquals(RecordBatchValidator.BAD_CRC, recovery.checkBatch(buffer, 0, size));
        assertEquals(RecordBatchValidator.INCOMPLETE, recovery.checkBatch(buffer, 0, size - 1));
        fixCrc(0);
        buffer.putInt(RECORDS_COUNT_OFFSET, -1, BIG_ENDIAN);
        fixCrc(0);
        assertEquals(RecordBatchValidator.BAD_HEADER, recovery.checkBatch(buffer, 0, size));
    }

    @Test
    void replicationAcceptsCompactedBatchButNotDisorderedOrExcessDeltas() {
        final int size = build(0, 3, false);
        // As compaction leaves it: records at deltas 0, 2, 5 of a batch whose lastOffsetDelta stays 5.
        buffer.putByte(record(1) + 3, (byte) (2 << 1));
        buffer.putByte(record(2) + 3, (byte) (5 << 1));
        buffer.putInt(LAST_OFFSET_DELTA_OFFSET, 5, BIG_ENDIAN);
        fixCrc(0);
        assertEquals(size, replication.checkBatch(buffer, 0, size), replication.lastDetail());
        assertEquals(RecordBatchValidator.BAD_HEADER, client.checkBatch(buffer, 0, size));

        buffer.putByte(record(2) + 3, (byte) (6 << 1));
        fixCrc(0);
        assertEquals(6, rejects(replication, size, RecordBatchValidator.BAD_RECORDS, "offsetDelta").value());
        buffer.putByte(record(2) + 3, (byte) (2 << 1));
        fixCrc(0);
        assertEquals(3, rejects(replication, size, RecordBatchValidator.BAD_RECORDS, "offsetDelta").limit());

        buffer.putInt(LAST_OFFSET_DELTA_OFFSET, 1, BIG_ENDIAN);
        fixCrc(0);
        assertEquals(2, rejects(replication, size, RecordBatchValidator.BAD_HEADER, "recordsCount").limit());
    }

    @Test
    void rejectsOverlongRecordLengthVarint() {
        final int size = build(0, 2, false);
        for (int i = 0; i < 6; i++) {
            buffer.putByte(record(0) + i, (byte) 0x80);
        }
        fixCrc(0);
        final InvalidRecordException e = rejects(size, RecordBatchValidator.BAD_RECORDS, "length");
        assertEquals(5, e.limit());
        assertEquals(6, e.value());
        assertEquals(record(0), e.position());
    }

    @Test
    void rejectsRecordRunningPastTheBatch() {
        final int size = build(0, 2, false);
        buffer.putByte(record(1), (byte) (20 << 1));
        fixCrc(0);
        final InvalidRecordException e = rejects(size, RecordBatchValidator.BAD_RECORDS, "length");
        assertEquals(20, e.value());
        assertEquals(RECORD_BYTES - 1, e.limit());
        assertEquals(record(1), e.position());
    }

    @Test
    void rejectsRecordLengthBelowTheMinimum() {
        final int size = build(0, 1, false);
        buffer.putByte(record(0), (byte) (5 << 1));
        fixCrc(0);
        assertEquals(5, rejects(size, RecordBatchValidator.BAD_RECORDS, "length").value());
    }

    @Test
    void rejectsOverlongTimestampDelta() {
        final int size = build(0, 1, false);
        // Body: attributes then ten continuation bytes where the timestamp delta starts.
        buffer.putByte(record(0), (byte) (12 << 1));
        for (int i = 0; i < 11; i++) {
            buffer.putByte(record(0) + 2 + i, (byte) 0x80);
        }
        buffer.putInt(LENGTH_OFFSET, 49 + 13, BIG_ENDIAN);
        fixCrc(0);
        final InvalidRecordException e = rejects(size + 3, RecordBatchValidator.BAD_RECORDS, "timestampDelta");
        assertEquals(10, e.limit());
        assertEquals(11, e.value());
    }

    @Test
    void rejectsKeyLengthBelowMinusOne() {
        final int size = build(0, 1, false);
        buffer.putByte(record(0) + 4, (byte) 3); // zig-zag 3 = -2
        fixCrc(0);
        assertEquals(-2, rejects(size, RecordBatchValidator.BAD_RECORDS, "keyLength").value());
    }

    @Test
    void rejectsKeyRunningPastTheRecord() {
        final int size = build(0, 1, false);
        buffer.putByte(record(0) + 4, (byte) (6 << 1));
        fixCrc(0);
        final InvalidRecordException e = rejects(size, RecordBatchValidator.BAD_RECORDS, "keyLength");
        assertEquals(6, e.value());
        assertEquals(5, e.limit());
        assertEquals(record(0) + 4, e.position());
    }

    @Test
    void rejectsValueRunningPastTheRecord() {
        final int size = build(0, 1, false);
        buffer.putByte(record(0) + 6, (byte) (4 << 1));
        fixCrc(0);
        final InvalidRecordException e = rejects(size, RecordBatchValidator.BAD_RECORDS, "valueLength");
        assertEquals(4, e.value());
        assertEquals(3, e.limit()); // the value's 2 bytes and the header count's 1
    }

    @Test
    void rejectsNegativeHeaderCount() {
        final int size = build(0, 1, false);
        buffer.putByte(record(0) + 9, (byte) 1); // zig-zag 1 = -1
        fixCrc(0);
        assertEquals(-1, rejects(size, RecordBatchValidator.BAD_RECORDS, "headerCount").value());
    }

    @Test
    void rejectsHeaderCountTheRecordCannotHold() {
        final int size = build(0, 1, true);
        buffer.putByte(record(0) + 9, (byte) (3 << 1));
        fixCrc(0);
        final InvalidRecordException e = rejects(size, RecordBatchValidator.BAD_RECORDS, "headerCount");
        assertEquals(3, e.value());
        assertEquals(2, e.limit());
    }

    @Test
    void rejectsNegativeHeaderKeyLength() {
        final int size = build(0, 1, true);
        buffer.putByte(record(0) + 10, (byte) 1);
        fixCrc(0);
        assertEquals(-1, rejects(size, RecordBatchValidator.BAD_RECORDS, "headerKeyLength").value());
    }

    @Test
    void rejectsHeaderValueRunningPastTheRecord() {
        final int size = build(0, 1, true);
        buffer.putByte(record(0) + 12, (byte) (2 << 1));
        fixCrc(0);
        final InvalidRecordException e = rejects(size, RecordBatchValidator.BAD_RECORDS, "headerValueLength");
        assertEquals(2, e.value());
        assertEquals(1, e.limit());
        assertEquals(record(0) + 12, e.position());
        buffer.putByte(record(0) + 12, (byte) 3); // -2
        fixCrc(0);
        assertEquals(-2, rejects(size, RecordBatchValidator.BAD_RECORDS, "headerValueLength").value());
        assertEquals(RECORD_WITH_HEADER_BYTES, build(0, 1, true) - RECORDS_OFFSET);
    }

    @Test
    void rejectsRecordLengthThatDisagreesWithItsFields() {
        final int size = build(0, 2, false);
        // RecordView 0 claims 8 body bytes but its fields take 9: the header count lies past the claimed end.
        buffer.putByte(record(0), (byte) (8 << 1));
        fixCrc(0);
        final InvalidRecordException e = rejects(size, RecordBatchValidator.BAD_RECORDS, "headerCount");
        assertEquals(record(0) + 9, e.position());
        // Claiming 10 with one spare byte: the fields end before the record does.
        final int size2 = build(0, 1, false);
        buffer.putByte(record(0), (byte) (10 << 1));
        buffer.putByte(record(0) + RECORD_BYTES, (byte) 0);
        buffer.putInt(LENGTH_OFFSET, size2 - 12 + 1, BIG_ENDIAN);
        fixCrc(0);
        final InvalidRecordException e2 = rejects(size2 + 1, RecordBatchValidator.BAD_RECORDS, "length");
        assertEquals(10, e2.value());
        assertEquals(9, e2.limit());
    }

    @Test
    void rejectsTrailingBytesAfterTheLastRecord() {
        final int size = build(0, 2, false);
        buffer.putInt(LENGTH_OFFSET, size - 12 + 3, BIG_ENDIAN);
        fixCrc(0);
        final InvalidRecordException e = rejects(size + 3, RecordBatchValidator.BAD_RECORDS, "batchLength");
        assertEquals(size - 12 + 3, e.value());
        assertEquals(size - 12, e.limit());
    }

    @Test
    void badSecondBatchRejectsTheWholeCallNamingItsIndexAndPosition() {
        final int first = build(0, 2, false);
        final int second = build(first, 3, false);
        final int third = build(first + second, 1, false);
        final int total = first + second + third;
        assertEquals(3, client.validate(buffer, 0, total));
        buffer.putByte(first + RECORDS_OFFSET + RECORD_BYTES + 7, (byte) 'Z');
        final InvalidRecordException e = assertThrows(InvalidRecordException.class,
            () -> client.validate(buffer, 0, total));
        assertEquals(1, e.batchIndex());
        assertEquals("crc", e.field());
        assertEquals(first + CRC_OFFSET, e.position());
        assertTrue(e.getMessage().contains("batchIndex=1"), e.getMessage());
        assertTrue(e.getMessage().contains("position=" + (first + CRC_OFFSET)), e.getMessage());
    }

    @Test
    void regionWithATornLastBatchIsRejected() {
        final int first = build(0, 2, false);
        final int second = build(first, 2, false);
        final InvalidRecordException e = assertThrows(InvalidRecordException.class,
            () -> client.validate(buffer, 0, first + second - 1));
        assertEquals(1, e.batchIndex());
        assertEquals("batchLength", e.field());
    }

    @Test
    void compressedClientBatchIsDecompressedAndAReplicatedOneAcceptedOnItsHeader() {
        final int size = new RecordBatchBuilder().wrap(buffer, 0, 512).compressionCodecFlag(4)
            .appendRecord(1L, null, bytes("not really zstd")).build();
        final InvalidRecordException e = assertThrows(InvalidRecordException.class,
            () -> client.validate(buffer, 0, size));
        assertEquals("records", e.field());
        assertTrue(e.getMessage().contains("zstd"), e.getMessage());
        final RecordBatchValidator follower = new RecordBatchValidator(4096, RecordBatchValidator.Origin.REPLICATION);
        assertEquals(size, follower.checkBatch(buffer, 0, size));
    }

    @Test
    void rejectsRegionOutsideTheBuffer() {
        assertThrows(IllegalArgumentException.class, () -> client.validate(buffer, 4000, 100));
        assertThrows(IllegalArgumentException.class, () -> client.checkBatch(buffer, -1, 10));
        assertThrows(IllegalArgumentException.class, () -> new RecordBatchValidator(60));
    }
}
