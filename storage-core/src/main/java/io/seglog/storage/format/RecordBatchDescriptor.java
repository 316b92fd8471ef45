package io.seglog.storage.format;

/**
 * Layout of a Kafka v2 (magic 2) record batch header, big-endian, exactly as Kafka writes it on disk and on
 * the wire.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                       baseOffset (int64)                      |  0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                      batchLength (int32)                      |  8   bytes after this field
 *  +---------------------------------------------------------------+
 *  |                 partitionLeaderEpoch (int32)                  |  12  not covered by the CRC
 *  +---------------+-----------------------------------------------+
 *  | magic (int8)  |                 crc (uint32) ...              |  16  CRC-32C of [21, end)
 *  +---------------+---------------+-------------------------------+
 *  |      ... crc  |      attributes (int16)       | lastOffsetDelta  20
 *  +---------------+-------------------------------+---------------+
 *  |   ... lastOffsetDelta (int32)                 | baseTimestamp   24
 *  +-----------------------------------------------+ (int64) ...   |
 *  |                                                               |
 *  +-----------------------------------------------+---------------+
 *  |                                               | maxTimestamp    32
 *  +-----------------------------------------------+ (int64) ...   |
 *  |                                                               |
 *  +-----------------------------------------------+---------------+
 *  |                                               | producerId      40
 *  +-----------------------------------------------+ (int64) ...   |
 *  |                                                               |
 *  +-----------------------------------------------+---------------+
 *  |                                               | producerEpoch   48
 *  +-------------------------------+---------------+---------------+
 *  |     ... producerEpoch (int16) |       baseSequence (int32)    |  52
 *  +-------------------------------+-------------------------------+
 *  |      ... baseSequence         |       recordsCount (int32)    |  56
 *  +-------------------------------+-------------------------------+
 *  |      ... recordsCount         |  records ...                  |  60
 *  +-------------------------------+-------------------------------+
 * </pre>
 *
 * <p>Attributes: bits 0-2 compression codec (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd); bit 3 timestamp
 * type (1 = log-append time); bit 4 transactional; bit 5 control; bit 6 delete horizon set.
 *
 * <p>Magic history: 0 (Kafka 0.8, no timestamps), 1 (0.10, timestamps), 2 (0.11, this batch format with
 * varint records, leader epoch and producer fields). Seglog reads and writes magic 2 only.
 *
 * <p>Integrity: the CRC-32C covers attributes through the last record, so the broker can stamp
 * {@code baseOffset} and {@code partitionLeaderEpoch} in place without recomputing it. The length field
 * is not covered and is never trusted before it has been checked against the buffer and the configured
 * limits.
 */
public final class RecordBatchDescriptor {
    /** The only batch format version Seglog reads or writes. */
    public static final byte MAGIC_V2 = 2;

