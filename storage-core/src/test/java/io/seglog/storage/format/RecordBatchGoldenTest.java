package io.seglog.storage.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.junit.jupiter.api.Test;

/**
 * The exact bytes of a small fixed batch, field by field: two records, the first with key "k1" and value
 * "v1" at 1_700_000_000_000 ms, the second with a null key, value "v2", one header h=x, 5 ms later. Kafka's
 * builder must produce the same bytes, so this dump is also the format's reference example in docs/format.md.
 */
class RecordBatchGoldenTest {
    private static final String GOLDEN =
        // ---- batch header (61 bytes) ----
        "0000000000000000"      // baseOffset            0
        + "00000049"            // batchLength           73 (85 - 12)
        + "ffffffff"            // partitionLeaderEpoch  -1 (not stamped)
        + "02"                  // magic                 2
        + "6a8990a3"            // crc                   CRC-32C of bytes 21..84
        + "0000"                // attributes            no codec, create time, not transactional, not control
        + "00000001"            // lastOffsetDelta       1
        + "0000018bcfe56800"    // baseTimestamp         1_700_000_000_000 (first record)
        + "0000018bcfe56805"    // maxTimestamp          1_700_000_000_005
        + "ffffffffffffffff"    // producerId            -1
        + "ffff"                // producerEpoch         -1
        + "ffffffff"            // baseSequence          -1
        + "00000002"            // recordsCount          2
        // ---- record 0 (11 bytes) ----
        + "14"                  // length                varint 10
        + "00"                  // attributes            0
        + "00"                  // timestampDelta        varlong 0
        + "00"                  // offsetDelta           varint 0
        + "04" + "6b31"         // keyLength 2, key      "k1"
        + "04" + "7631"         // valueLength 2, value  "v1"
        + "00"                  // headerCount           0
        // ---- record 1 (13 bytes) ----
        + "18"                  // length                varint 12
        + "00"                  // attributes            0
        + "0a"                  // timestampDelta        varlong 5
        + "02"                  // offsetDelta           varint 1
        + "01"                  // keyLength             varint -1 (null key)
        + "04" + "7632"         // valueLength 2, value  "v2"
        + "02"                  // headerCount           1
        + "02" + "68"           // headerKeyLength 1, key "h"
        + "02" + "78";          // headerValueLength 1, value "x"

    private static final long TIMESTAMP = 1_700_000_000_000L;

    @Test
    void builderWritesTheGoldenBytes() {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        final int size = new RecordBatchBuilder().wrap(buffer, 0, 256)
            .appendRecord(TIMESTAMP, bytes("k1"), bytes("v1"))
            .beginRecord(TIMESTAMP + 5, null, bytes("v2"), 1).header("h", bytes("x")).endRecord()
            .build();
        final byte[] golden = HexFormat.of().parseHex(GOLDEN);
        assertEquals(85, golden.length);
        assertEquals(golden.length, size);
        final byte[] actual = new byte[size];
        buffer.getBytes(0, actual);
        assertEquals(GOLDEN, HexFormat.of().formatHex(actual));
    }

    @Test
    void kafkaWritesTheGoldenBytes() {
        final MemoryRecordsBuilder kafka = MemoryRecords.builder(ByteBuffer.allocate(256), Compression.NONE,
            TimestampType.CREATE_TIME, 0L);
        kafka.append(TIMESTAMP, bytes("k1"), bytes("v1"));
        kafka.append(TIMESTAMP + 5, null, bytes("v2"), new Header[] {new RecordHeader("h", bytes("x"))});
        final ByteBuffer out = kafka.build().buffer();
        final byte[] actual = new byte[out.remaining()];
        out.get(actual);
        assertEquals(GOLDEN, HexFormat.of().formatHex(actual));
    }

    @Test
    void flyweightReadsTheGoldenBytes() {
        final UnsafeBuffer buffer = new UnsafeBuffer(HexFormat.of().parseHex(GOLDEN));
        assertEquals(85, new RecordBatchValidator(1024).checkBatch(buffer, 0, 85));
        final RecordBatch batch = new RecordBatch().wrap(buffer, 0);
        assertEquals(0x6a8990a3L, batch.crc());
        assertEquals(0x6a8990a3L, batch.computeCrc());
        assertEquals(TIMESTAMP, batch.baseTimestamp());
        assertEquals(TIMESTAMP + 5, batch.maxTimestamp());
        final RecordView record = new RecordView();
        final io.seglog.storage.format.RecordHeader header = new io.seglog.storage.format.RecordHeader();
        assertTrue(batch.nextRecord(record));
        assertEquals(0L, record.offset());
        assertEquals(61, record.startIndex());
        assertEquals(11, record.sizeInBytes());
        assertArrayEquals(bytes("k1"), record.keyBytes());
        assertEquals(66, record.keyOffset());
        assertTrue(batch.nextRecord(record));
        assertEquals(1L, record.offset());
        assertEquals(TIMESTAMP + 5, record.timestamp());
        assertEquals(-1, record.keyLength());
        assertArrayEquals(bytes("v2"), record.valueBytes());
        assertTrue(record.nextHeader(header));
        assertEquals("h", header.key());
        assertArrayEquals(bytes("x"), header.valueBytes());
        assertFalse(batch.nextRecord(record));
    }

    private static byte[] bytes(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
