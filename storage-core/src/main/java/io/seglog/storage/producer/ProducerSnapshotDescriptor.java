package io.seglog.storage.producer;

/**
 * Layout of a producer-state snapshot file ({@code <offset>.snapshot}), big-endian, exactly as Kafka 4.4's
 * {@code ProducerStateManager.writeSnapshot} writes it: a version, a CRC and the generated {@code ProducerSnapshot}
 * message (version 1, not flexible: a plain int32 array length, fixed-width fields, no tagged fields).
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+-------------------------------+
 *  |        version (int16)        |        crc (uint32) ...       |  0   CRC-32C of [6, end)
 *  +-------------------------------+-------------------------------+
 *  |         ... crc               |   entryCount (int32) ...      |  4
 *  +-------------------------------+-------------------------------+
 *  |         ... entryCount        |  entries, 46 bytes each ...   |  8
 *  +-------------------------------+-------------------------------+
 *
 *  one entry (offsets relative to the entry):
 *  +---------------------------------------------------------------+
 *  |                       producerId (int64)                      |  0
 *  |                                                               |
 *  +-------------------------------+-------------------------------+
 *  |         epoch (int16)         |   lastSequence (int32) ...    |  8
 *  +-------------------------------+-------------------------------+
 *  |     ... lastSequence          |   lastOffset (int64) ...      |  12
 *  +-------------------------------+                               |
 *  |                                                               |
 *  +-------------------------------+-------------------------------+
 *  |     ... lastOffset            |   offsetDelta (int32) ...     |  20
 *  +-------------------------------+-------------------------------+
 *  |     ... offsetDelta           |   timestamp (int64) ...       |  24
 *  +-------------------------------+                               |
 *  |                                                               |
 *  +-------------------------------+-------------------------------+
 *  |     ... timestamp             | coordinatorEpoch (int32) ...  |  32
 *  +-------------------------------+-------------------------------+
 *  |     ... coordinatorEpoch      | currentTxnFirstOffset (int64) |  36
 *  +-------------------------------+                               |
 *  |                                                    ...        |  40
 *  +-------------------------------+-------------------------------+
 *  |  ... currentTxnFirstOffset    |                                  44
 *  +-------------------------------+
 * </pre>
 *
 * <p>Fields per producer: its epoch; of its last batch the last sequence, last offset, offset delta
 * ({@code lastOffset - firstOffset}) and max timestamp (the producer's last timestamp); the coordinator epoch of the
 * last transaction marker (-1 for none); the first offset of its open transaction (-1 for none). A producer known only
 * from a transaction marker has {@code lastSequence = -1}, {@code lastOffset = -1}: no batch. Only the last batch is
 * kept, so after a reload a retry of an older one of the last five batches is no longer recognised (as in Kafka).
 *
 * <p>Version history: 1 (Kafka 2.8, KIP-724 era: the generated schema; earlier brokers wrote the same bytes through
 * a hand-written schema). It is the only version Kafka 4.4 and Seglog read or write.
 *
 * <p>Integrity: the CRC-32C covers every byte from {@link #ENTRY_COUNT_OFFSET} to the end of the file; the file is
 * written to a temporary file, fsynced, renamed and the directory fsynced, so a torn snapshot is one that lost its
 * rename or was damaged later. A snapshot that fails any check (its size, version, entry count or CRC) is deleted
 * with a warning and the state is rebuilt from an older snapshot or from the log's batches, as Kafka does. The entry
 * count is never trusted for an allocation: it must equal what the file's size holds. A snapshot is named by the log
 * end offset it describes (the state of every batch below it), in 20 digits like a segment.
 */
public final class ProducerSnapshotDescriptor {
    /** The snapshot format version Kafka 4.4 and Seglog read and write. */
    public static final short VERSION = 1;
    /** File name suffix (the segment layer lists snapshots too, by the same name). */
    public static final String SUFFIX = io.seglog.storage.segment.SegmentFiles.SNAPSHOT_SUFFIX;

    /** Offset of the format version. */
    public static final int VERSION_OFFSET = 0;
    /** Length of the format version. */
    public static final int VERSION_LENGTH = 2;
    /** Offset of the CRC-32C (an unsigned 32-bit value). */
    public static final int CRC_OFFSET = VERSION_OFFSET + VERSION_LENGTH;
    /** Length of the CRC. */
    public static final int CRC_LENGTH = 4;
    /** Offset of the number of producer entries; the CRC covers from here on. */
    public static final int ENTRY_COUNT_OFFSET = CRC_OFFSET + CRC_LENGTH;
    /** Length of the entry count. */
    public static final int ENTRY_COUNT_LENGTH = 4;
    /** Offset of the first entry; also the size of an empty snapshot. */
    public static final int ENTRIES_OFFSET = ENTRY_COUNT_OFFSET + ENTRY_COUNT_LENGTH;

