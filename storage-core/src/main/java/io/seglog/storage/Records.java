package io.seglog.storage;

import io.seglog.storage.format.BatchRecordReader;
import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchDescriptor;
import io.seglog.storage.format.RecordBatchValidator;
import io.seglog.storage.format.RecordHeader;
import io.seglog.storage.format.RecordView;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Builds and reads records without touching Agrona: {@link #builder()} makes a Kafka v2 batch from plain keys and
 * values, ready for {@link PartitionLog#appendAsLeader}; the reading side gives the batches and records of a
 * {@link LogSlice}, of a buffer of whole v2 batches, or of an offset range of a {@link PartitionLog}, with keys,
 * values and headers as read-only {@link ByteBuffer} views. This is the convenient path and allocates per record; the allocation-free path is the
 * {@code format} package's flyweights over a {@link LogReader}'s bytes.
 *
 * <p>Every batch is checked before its records are read (lengths, record structure; the CRC too), so damage gives
 * an {@link InvalidRecordException} naming the field and position, never a wrong record. Compressed batches are
 * decompressed (bounded by {@link RecordBatchValidator#DEFAULT_MAX_DECOMPRESSED_BYTES}); their records' views point
 * into a copy of the decompressed bytes.
 *
 * <p>Stateless; the iterables it returns are not thread-safe.
 */
public final class Records {
    /** Bytes one step of {@link #of(PartitionLog, long, long)} reads: a few large batches, bounded memory. */
    static final int READ_STEP_BYTES = 1 << 20;

    private Records() {
    }

    /**
     * A builder of one uncompressed Kafka v2 batch from plain keys and values:
     * {@code Records.builder().add(ts, key, value).add(ts, null, value).build()}. The batch's offsets and leader epoch
     * are assigned by the log that appends it.
     *
     * @return an empty builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Collects records and builds one v2 batch of them (the convenient path: it copies and allocates; the
     * allocation-free one is {@link io.seglog.storage.format.RecordBatchBuilder} over a reused buffer). Not
     * thread-safe; {@link #build()} may be called more than once.
     */
    public static final class Builder {
        private final org.agrona.collections.LongArrayList timestamps = new org.agrona.collections.LongArrayList();
        private final List<byte[]> keys = new ArrayList<>();
        private final List<byte[]> values = new ArrayList<>();

        private Builder() {
        }

        /**
         * Adds a record.
         *
         * @param timestampMs its timestamp (Kafka's CreateTime), milliseconds since the epoch
         * @param key         its key, or null
         * @param value       its value, or null (a tombstone in a compacted topic)
         * @return this builder
         */
        public Builder add(final long timestampMs, final byte[] key, final byte[] value) {
            timestamps.addLong(timestampMs);
            keys.add(key);
            values.add(value);
            return this;
        }

        /**
         * The batch: a heap buffer holding exactly it, positioned at 0.
         *
         * @return the batch
         * @throws IllegalStateException when no record was added (Kafka has no empty batch)
         */
        public ByteBuffer build() {
            if (values.isEmpty()) {
                throw new IllegalStateException("records=0: a batch needs at least one record (add(...) first)");
            }
            final UnsafeBuffer batch = io.seglog.storage.format.RecordBatchBuilder.batchOf(0, timestamps.toLongArray(),
                keys.toArray(new byte[0][]), values.toArray(new byte[0][]));
            return ByteBuffer.wrap(batch.byteArray(), 0, batch.capacity()).slice();
        }
    }

    /**
     * The batches of a slice, read from its segment.
     *
     * @param slice the slice
     * @return its batches, in order
     * @throws StorageException if the bytes cannot be read
     * @throws InvalidRecordException if a batch is damaged
     */
    public static List<LogBatch> batches(final LogSlice slice) {
        final ByteBuffer bytes = ByteBuffer.allocate(slice.sizeInBytes());
        try {
            slice.readInto(bytes);
        } catch (final IOException e) {
            throw new StorageException("reading a slice failed: " + e.getMessage(), null, e);
        }
        return batches(bytes.flip());
    }

    /**
     * The batches in {@code [position, limit)} of a buffer of whole v2 batches (a fetch response, a slice's bytes).
     * The buffer is not modified; the views point into it.
     *
     * @param bytes the batches
     * @return the batches, in order
     * @throws InvalidRecordException if a batch is damaged or cut short
     */
    public static List<LogBatch> batches(final ByteBuffer bytes) {
        final ByteBuffer source = bytes.asReadOnlyBuffer();
        final UnsafeBuffer view = new UnsafeBuffer(source, source.position(), source.remaining());
        final RecordBatch batch = new RecordBatch();
        final RecordView record = new RecordView();
        final RecordHeader header = new RecordHeader();
        final List<LogBatch> out = new ArrayList<>();
        BatchRecordReader reader = null;
        int index = 0;
        for (int at = 0; at < view.capacity(); index++) {
            if (view.capacity() - at < RecordBatchDescriptor.BATCH_HEADER_LENGTH) {
                throw new InvalidRecordException("batchLength", view.capacity() - at,
                    RecordBatchDescriptor.BATCH_HEADER_LENGTH, index, source.position() + at,
                    "a partial batch header at the end of the bytes");
            }
            batch.wrap(view, at);
            if (batch.sizeInBytes() > view.capacity() - at || batch.sizeInBytes() < RecordBatchDescriptor.BATCH_HEADER_LENGTH) {
                throw new InvalidRecordException("batchLength", batch.sizeInBytes(), view.capacity() - at, index,
                    source.position() + at, "the batch does not fit the bytes");
            }
            if (!batch.isCrcValid()) {
                throw new InvalidRecordException("crc", batch.crc(), batch.computeCrc(), index,
                    source.position() + at, "CRC-32C mismatch");
            }
            final List<LogRecord> records = new ArrayList<>(Math.max(0, batch.recordCount()));
            if (batch.isCompressed()) {
                if (reader == null) {
                    reader = new BatchRecordReader(RecordBatchValidator.DEFAULT_MAX_DECOMPRESSED_BYTES);
                }
                try {
                    reader.open(batch);
                } catch (final InvalidRecordException e) {
                    reader.close();
                    throw new InvalidRecordException(e.field(), e.value(), e.limit(), index, source.position() + at,
                        "a compressed batch cannot be read: " + e.getMessage());
                }
                // The reader's buffer is reused by the next batch: the records' views point into a copy of it.
                final ByteBuffer plain = ByteBuffer.allocate(reader.recordsBytes());
                reader.buffer().getBytes(0, plain, 0, plain.capacity());
                plain.clear();
                while (reader.next(record)) {
                    records.add(toRecord(plain.asReadOnlyBuffer(), record, header));
                }
            } else {
                while (batch.nextRecord(record)) {
                    records.add(toRecord(source, record, header));
                }
            }
            out.add(new LogBatch(batch.baseOffset(), batch.lastOffset(), batch.partitionLeaderEpoch(),
                batch.maxTimestamp(), batch.isLogAppendTime(), batch.isControl(), records));
            at += batch.sizeInBytes();
        }
        if (reader != null) {
            reader.close();
        }
        return out;
    }

    private static LogRecord toRecord(final ByteBuffer source, final RecordView record, final RecordHeader header) {
        final int base = source.position();
        final ByteBuffer key = record.keyLength() < 0 ? null : view(source, base + record.keyOffset(), record.keyLength());
        final ByteBuffer value = record.valueLength() < 0 ? null
            : view(source, base + record.valueOffset(), record.valueLength());
        final List<LogRecord.Header> headers = new ArrayList<>(record.headerCount());
        while (record.nextHeader(header)) {
            headers.add(new LogRecord.Header(header.key(), header.valueLength() < 0 ? null
                : view(source, base + header.valueOffset(), header.valueLength())));
        }
        return new LogRecord(record.offset(), record.timestamp(), key, value, headers);
    }

    private static ByteBuffer view(final ByteBuffer source, final int at, final int length) {
        return source.duplicate().position(at).limit(at + length).slice().asReadOnlyBuffer();
    }

    /**
     * The records of a log from {@code fromOffset} (inclusive) to {@code toOffset} (exclusive, bounded by the log
     * end), read a megabyte of whole batches at a time when the iteration reaches them. Records below
     * {@code fromOffset} that share its batch are skipped, as Kafka's consumers skip them.
     *
     * @param log        the log
     * @param fromOffset the first offset wanted, at least the log start
     * @param toOffset   the bound, e.g. the high watermark
     * @return the records, in offset order
     * @throws OffsetOutOfRangeException when the iteration starts if {@code fromOffset} is outside the log
     * @throws StorageException if a read fails while iterating
     */
    public static Iterable<LogRecord> of(final PartitionLog log, final long fromOffset, final long toOffset) {
        return () -> new RangeIterator(log.reader(), fromOffset, toOffset);
    }

    /** Reads the range step by step, one reader and one buffer per iteration. */
    private static final class RangeIterator implements Iterator<LogRecord> {
        private final LogReader reader;
        private final long toOffset;
        private long nextOffset;
        /** The offset after the last batch read. */
        private long stepEnd;
        private Iterator<LogRecord> step = List.<LogRecord>of().iterator();
        private LogRecord next;

        RangeIterator(final LogReader reader, final long fromOffset, final long toOffset) {
            this.reader = reader;
            this.nextOffset = fromOffset;
            this.toOffset = toOffset;
            advance();
        }

        private void advance() {
            next = null;
            while (true) {
                while (step.hasNext()) {
                    final LogRecord candidate = step.next();
                    if (candidate.offset() >= toOffset) {
                        return;
                    }
                    if (candidate.offset() >= nextOffset) {
                        next = candidate;
                        nextOffset = candidate.offset() + 1;
                        return;
                    }
                }
                // The step is used up: what follows starts after its last batch (compaction may leave gaps).
                nextOffset = Math.max(nextOffset, stepEnd);
                // Bounded by the log end, not by toOffset: the batch holding toOffset - 1 may end past it, and its
                // records below toOffset are wanted (the filter above drops the rest).
                if (nextOffset >= toOffset || !reader.read(nextOffset, READ_STEP_BYTES, Long.MAX_VALUE, true)) {
                    return;
                }
                final List<LogRecord> records = new ArrayList<>();
                for (final LogBatch batch : batches(reader.slice())) {
                    records.addAll(batch.records());
                    stepEnd = batch.lastOffset() + 1;
                }
                step = records.iterator();
            }
        }

        @Override
        public boolean hasNext() {
            return next != null;
        }

        @Override
        public LogRecord next() {
            if (next == null) {
                throw new NoSuchElementException("no record at or after offset " + nextOffset + " below " + toOffset);
            }
            final LogRecord current = next;
            advance();
            return current;
        }
    }
}
