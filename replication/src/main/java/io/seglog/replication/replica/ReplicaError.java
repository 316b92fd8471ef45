package io.seglog.replication.replica;

import io.seglog.storage.AppendOutcome;
import io.seglog.storage.format.InvalidRecordException;

/**
 * The outcomes the replica layer gives per partition, each with Kafka's error code (its {@code Errors} enum), so that
 * the wire layer answers with the code a Kafka client expects and the replica layer needs no Kafka class.
 */
public enum ReplicaError {
    /** Success. */
    NONE(0),
    /** Something the broker did not expect (Kafka's UNKNOWN_SERVER_ERROR). */
    UNKNOWN_SERVER_ERROR(-1),
    /** The offset is outside the log: below its start or past its end. */
    OFFSET_OUT_OF_RANGE(1),
    /** A batch failed its CRC or is malformed. */
    CORRUPT_MESSAGE(2),
    /** This broker hosts no such partition. */
    UNKNOWN_TOPIC_OR_PARTITION(3),
    /** The partition has no leader now. */
    LEADER_NOT_AVAILABLE(5),
    /** This broker is not the partition's leader (or not a replica of it). */
    NOT_LEADER_OR_FOLLOWER(6),
    /** An acks=all produce was not replicated in time. */
    REQUEST_TIMED_OUT(7),
    /** A batch is larger than {@code max.message.bytes}. */
    MESSAGE_TOO_LARGE(10),
    /** The batches of one append do not fit a segment. */
    RECORD_LIST_TOO_LARGE(18),
    /** acks=all refused before the append: the ISR is smaller than {@code min.insync.replicas}. */
    NOT_ENOUGH_REPLICAS(19),
    /** acks=all appended, but the ISR shrank below {@code min.insync.replicas} before the ack. */
    NOT_ENOUGH_REPLICAS_AFTER_APPEND(20),
    /** acks other than -1, 0 or 1. */
    INVALID_REQUIRED_ACKS(21),
    /** A record timestamp outside {@code message.timestamp.*.max.ms}. */
    INVALID_TIMESTAMP(32),
    /** A malformed request. */
    INVALID_REQUEST(42),
    /** A producer's batch does not follow its last sequence, or a new producer epoch does not start at 0. */
    OUT_OF_ORDER_SEQUENCE_NUMBER(45),
    /** A producer's epoch is below the one the partition knows: a fenced producer (Kafka 2.7+'s produce answer). */
    INVALID_PRODUCER_EPOCH(47),
    /** A transaction marker from a coordinator older than the one that wrote the producer's last marker. */
    TRANSACTION_COORDINATOR_FENCED(52),
    /** The partition's log directory is offline. */
    KAFKA_STORAGE_ERROR(56),
    /** The request's leader epoch is older than this broker's: the sender's metadata is stale. */
    FENCED_LEADER_EPOCH(74),
    /** The request's leader epoch is newer than this broker's: this broker's view is stale. */
    UNKNOWN_LEADER_EPOCH(75),
    /** A batch's compression codec cannot be read here: its library is not on the broker's class path. */
    UNSUPPORTED_COMPRESSION_TYPE(76),
    /** A new leader's high watermark is not known yet (ListOffsets answers nothing for now). */
    OFFSET_NOT_AVAILABLE(78),
    /** A record that breaks a rule of the format. */
    INVALID_RECORD(87),
    /** A request names a topic by an id the metadata cache does not know (KIP-516). */
    UNKNOWN_TOPIC_ID(100),
    /** A request's topic id is not the id of the partition's log (KIP-516). */
    INCONSISTENT_TOPIC_ID(103);

    private final short code;

    ReplicaError(final int code) {
        this.code = (short) code;
    }

    /**
     * Kafka's error code.
     *
     * @return the code
     */
    public short code() {
        return code;
    }

    /**
     * The outcome for one of Kafka's error codes, as a response on the wire carries it.
     *
     * @param code Kafka's error code
     * @return the outcome, {@link #UNKNOWN_SERVER_ERROR} for a code without one
     */
    public static ReplicaError ofCode(final short code) {
        for (final ReplicaError e : values()) {
            if (e.code == code) {
                return e;
            }
        }
        return UNKNOWN_SERVER_ERROR;
    }

    /**
     * The answer to a leader append's outcome, as a Kafka broker answers a produce: an append or a retried batch
     * NONE (the retry with its original offsets), a sequence gap OUT_OF_ORDER_SEQUENCE_NUMBER, an old producer epoch
     * INVALID_PRODUCER_EPOCH, and a leader the log has moved past (a newer leader's epoch reached it)
     * NOT_LEADER_OR_FOLLOWER, which tells the client to refresh its metadata.
     *
     * @param outcome the log's outcome
     * @return the error
     */
    public static ReplicaError of(final AppendOutcome outcome) {
        return switch (outcome) {
            case APPENDED, DUPLICATE -> NONE;
            case OUT_OF_ORDER_SEQUENCE -> OUT_OF_ORDER_SEQUENCE_NUMBER;
            case INVALID_PRODUCER_EPOCH -> INVALID_PRODUCER_EPOCH;
            case FENCED_LEADER_EPOCH -> NOT_LEADER_OR_FOLLOWER;
            case TRANSACTION_COORDINATOR_FENCED -> TRANSACTION_COORDINATOR_FENCED;
        };
    }

    /**
     * The answer to a batch the log refused, by the field it names: a CRC, magic or length below the minimum is
     * corruption, a batch above {@code max.message.bytes} too large, a batch list above a segment too large, a
     * timestamp out of bounds invalid, anything else an invalid record.
     *
     * @param e the log's refusal
     * @return the error
     */
    public static ReplicaError of(final InvalidRecordException e) {
        return switch (e.field()) {
            case "crc", "magic" -> CORRUPT_MESSAGE;
            case "batchLength" -> e.limit() >= 0 && e.value() > e.limit() ? MESSAGE_TOO_LARGE : CORRUPT_MESSAGE;
            case "batchSize" -> RECORD_LIST_TOO_LARGE;
            case "timestamp" -> INVALID_TIMESTAMP;
            default -> INVALID_RECORD;
        };
    }
}
