package io.seglog.storage.producer;

import static io.seglog.storage.producer.ProducerSnapshotDescriptor.COORDINATOR_EPOCH_OFFSET;
import static io.seglog.storage.producer.ProducerSnapshotDescriptor.CRC_OFFSET;
import static io.seglog.storage.producer.ProducerSnapshotDescriptor.CURRENT_TXN_FIRST_OFFSET_OFFSET;
import static io.seglog.storage.producer.ProducerSnapshotDescriptor.ENTRIES_OFFSET;
import static io.seglog.storage.producer.ProducerSnapshotDescriptor.ENTRY_COUNT_OFFSET;
import static io.seglog.storage.producer.ProducerSnapshotDescriptor.ENTRY_LENGTH;
import static io.seglog.storage.producer.ProducerSnapshotDescriptor.EPOCH_OFFSET;
import static io.seglog.storage.producer.ProducerSnapshotDescriptor.LAST_OFFSET_OFFSET;
import static io.seglog.storage.producer.ProducerSnapshotDescriptor.LAST_SEQUENCE_OFFSET;
import static io.seglog.storage.producer.ProducerSnapshotDescriptor.OFFSET_DELTA_OFFSET;
import static io.seglog.storage.producer.ProducerSnapshotDescriptor.PRODUCER_ID_OFFSET;
import static io.seglog.storage.producer.ProducerSnapshotDescriptor.TIMESTAMP_OFFSET;
import static io.seglog.storage.producer.ProducerSnapshotDescriptor.VERSION;
import static io.seglog.storage.producer.ProducerSnapshotDescriptor.VERSION_OFFSET;

import io.seglog.storage.checkpoint.AtomicFileWriter;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * Encodes, writes and reads {@code .snapshot} files ({@link ProducerSnapshotDescriptor}). Entries are written in
 * producer-id order, so a snapshot of the same state is the same bytes (Kafka writes its map's order; readers do
 * not care).
 */
final class ProducerSnapshotFile {
    private ProducerSnapshotFile() {
    }

    /**
     * The snapshot bytes of {@code entries}.
     *
     * @param entries the producers
     * @return the file content
     */
    static byte[] encode(final Collection<ProducerEntry> entries) {
        final ProducerEntry[] sorted = entries.toArray(new ProducerEntry[0]);
        Arrays.sort(sorted, (a, b) -> Long.compare(a.producerId(), b.producerId()));
        final ByteBuffer buffer = ByteBuffer.allocate(ENTRIES_OFFSET + sorted.length * ENTRY_LENGTH);
        buffer.putShort(VERSION_OFFSET, VERSION);
        buffer.putInt(ENTRY_COUNT_OFFSET, sorted.length);
        int p = ENTRIES_OFFSET;
        for (final ProducerEntry e : sorted) {
            buffer.putLong(p + PRODUCER_ID_OFFSET, e.producerId());
            buffer.putShort(p + EPOCH_OFFSET, e.epoch());
            buffer.putInt(p + LAST_SEQUENCE_OFFSET, e.lastSeq());
            buffer.putLong(p + LAST_OFFSET_OFFSET, e.lastDataOffset());
            buffer.putInt(p + OFFSET_DELTA_OFFSET, e.lastOffsetDelta());
            buffer.putLong(p + TIMESTAMP_OFFSET, e.lastTimestamp());
            buffer.putInt(p + COORDINATOR_EPOCH_OFFSET, e.coordinatorEpoch());
            buffer.putLong(p + CURRENT_TXN_FIRST_OFFSET_OFFSET, e.currentTxnFirstOffset());
            p += ENTRY_LENGTH;
        }
        buffer.putInt(CRC_OFFSET, (int) crc(buffer.array(), buffer.capacity()));
        return buffer.array();
    }

    /**
     * Writes a snapshot atomically and durably: temp file, fsync, rename, fsync of the directory.
     *
     * @param io      the file layer
     * @param file    the snapshot file
     * @param entries the producers
     * @throws IOException if a step fails
     */
    static void write(final FileIO io, final Path file, final Collection<ProducerEntry> entries) throws IOException {
        new AtomicFileWriter(io, file, file.resolveSibling(file.getFileName() + ".tmp"), "producer snapshot")
            .write(encode(entries));
    }