    /** Offset of {@code baseOffset}, the offset of the first record of the batch. */
    public static final int BASE_OFFSET_OFFSET = 0;
    /** Length of {@code baseOffset}. */
    public static final int BASE_OFFSET_LENGTH = 8;
    /** Offset of {@code batchLength}, the number of bytes that follow this field. */
    public static final int LENGTH_OFFSET = BASE_OFFSET_OFFSET + BASE_OFFSET_LENGTH;
    /** Length of {@code batchLength}. */
    public static final int LENGTH_LENGTH = 4;
    /** Bytes before the part that {@code batchLength} counts: Kafka's {@code LOG_OVERHEAD}. */
    public static final int LOG_OVERHEAD = LENGTH_OFFSET + LENGTH_LENGTH;
    /** Offset of {@code partitionLeaderEpoch}. */
    public static final int PARTITION_LEADER_EPOCH_OFFSET = LOG_OVERHEAD;
    /** Length of {@code partitionLeaderEpoch}. */
    public static final int PARTITION_LEADER_EPOCH_LENGTH = 4;
    /** Offset of {@code magic}. */
    public static final int MAGIC_OFFSET = PARTITION_LEADER_EPOCH_OFFSET + PARTITION_LEADER_EPOCH_LENGTH;
    /** Length of {@code magic}. */
    public static final int MAGIC_LENGTH = 1;
    /** Bytes a reader needs to see the magic and choose a format: Kafka's {@code HEADER_SIZE_UP_TO_MAGIC}. */
    public static final int HEADER_SIZE_UP_TO_MAGIC = MAGIC_OFFSET + MAGIC_LENGTH;
    /** Offset of {@code crc}, an unsigned CRC-32C. */
    public static final int CRC_OFFSET = MAGIC_OFFSET + MAGIC_LENGTH;
    /** Length of {@code crc}. */
    public static final int CRC_LENGTH = 4;
    /** Offset of {@code attributes}; the CRC covers this field and everything after it. */
    public static final int ATTRIBUTES_OFFSET = CRC_OFFSET + CRC_LENGTH;
    /** Length of {@code attributes}. */
    public static final int ATTRIBUTES_LENGTH = 2;
    /** Offset of {@code lastOffsetDelta}. */
    public static final int LAST_OFFSET_DELTA_OFFSET = ATTRIBUTES_OFFSET + ATTRIBUTES_LENGTH;
    /** Length of {@code lastOffsetDelta}. */
    public static final int LAST_OFFSET_DELTA_LENGTH = 4;
    /** Offset of {@code baseTimestamp}. */
    public static final int BASE_TIMESTAMP_OFFSET = LAST_OFFSET_DELTA_OFFSET + LAST_OFFSET_DELTA_LENGTH;
    /** Length of {@code baseTimestamp}. */
    public static final int BASE_TIMESTAMP_LENGTH = 8;
    /** Offset of {@code maxTimestamp}. */
    public static final int MAX_TIMESTAMP_OFFSET = BASE_TIMESTAMP_OFFSET + BASE_TIMESTAMP_LENGTH;
    /** Length of {@code maxTimestamp}. */
    public static final int MAX_TIMESTAMP_LENGTH = 8;
    /** Offset of {@code producerId}. */
    public static final int PRODUCER_ID_OFFSET = MAX_TIMESTAMP_OFFSET + MAX_TIMESTAMP_LENGTH;
    /** Length of {@code producerId}. */
    public static final int PRODUCER_ID_LENGTH = 8;
    /** Offset of {@code producerEpoch}. */
    public static final int PRODUCER_EPOCH_OFFSET = PRODUCER_ID_OFFSET + PRODUCER_ID_LENGTH;
    /** Length of {@code producerEpoch}. */
    public static final int PRODUCER_EPOCH_LENGTH = 2;
    /** Offset of {@code baseSequence}. */
    public static final int BASE_SEQUENCE_OFFSET = PRODUCER_EPOCH_OFFSET + PRODUCER_EPOCH_LENGTH;
    /** Length of {@code baseSequence}. */
    public static final int BASE_SEQUENCE_LENGTH = 4;
    /** Offset of {@code recordsCount}. */
    public static final int RECORDS_COUNT_OFFSET = BASE_SEQUENCE_OFFSET + BASE_SEQUENCE_LENGTH;
    /** Length of {@code recordsCount}. */
    public static final int RECORDS_COUNT_LENGTH = 4;
    /** Offset of the first record; also the size of a batch with no records (Kafka's {@code RECORD_BATCH_OVERHEAD}). */
    public static final int RECORDS_OFFSET = RECORDS_COUNT_OFFSET + RECORDS_COUNT_LENGTH;
    /** Size of the batch header: 61 bytes. */
    public static final int BATCH_HEADER_LENGTH = RECORDS_OFFSET;

    /** Mask of the compression codec in {@code attributes}. */
    public static final int COMPRESSION_CODEC_MASK = 0x07;
    /** Bit set in {@code attributes} when timestamps are log-append time. */
    public static final int TIMESTAMP_TYPE_MASK = 0x08;
    /** Bit set in {@code attributes} for a transactional batch. */
    public static final int TRANSACTIONAL_FLAG_MASK = 0x10;
    /** Bit set in {@code attributes} for a control batch. */
    public static final int CONTROL_FLAG_MASK = 0x20;
    /** A transaction marker's control record type (its key: int16 version 0, int16 type): Kafka's ABORT. */
    public static final short CONTROL_TYPE_ABORT = 0;
    /** A transaction marker's control record type: Kafka's COMMIT. */
    public static final short CONTROL_TYPE_COMMIT = 1;
    /** Where a control record's key holds its type (after the int16 version). */
    public static final int CONTROL_KEY_TYPE_OFFSET = 2;
    /** Bytes of a control record's key: int16 version, int16 type. */
    public static final int CONTROL_KEY_LENGTH = 4;
    /** Where a transaction marker's value holds the coordinator epoch (after the int16 version). */
    public static final int MARKER_VALUE_COORDINATOR_EPOCH_OFFSET = 2;
    /** Bytes of a transaction marker's value: int16 version, int32 coordinator epoch. */
    public static final int MARKER_VALUE_LENGTH = 6;
    /** Bit set in {@code attributes} when {@code baseTimestamp} holds the delete horizon. */
    public static final int DELETE_HORIZON_FLAG_MASK = 0x40;

    /** {@code producerId} of a batch from a producer that is not idempotent. */
    public static final long NO_PRODUCER_ID = -1L;
    /** {@code producerEpoch} of a batch from a producer that is not idempotent. */
    public static final short NO_PRODUCER_EPOCH = -1;
    /** {@code baseSequence} of a batch from a producer that is not idempotent. */
    public static final int NO_SEQUENCE = -1;
    /** {@code partitionLeaderEpoch} of a batch not yet stamped by a leader. */
    public static final int NO_PARTITION_LEADER_EPOCH = -1;
    /** A timestamp that is not known. */
    public static final long NO_TIMESTAMP = -1L;

    private RecordBatchDescriptor() {
    }
}
