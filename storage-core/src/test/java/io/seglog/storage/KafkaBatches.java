package io.seglog.storage;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** Builds v2 batches with Kafka's own MemoryRecords builder (the byte-format oracle) and reads them back. */
public final class KafkaBatches {
    private KafkaBatches() {
    }

    /** One batch at {@code baseOffset} with one record per timestamp; values "v<i>", keys null. */
    public static ByteBuffer batch(final long baseOffset, final long... timestamps) {
        final SimpleRecord[] records = new SimpleRecord[timestamps.length];
        for (int i = 0; i < timestamps.length; i++) {
            records[i] = new SimpleRecord(timestamps[i], null, ("v" + i).getBytes(StandardCharsets.UTF_8));
        }
        return batch(baseOffset, records);
    }

    /** One batch at {@code baseOffset} holding the records, offsets consecutive. */
    public static ByteBuffer batch(final long baseOffset, final SimpleRecord... records) {
        return batch(baseOffset, Compression.NONE, records);
    }

    /** One batch at {@code baseOffset} holding the records, offsets consecutive, compressed by Kafka's builder. */
    public static ByteBuffer batch(final long baseOffset, final Compression compression,
                                   final SimpleRecord... records) {
        int capacity = 128;
        for (final SimpleRecord r : records) {
            capacity += 64 + (r.key() == null ? 0 : r.key().remaining()) + (r.value() == null ? 0 : r.value().remaining());
            for (final Header h : r.headers()) {
                capacity += 16 + h.key().length() + (h.value() == null ? 0 : h.value().length);
            }
        }
        final MemoryRecordsBuilder b = MemoryRecords.builder(ByteBuffer.allocate(capacity), compression,
            TimestampType.CREATE_TIME, baseOffset);
        for (final SimpleRecord r : records) {
            b.append(r);
        }
        return b.build().buffer();
    }

    /** Kafka's compression of a codec name ({@code none}, {@code gzip}, {@code snappy}, {@code lz4}, {@code zstd}). */
    public static Compression compression(final String codec) {
        switch (codec) {
            case "gzip":
                return Compression.gzip().build();
            case "snappy":
                return Compression.snappy().build();
            case "lz4":
                return Compression.lz4().build();
            case "zstd":
                return Compression.zstd().build();
            default:
                return Compression.NONE;
        }
    }

    /** A follower batch whose records sit at the given (increasing, possibly gapped) offsets. */
    public static ByteBuffer batchAtOffsets(final int leaderEpoch, final long... offsets) {
        final MemoryRecordsBuilder b = MemoryRecords.builder(ByteBuffer.allocate(256 + 64 * offsets.length),
            RecordBatch.CURRENT_MAGIC_VALUE, Compression.NONE, TimestampType.CREATE_TIME, offsets[0],
            1_000L, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false,
            leaderEpoch);
        for (final long offset : offsets) {
            b.appendWithOffset(offset, new SimpleRecord(1_000L + (offset & 0xff), null, ("o" + offset).getBytes(StandardCharsets.UTF_8)));
        }
        return b.build().buffer();
    }

    /** Concatenates buffers (from position to limit) into a new heap buffer. */
    public static ByteBuffer concat(final ByteBuffer... parts) {
        int size = 0;
        for (final ByteBuffer p : parts) {
            size += p.remaining();
        }
        final ByteBuffer all = ByteBuffer.allocate(size);
        for (final ByteBuffer p : parts) {
            all.put(p.duplicate());
        }
        return all.flip();
    }

    /** A random record: key or null, value or null, 0-2 headers, timestamp around base (out of order). */
    public static SimpleRecord randomRecord(final SplittableRandom random, final long baseTimestamp) {
        final byte[] key = random.nextInt(4) == 0 ? null : bytes(random, 1 + random.nextInt(16));
        final byte[] value = random.nextInt(8) == 0 ? null : bytes(random, random.nextInt(200));
        final Header[] headers = new Header[random.nextInt(3)];
        for (int i = 0; i < headers.length; i++) {
            headers[i] = new RecordHeader("h" + i, random.nextBoolean() ? null : bytes(random, random.nextInt(8)));
        }
        final long ts = baseTimestamp + random.nextInt(10_000) - 5_000;
        return new SimpleRecord(ts, key, value, headers);
    }

    private static byte[] bytes(final SplittableRandom random, final int n) {
        final byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) random.nextInt(256);
        }
        return b;
    }

    /** Parses whole batches from a buffer with Kafka's classes. */
    public static List<RecordBatch> batches(final ByteBuffer buffer) {
        final List<RecordBatch> out = new ArrayList<>();
        for (final RecordBatch b : MemoryRecords.readableRecords(buffer.duplicate()).batches()) {
            out.add(b);
        }
        return out;
    }

    /** All records of the buffer, via Kafka. */
    public static List<Record> records(final ByteBuffer buffer) {
        final List<Record> out = new ArrayList<>();
        for (final RecordBatch b : batches(buffer)) {
            for (final Record r : b) {
                out.add(r);
            }
        }
        return out;
    }

    /** Reads a slice's bytes into a new heap buffer. */
    public static ByteBuffer bytesOf(final LogSlice slice) throws java.io.IOException {
        final ByteBuffer buffer = ByteBuffer.allocate(slice.sizeInBytes());
        slice.readInto(buffer);
        return buffer.flip();
    }

    /**
     * The bytes of a reader's last answer, copied.
     *
     * @param reader the reader
     * @return a heap buffer ready to read
     * @throws java.io.IOException if the copy fails
     */
    public static ByteBuffer bytesOf(final LogReader reader) throws java.io.IOException {
        final ByteBuffer buffer = ByteBuffer.allocate(reader.sizeInBytes());
        reader.readInto(buffer);
        return buffer.flip();
    }
}