    /**
     * Reads a snapshot, checking its size, version, entry count and CRC before any entry is built.
     *
     * @param io   the file layer
     * @param file the snapshot file
     * @return the producers it holds, in file order
     * @throws CorruptSnapshotException if a check fails
     * @throws IOException if the file cannot be read
     */
    static List<ProducerEntry> read(final FileIO io, final Path file) throws IOException {
        final byte[] bytes;
        try (FileChannel channel = io.open(file, Set.of(StandardOpenOption.READ))) {
            final long size = channel.size();
            if (size < ENTRIES_OFFSET || size > Integer.MAX_VALUE - 8) {
                throw new CorruptSnapshotException(file, 0, "file size", "at least " + ENTRIES_OFFSET
                    + " bytes (the header) and below 2 GiB", size + " bytes");
            }
            // The allocation is the file's real size, never a length read from it.
            bytes = new byte[(int) size];
            final ByteBuffer target = ByteBuffer.wrap(bytes);
            while (target.hasRemaining()) {
                if (channel.read(target, target.position()) < 0) {
                    throw new CorruptSnapshotException(file, target.position(), "file size", size + " bytes",
                        "end of file at " + target.position() + " (the file shrank while read)");
                }
            }
        }
        final ByteBuffer buffer = ByteBuffer.wrap(bytes);
        final short version = buffer.getShort(VERSION_OFFSET);
        if (version != VERSION) {
            throw new CorruptSnapshotException(file, VERSION_OFFSET, "version", Short.toString(VERSION),
                Short.toString(version));
        }
        final int count = buffer.getInt(ENTRY_COUNT_OFFSET);
        final long entryBytes = bytes.length - (long) ENTRIES_OFFSET;
        if (count < 0 || (long) count * ENTRY_LENGTH != entryBytes) {
            throw new CorruptSnapshotException(file, ENTRY_COUNT_OFFSET, "entryCount", (entryBytes % ENTRY_LENGTH == 0
                ? Long.toString(entryBytes / ENTRY_LENGTH) : "a count whose " + ENTRY_LENGTH + "-byte entries fill the "
                + entryBytes + " bytes after the header") + " (from the file size " + bytes.length + ")",
                Integer.toString(count));
        }
        final long stored = Integer.toUnsignedLong(buffer.getInt(CRC_OFFSET));
        final long computed = crc(bytes, bytes.length);
        if (stored != computed) {
            throw new CorruptSnapshotException(file, CRC_OFFSET, "crc", computed + " (CRC-32C of bytes "
                + ENTRY_COUNT_OFFSET + ".." + bytes.length + ")", Long.toString(stored));
        }
        final List<ProducerEntry> entries = new ArrayList<>(count);
        for (int i = 0, p = ENTRIES_OFFSET; i < count; i++, p += ENTRY_LENGTH) {
            final ProducerEntry entry = new ProducerEntry(buffer.getLong(p + PRODUCER_ID_OFFSET),
                buffer.getShort(p + EPOCH_OFFSET), buffer.getInt(p + COORDINATOR_EPOCH_OFFSET),
                buffer.getLong(p + TIMESTAMP_OFFSET), buffer.getLong(p + CURRENT_TXN_FIRST_OFFSET_OFFSET));
            final long lastOffset = buffer.getLong(p + LAST_OFFSET_OFFSET);
            // Kafka's readSnapshot: a batch only where the producer wrote one (a marker-only entry has lastOffset -1).
            if (lastOffset >= 0) {
                entry.addBatch(entry.epoch(), buffer.getInt(p + LAST_SEQUENCE_OFFSET), lastOffset,
                    buffer.getInt(p + OFFSET_DELTA_OFFSET), buffer.getLong(p + TIMESTAMP_OFFSET));
            }
            entries.add(entry);
        }
        return entries;
    }

    private static long crc(final byte[] bytes, final int length) {
        final CRC32C crc = new CRC32C();
        crc.update(bytes, ENTRY_COUNT_OFFSET, length - ENTRY_COUNT_OFFSET);
        return crc.getValue();
    }
}
