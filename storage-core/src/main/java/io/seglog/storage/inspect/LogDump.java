package io.seglog.storage.inspect;

import io.seglog.storage.checkpoint.CorruptCheckpointException;
import io.seglog.storage.checkpoint.EpochEntry;
import io.seglog.storage.checkpoint.LeaderEpochCheckpointFile;
import io.seglog.storage.checkpoint.PartitionMetadataFile;
import io.seglog.storage.format.BatchRecordReader;
import io.seglog.storage.format.CompressionType;
import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchDescriptor;
import io.seglog.storage.format.RecordHeader;
import io.seglog.storage.format.RecordView;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.producer.ProducerSnapshotDescriptor;
import io.seglog.storage.producer.ProducerSnapshots;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Prints what a log directory's files hold, line for line in the shape of Kafka's {@code kafka-dump-log}, so that an
 * operator can compare the two: batches (and with deep iteration, records) of {@code .log} files, entries of
 * {@code .index}, {@code .timeindex} and {@code .txnindex} files, producers of {@code .snapshot} files, and, which
 * Kafka's tool does not read, the leader-epoch checkpoint and {@code partition.metadata}. Every file is opened for
 * reading only.
 *
 * <p>A batch is read whole only for deep iteration, and only up to {@link Options#maxBatchBytes()}; a longer one is
 * printed at batch level with a note. Reading stops at the first batch that cannot be framed, and the bytes from there
 * on are counted as Kafka's tool counts them ("Found N invalid bytes at the end of ...").
 */
public final class LogDump {
    private static final String RECORD_INDENT = "|";
    private static final int TXN_ENTRY = 34;
    private static final String[] CONTROL_TYPES = {"ABORT", "COMMIT", "LEADER_CHANGE", "SNAPSHOT_HEADER",
        "SNAPSHOT_FOOTER", "KRAFT_VERSION", "KRAFT_VOTERS"};

    /** How keys and values are printed with {@link Options#printData()}. */
    public enum Decoder {
        /** As UTF-8 text (Kafka's default {@code StringDecoder}). */
        STRING,
        /** As hexadecimal digits. */
        HEX
    }

    /**
     * What to print.
     *
     * @param deepIteration every record of each batch, not only the batch (Kafka's {@code --deep-iteration})
     * @param printData     each record's key and value too (Kafka's {@code --print-data-log}; implies deep iteration)
     * @param decoder       how keys and values are printed
     * @param maxBatchBytes the largest batch read whole for deep iteration
     */
    public record Options(boolean deepIteration, boolean printData, Decoder decoder, int maxBatchBytes) {
        /**
         * Checks the fields.
         *
         * @param deepIteration every record
         * @param printData     keys and values too
         * @param decoder       how they are printed
         * @param maxBatchBytes the largest batch read whole, at least the batch header
         */
        public Options {
            Objects.requireNonNull(decoder, "decoder");
            if (maxBatchBytes < RecordBatchDescriptor.BATCH_HEADER_LENGTH) {
                throw new IllegalArgumentException("maxBatchBytes " + maxBatchBytes + " is below a batch header ("
                    + RecordBatchDescriptor.BATCH_HEADER_LENGTH + " bytes)");
            }
        }

        /**
         * Batches only, as Kafka's tool prints by default.
         *
         * @return the options
         */
        public static Options batches() {
            return new Options(false, false, Decoder.STRING, 64 * 1024 * 1024);
        }
    }

    private final Options options;
    private final PrintWriter out;
    private final PrintWriter err;
    private final FileBytes fileBytes = new FileBytes();
    private final ByteBuffer header = ByteBuffer.allocate(RecordBatchDescriptor.BATCH_HEADER_LENGTH);
    private final RecordBatch batch = new RecordBatch();
    private final RecordView record = new RecordView();
    private final RecordHeader recordHeader = new RecordHeader();
    private final UnsafeBuffer batchBuffer = new UnsafeBuffer(0, 0);
    private ByteBuffer batchBytes = ByteBuffer.allocate(0);

    private LogDump(final Options options, final PrintWriter out, final PrintWriter err) {
        this.options = Objects.requireNonNull(options, "options");
        this.out = Objects.requireNonNull(out, "out");
        this.err = Objects.requireNonNull(err, "err");
    }

    /**
     * Dumps files, and each file of a directory given that this tool reads, in name order.
     *
     * @param paths   files, or partition directories
     * @param options what to print
     * @param out     where the dump goes
     * @param err     where files that cannot be read or are not known are reported
     * @return whether every file could be read in full (false when any was unknown, unreadable or damaged)
     */
    public static boolean dump(final List<Path> paths, final Options options, final PrintWriter out,
                               final PrintWriter err) {
        final LogDump dump = new LogDump(options, out, err);
        boolean clean = true;
        try (BatchRecordReader reader = new BatchRecordReader(options.maxBatchBytes())) {
            for (final Path path : paths) {
                for (final Path file : expand(path, err)) {
                    clean &= dump.dumpFile(file, reader);
                }
            }
        }
        return clean;
    }

    private static List<Path> expand(final Path path, final PrintWriter err) {
        if (!Files.isDirectory(path)) {
            return List.of(path);
        }
        final List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> children = Files.newDirectoryStream(path,
            f -> Files.isRegularFile(f) && known(f.getFileName().toString()))) {
            children.forEach(files::add);
        } catch (final IOException e) {
            err.println("Cannot list " + path + ": " + e);
        }
        files.sort(null);
        return files;
    }

    /** Whether a file in a partition directory is one this tool reads (a directory's lock and temp files are not). */
    private static boolean known(final String name) {
        return name.endsWith(".log") || name.endsWith(".index") || name.endsWith(".timeindex")
            || name.endsWith(".txnindex") || name.endsWith(ProducerSnapshotDescriptor.SUFFIX)
            || name.equals(LeaderEpochCheckpointFile.FILE_NAME) || name.equals(PartitionMetadataFile.FILE_NAME);
    }

    private boolean dumpFile(final Path file, final BatchRecordReader reader) {
        final String name = file.getFileName().toString();
        out.println("Dumping " + file);
        try {
            if (name.endsWith(".log")) {
                return dumpLog(file, name, reader);
            } else if (name.endsWith(".index")) {
                return dumpIndex(file, false);
            } else if (name.endsWith(".timeindex")) {
                return dumpIndex(file, true);
            } else if (name.endsWith(".txnindex")) {
                return dumpTxnIndex(file);
            } else if (name.endsWith(ProducerSnapshotDescriptor.SUFFIX)) {
                ProducerSnapshots.describe(FileIO.system(), file).forEach(out::println);
                return true;
            } else if (name.equals(LeaderEpochCheckpointFile.FILE_NAME)) {
                for (final EpochEntry e : new LeaderEpochCheckpointFile(FileIO.system(), file).read()) {
                    out.println("epoch: " + e.epoch() + " startOffset: " + e.startOffset());
                }
                return true;
            } else if (name.equals(PartitionMetadataFile.FILE_NAME)) {
                out.println("topicId: " + PartitionMetadataFile.open(FileIO.system(), file.getParent(), false)
                    .topicId().map(PartitionMetadataFile::idToText).orElse("none"));
                return true;
            }
            err.println("Ignoring unknown file " + file);
            return false;
        } catch (final IOException | CorruptCheckpointException e) {
            err.println(file + ": " + e.getMessage());
            return false;
        }
    }

    // -------------------------------------------------------------------------------------------------- log

    private boolean dumpLog(final Path file, final String name, final BatchRecordReader reader) throws IOException {
        final long start = FileBytes.offsetOf(name);
        out.println("Log starting offset: " + (start >= 0 ? Long.toString(start) : name));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            final long size = channel.size();
            long position = 0;
            boolean clean = true;
            while (size - position >= RecordBatchDescriptor.LOG_OVERHEAD) {
                header.clear().limit((int) Math.min(header.capacity(), size - position));
                FileBytes.readFully(channel, header, position);
                final int length = header.getInt(RecordBatchDescriptor.LENGTH_OFFSET);
                if (header.limit() < RecordBatchDescriptor.BATCH_HEADER_LENGTH
                    || length < RecordBatchDescriptor.BATCH_HEADER_LENGTH - RecordBatchDescriptor.LOG_OVERHEAD
                    || length > size - position - RecordBatchDescriptor.LOG_OVERHEAD
                    || header.get(RecordBatchDescriptor.MAGIC_OFFSET) != RecordBatchDescriptor.MAGIC_V2) {
                    break;
                }
                final long end = position + RecordBatchDescriptor.LOG_OVERHEAD + length;
                final long stored = Integer.toUnsignedLong(header.getInt(RecordBatchDescriptor.CRC_OFFSET));
                final boolean valid = stored == fileBytes.crc32c(channel,
                    position + RecordBatchDescriptor.ATTRIBUTES_OFFSET, end);
                printBatch(position, length, stored, valid);
                if (options.deepIteration() || options.printData()) {
                    clean &= printRecords(channel, position, length, reader);
                }
                clean &= valid;
                position = end;
            }
            final long trailing = size - position;
            if (trailing > 0 && fileBytes.allZero(channel, position, size)) {
                out.println("Found " + trailing + " preallocated zero bytes at the end of " + name);
            } else if (trailing > 0) {
                out.println("Found " + trailing + " invalid bytes at the end of " + name);
                return false;
            }
            return clean;
        }
    }

    private void printBatch(final long position, final int length, final long crc, final boolean valid) {
        final ByteBuffer h = header;
        final long base = h.getLong(RecordBatchDescriptor.BASE_OFFSET_OFFSET);
        final int lastDelta = h.getInt(RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET);
        final short attributes = h.getShort(RecordBatchDescriptor.ATTRIBUTES_OFFSET);
        final int baseSequence = h.getInt(RecordBatchDescriptor.BASE_SEQUENCE_OFFSET);
        final boolean deleteHorizon = (attributes & RecordBatchDescriptor.DELETE_HORIZON_FLAG_MASK) != 0;
        final int codec = attributes & RecordBatchDescriptor.COMPRESSION_CODEC_MASK;
        out.println("baseOffset: " + base + " lastOffset: " + (base + lastDelta)
            + " count: " + h.getInt(RecordBatchDescriptor.RECORDS_COUNT_OFFSET)
            + " baseSequence: " + baseSequence + " lastSequence: " + sequenceAt(baseSequence, lastDelta)
            + " producerId: " + h.getLong(RecordBatchDescriptor.PRODUCER_ID_OFFSET)
            + " producerEpoch: " + h.getShort(RecordBatchDescriptor.PRODUCER_EPOCH_OFFSET)
            + " partitionLeaderEpoch: " + h.getInt(RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET)
            + " isTransactional: " + ((attributes & RecordBatchDescriptor.TRANSACTIONAL_FLAG_MASK) != 0)
            + " isControl: " + ((attributes & RecordBatchDescriptor.CONTROL_FLAG_MASK) != 0)
            + " deleteHorizonMs: " + (deleteHorizon
                ? "OptionalLong[" + h.getLong(RecordBatchDescriptor.BASE_TIMESTAMP_OFFSET) + "]" : "OptionalLong.empty")
            + " position: " + position + " " + timestampType(attributes) + ": "
            + h.getLong(RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET)
            + " size: " + (RecordBatchDescriptor.LOG_OVERHEAD + length) + " magic: " + RecordBatchDescriptor.MAGIC_V2
            + " compresscodec: " + codecName(codec) + " crc: " + crc + " isvalid: " + valid);
    }

    private static String codecName(final int codec) {
        try {
            return CompressionType.forId(codec).kafkaName();
        } catch (final IllegalArgumentException e) {
            return "unknown(" + codec + ")";
        }
    }

    private static String timestampType(final short attributes) {
        return (attributes & RecordBatchDescriptor.TIMESTAMP_TYPE_MASK) != 0 ? "LogAppendTime" : "CreateTime";
    }

    /** Kafka's sequence arithmetic: a producer's sequence wraps from Integer.MAX_VALUE to 0. */
    private static int sequenceAt(final int baseSequence, final int delta) {
        if (baseSequence < 0) {
            return RecordBatchDescriptor.NO_SEQUENCE;
        }
        return baseSequence > Integer.MAX_VALUE - delta ? delta - (Integer.MAX_VALUE - baseSequence) - 1
            : baseSequence + delta;
    }

    /** Prints a batch's records; false when they cannot be read. */
    private boolean printRecords(final FileChannel channel, final long position, final int length,
                                 final BatchRecordReader reader) throws IOException {
        final int size = RecordBatchDescriptor.LOG_OVERHEAD + length;
        if (size > options.maxBatchBytes()) {
            out.println(RECORD_INDENT + " (records not shown: the batch's " + size + " bytes exceed the "
                + options.maxBatchBytes() + "-byte limit for reading a batch whole)");
            return true;
        }
        if (batchBytes.capacity() < size) {
            batchBytes = ByteBuffer.allocateDirect(Math.max(size, 2 * batchBytes.capacity()));
        }
        batchBytes.clear().limit(size);
        FileBytes.readFully(channel, batchBytes, position);
        batchBuffer.wrap(batchBytes, 0, size);
        batch.wrap(batchBuffer, 0);
        final boolean control = batch.isControl();
        final String type = timestampType(batch.attributes());
        try {
            reader.open(batch);
            while (reader.next(record)) {
                final StringBuilder line = new StringBuilder(128).append(RECORD_INDENT)
                    .append(" offset: ").append(record.offset())
                    .append(' ').append(type).append(": ").append(record.timestamp())
                    .append(" keySize: ").append(record.keyLength())
                    .append(" valueSize: ").append(record.valueLength())
                    .append(" sequence: ").append(sequenceAt(batch.baseSequence(), record.offsetDelta()))
                    .append(" headerKeys: [");
                record.rewindHeaders();
                for (int i = 0; record.nextHeader(recordHeader); i++) {
                    line.append(i == 0 ? "" : ",").append(recordHeader.key());
                }
                line.append(']');
                if (control) {
                    appendControl(line);
                } else if (options.printData()) {
                    if (record.keyLength() >= 0) {
                        line.append(" key: ").append(decode(record.keyBytes()));
                    }
                    if (record.valueLength() >= 0) {
                        line.append(" payload: ").append(decode(record.valueBytes()));
                    }
                }
                out.println(line);
            }
            return true;
        } catch (final InvalidRecordException e) {
            out.println(RECORD_INDENT + " (records cannot be read: " + e.getMessage() + ")");
            return false;
        }
    }

    /** A control record: its type from the key, and for a transaction marker its coordinator epoch. */
    private void appendControl(final StringBuilder line) {
        final byte[] key = record.keyBytes();
        if (key == null || key.length < 4) {
            line.append(" controlType: UNKNOWN(-1)");
            return;
        }
        final short type = ByteBuffer.wrap(key).getShort(2);
        final byte[] value = record.valueBytes();
        if ((type == 0 || type == 1) && value != null && value.length >= 6) {
            line.append(" endTxnMarker: ").append(CONTROL_TYPES[type]).append(" coordinatorEpoch: ")
                .append(ByteBuffer.wrap(value).getInt(2));
        } else {
            line.append(" controlType: ").append(type >= 0 && type < CONTROL_TYPES.length ? CONTROL_TYPES[type]
                : "UNKNOWN").append('(').append(type).append(')');
        }
    }

    private String decode(final byte[] bytes) {
        return options.decoder() == Decoder.HEX ? HexFormat.of().formatHex(bytes)
            : new String(bytes, StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------------------------------------ indexes

    private boolean dumpIndex(final Path file, final boolean time) throws IOException {
        final String name = file.getFileName().toString();
        final long base = FileBytes.offsetOf(name);
        if (base < 0) {
            err.println(file + ": the name is not an offset and a suffix");
            return false;
        }
        final int entry = time ? 12 : 8;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            final long size = channel.size();
            if (size == 0) {
                out.println(file + " is empty.");
                return true;
            }
            final ByteBuffer one = ByteBuffer.allocate(entry);
            for (long at = 0; at + entry <= size; at += entry) {
                one.clear();
                FileBytes.readFully(channel, one, at);
                if (time) {
                    final long timestamp = one.getLong(0);
                    final int relative = one.getInt(8);
                    if (at > 0 && timestamp == 0 && relative == 0) {
                        break;
                    }
                    out.println("timestamp: " + timestamp + " offset: " + (base + relative));
                } else {
                    final int relative = one.getInt(0);
                    final int position = one.getInt(4);
                    if (at > 0 && relative == 0 && position == 0) {
                        break;
                    }
                    out.println("offset: " + (base + relative) + " position: " + position);
                }
            }
            if (size % entry != 0) {
                err.println(file + ": length " + size + " is not a whole number of " + entry + "-byte entries");
                return false;
            }
            return true;
        }
    }

    private boolean dumpTxnIndex(final Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            final long size = channel.size();
            final ByteBuffer one = ByteBuffer.allocate(TXN_ENTRY);
            for (long at = 0; at + TXN_ENTRY <= size; at += TXN_ENTRY) {
                one.clear();
                FileBytes.readFully(channel, one, at);
                out.println("version: " + one.getShort(0) + " producerId: " + one.getLong(2) + " firstOffset: "
                    + one.getLong(10) + " lastOffset: " + one.getLong(18) + " lastStableOffset: " + one.getLong(26));
            }
            if (size % TXN_ENTRY != 0) {
                err.println(file + ": length " + size + " is not a whole number of " + TXN_ENTRY + "-byte entries");
                return false;
            }
            return true;
        }
    }
}