    /** Entry-relative offset of the producer id. */
    public static final int PRODUCER_ID_OFFSET = 0;
    /** Length of the producer id. */
    public static final int PRODUCER_ID_LENGTH = 8;
    /** Entry-relative offset of the producer epoch. */
    public static final int EPOCH_OFFSET = PRODUCER_ID_OFFSET + PRODUCER_ID_LENGTH;
    /** Length of the producer epoch. */
    public static final int EPOCH_LENGTH = 2;
    /** Entry-relative offset of the last batch's last sequence. */
    public static final int LAST_SEQUENCE_OFFSET = EPOCH_OFFSET + EPOCH_LENGTH;
    /** Length of the last sequence. */
    public static final int LAST_SEQUENCE_LENGTH = 4;
    /** Entry-relative offset of the last batch's last offset. */
    public static final int LAST_OFFSET_OFFSET = LAST_SEQUENCE_OFFSET + LAST_SEQUENCE_LENGTH;
    /** Length of the last offset. */
    public static final int LAST_OFFSET_LENGTH = 8;
    /** Entry-relative offset of the last batch's offset delta. */
    public static final int OFFSET_DELTA_OFFSET = LAST_OFFSET_OFFSET + LAST_OFFSET_LENGTH;
    /** Length of the offset delta. */
    public static final int OFFSET_DELTA_LENGTH = 4;
    /** Entry-relative offset of the producer's last timestamp. */
    public static final int TIMESTAMP_OFFSET = OFFSET_DELTA_OFFSET + OFFSET_DELTA_LENGTH;
    /** Length of the timestamp. */
    public static final int TIMESTAMP_LENGTH = 8;
    /** Entry-relative offset of the coordinator epoch. */
    public static final int COORDINATOR_EPOCH_OFFSET = TIMESTAMP_OFFSET + TIMESTAMP_LENGTH;
    /** Length of the coordinator epoch. */
    public static final int COORDINATOR_EPOCH_LENGTH = 4;
    /** Entry-relative offset of the open transaction's first offset. */
    public static final int CURRENT_TXN_FIRST_OFFSET_OFFSET = COORDINATOR_EPOCH_OFFSET + COORDINATOR_EPOCH_LENGTH;
    /** Length of the open transaction's first offset. */
    public static final int CURRENT_TXN_FIRST_OFFSET_LENGTH = 8;
    /** Length of one entry. */
    public static final int ENTRY_LENGTH = CURRENT_TXN_FIRST_OFFSET_OFFSET + CURRENT_TXN_FIRST_OFFSET_LENGTH;

    /** Digits of the offset in a snapshot file name, as in a segment's. */
    public static final int FILE_NAME_DIGITS = 20;

    private ProducerSnapshotDescriptor() {
    }

    /**
     * The file name of the snapshot at {@code offset}: 20 zero-padded digits and {@link #SUFFIX}.
     *
     * @param offset the log end offset the snapshot describes, 0 or more
     * @return the name
     */
    public static String fileName(final long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset=" + offset + " must be >= 0");
        }
        final String digits = Long.toString(offset);
        return "0".repeat(FILE_NAME_DIGITS - digits.length()) + digits + SUFFIX;
    }

    /**
     * The offset in a snapshot file name, or -1 when the name is not {@code <20 digits>.snapshot}.
     *
     * @param fileName the name
     * @return the offset, or -1
     */
    public static long parseOffset(final String fileName) {
        if (fileName.length() != FILE_NAME_DIGITS + SUFFIX.length() || !fileName.endsWith(SUFFIX)) {
            return -1;
        }
        for (int i = 0; i < FILE_NAME_DIGITS; i++) {
            if (fileName.charAt(i) < '0' || fileName.charAt(i) > '9') {
                return -1;
            }
        }
        try {
            return Long.parseLong(fileName.substring(0, FILE_NAME_DIGITS));
        } catch (final NumberFormatException e) {
            return -1; // 20 digits above Long.MAX_VALUE
        }
    }
}
