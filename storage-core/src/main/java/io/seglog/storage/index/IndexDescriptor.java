package io.seglog.storage.index;

import java.nio.ByteOrder;

/**
 * Layouts of the entries of Kafka's segment indexes, big-endian, exactly as Kafka writes them. An index file
 * is a plain array of fixed-size entries with no header, no magic and no checksum; its length is a multiple of
 * the entry size once trimmed.
 *
 * <p>Offset index ({@code <20-digit base offset>.index}), one entry per indexed batch:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                   relativeOffset (int32)                      |  0   offset - baseOffset, 0..2^31-1
 *  +---------------------------------------------------------------+
 *  |                       position (int32)                        |  4   byte position in the .log file
 *  +---------------------------------------------------------------+
 * </pre>
 * An entry {@code (o, p)} says: the batch that contains offset {@code o} (Kafka indexes a batch's last offset)
 * starts at byte {@code p} of the log file, so a reader looking for any offset {@code >= o} may start scanning
 * batch headers at {@code p}. Relative offsets strictly increase from entry to entry.
 *
 * <p>Time index ({@code <20-digit base offset>.timeindex}):
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                       timestamp (int64)                       |  0   milliseconds since the epoch
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                   relativeOffset (int32)                      |  8   offset - baseOffset, 0..2^31-1
 *  +---------------------------------------------------------------+
 * </pre>
 * An entry {@code (t, o)} says: the largest timestamp among the records up to and including offset {@code o}
 * is {@code t}, so every record with a timestamp greater than {@code t} comes after offset {@code o}.
 * Timestamps strictly increase from entry to entry; relative offsets never decrease.
 *
 * <p>History: the offset index with 4-byte relative offsets has been unchanged since Kafka 0.8; the time
 * index was added in Kafka 0.10.1 (KIP-33) and has been unchanged since. Neither file carries a version:
 * the suffix names the format.
 *
 * <p>Integrity: none on disk (no checksum, no header). Files are preallocated to the configured maximum and
 * trimmed to their entries on roll and close; an index that was not trimmed (a crash) reads as full of
 * zero entries, which {@code sanityCheck()} and the log's recovery catch, and an index in doubt is rebuilt
 * from the log file.
 */
public final class IndexDescriptor {
    /** Byte order of every field of both indexes. */
    public static final ByteOrder BYTE_ORDER = ByteOrder.BIG_ENDIAN;

    /** File name suffix of an offset index. */
    public static final String OFFSET_INDEX_SUFFIX = ".index";
    /** File name suffix of a time index. */
    public static final String TIME_INDEX_SUFFIX = ".timeindex";

    /** Offset of {@code relativeOffset} in an offset-index entry. */
    public static final int OFFSET_ENTRY_RELATIVE_OFFSET_OFFSET = 0;
    /** Length of {@code relativeOffset} in an offset-index entry. */
    public static final int OFFSET_ENTRY_RELATIVE_OFFSET_LENGTH = 4;
    /** Offset of {@code position} in an offset-index entry. */
    public static final int OFFSET_ENTRY_POSITION_OFFSET =
        OFFSET_ENTRY_RELATIVE_OFFSET_OFFSET + OFFSET_ENTRY_RELATIVE_OFFSET_LENGTH;
    /** Length of {@code position} in an offset-index entry. */
    public static final int OFFSET_ENTRY_POSITION_LENGTH = 4;
    /** Size of an offset-index entry: 8 bytes. */
    public static final int OFFSET_ENTRY_LENGTH = OFFSET_ENTRY_POSITION_OFFSET + OFFSET_ENTRY_POSITION_LENGTH;

    /** Offset of {@code timestamp} in a time-index entry. */
    public static final int TIME_ENTRY_TIMESTAMP_OFFSET = 0;
    /** Length of {@code timestamp} in a time-index entry. */
    public static final int TIME_ENTRY_TIMESTAMP_LENGTH = 8;
    /** Offset of {@code relativeOffset} in a time-index entry. */
    public static final int TIME_ENTRY_RELATIVE_OFFSET_OFFSET =
        TIME_ENTRY_TIMESTAMP_OFFSET + TIME_ENTRY_TIMESTAMP_LENGTH;
    /** Length of {@code relativeOffset} in a time-index entry. */
    public static final int TIME_ENTRY_RELATIVE_OFFSET_LENGTH = 4;
    /** Size of a time-index entry: 12 bytes. */
    public static final int TIME_ENTRY_LENGTH = TIME_ENTRY_RELATIVE_OFFSET_OFFSET + TIME_ENTRY_RELATIVE_OFFSET_LENGTH;

    /** Largest relative offset an entry can hold: offsets must lie in {@code [baseOffset, baseOffset + this]}. */
    public static final long MAX_RELATIVE_OFFSET = Integer.MAX_VALUE;
    /** Timestamp reported by an empty time index or a lookup below its first entry (Kafka's NO_TIMESTAMP). */
    public static final long NO_TIMESTAMP = -1L;

    /**
     * Bytes at the tail of an index searched first by a lookup (Kafka's {@code AbstractIndex.warmEntries}).
     * Why 8 KiB: see {@code MappedIndex}; it spans at most three 4 KiB pages, which every tail lookup touches,
     * so they stay in the page cache.
     */
    public static final int WARM_SECTION_BYTES = 8192;

    private IndexDescriptor() {
    }
}
