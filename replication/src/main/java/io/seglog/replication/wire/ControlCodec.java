package io.seglog.replication.wire;

import static io.seglog.replication.wire.ControlStructures.checkBrokerId;
import static io.seglog.replication.wire.ControlStructures.errorCode;
import static io.seglog.replication.wire.ControlStructures.readBrokers;
import static io.seglog.replication.wire.ControlStructures.readPartitions;
import static io.seglog.replication.wire.ControlStructures.readRefusal;
import static io.seglog.replication.wire.ControlStructures.readStates;
import static io.seglog.replication.wire.ControlStructures.sorted;
import static io.seglog.replication.wire.ControlStructures.sortedBrokers;
import static io.seglog.replication.wire.ControlStructures.sortedStates;
import static io.seglog.replication.wire.ControlStructures.writeBrokers;
import static io.seglog.replication.wire.ControlStructures.writePartition;
import static io.seglog.replication.wire.ControlStructures.writePartitions;
import static io.seglog.replication.wire.ControlStructures.writeRefusal;
import static io.seglog.replication.wire.ControlStructures.writeStates;

import io.seglog.replication.transport.ControlRequest;
import io.seglog.replication.transport.ControlRequestRefusedException;
import io.seglog.replication.transport.ControlResponse;
import io.seglog.replication.transport.LeaderAndIsrRequest;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.NotControllerException;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.replication.transport.StaleBrokerEpochException;
import io.seglog.replication.transport.StaleControllerEpochException;
import io.seglog.replication.transport.StaleLeaderEpochException;
import io.seglog.replication.transport.StopReplicaRequest;
import io.seglog.replication.transport.UpdateMetadataRequest;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The bodies of Seglog's control messages: LeaderAndIsr, UpdateMetadata and StopReplica (controller to broker) and
 * ControlledShutdown (broker to controller), which Kafka 4.x no longer defines. They travel on Kafka's framing as
 * {@link SeglogApi}s: the frame size, request header v1 and response header v0 are the server's and the client's;
 * this class writes and reads only what follows the header.
 *
 * <p>Primitives are Kafka's, big-endian: {@code int8/16/32/64}; a boolean is an int8 of 0 or 1; a string is an int16
 * byte length then that much UTF-8, a nullable string has length -1 for null; an array is an int32 count then the
 * entries. In the diagrams {@code t}, {@code h} and {@code r} are the byte lengths of the topic, host and rack, and
 * offsets count from the start of the body or of the structure drawn.
 *
 * <pre>
 *  LeaderAndIsr (16400)       UpdateMetadata (16401)     StopReplica (16402)        ControlledShutdown (16403)
 *  RequestHeader              RequestHeader              RequestHeader              int32 brokerId     0
 *  int32 partitionCount       int32 liveBrokerCount      int8  delete               int64 brokerEpoch  4
 *  PartitionState[...]        LiveBroker[...]            int32 partitionCount                          12 = end
 *  int32 liveLeaderCount      int32 partitionCount       TopicPartition[...]
 *  LiveBroker[...]            PartitionState[...]
 *
 *  RequestHeader (16 bytes)
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                     controllerId (int32)                      |  0    a broker id
 *  +---------------------------------------------------------------+
 *  |                    controllerEpoch (int32)                    |  4
 *  +---------------------------------------------------------------+
 *  |                      brokerEpoch (int64)                      |  8    the target's registration czxid
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *
 *  TopicPartition (6 + t bytes)
 *  +-------------------------------+-------------------------------+
 *  |      topic length (int16)     |     topic (UTF-8) ...         |  0    1 to 249 of [a-zA-Z0-9._-]
 *  +-------------------------------+-------------------------------+
 *  |                       partition (int32)                       |  2+t
 *  +---------------------------------------------------------------+
 *
 *  PartitionState (31 + t + 4 * (isr + replicas) bytes; 16 more from v1)
 *  +---------------------------------------------------------------+
 *  |                  TopicPartition (6 + t) ...                   |  0
 *  +---------------------------------------------------------------+
 *  |                    controllerEpoch (int32)                    |  6+t  the deciding controller's
 *  +---------------------------------------------------------------+
 *  |                        leader (int32)                         |  10+t a broker id, -1 none, -2 deleting
 *  +---------------------------------------------------------------+
 *  |                      leaderEpoch (int32)                      |  14+t
 *  +---------------------------------------------------------------+
 *  |                    partitionEpoch (int32)                     |  18+t
 *  +---------------+-----------------------------------------------+
 *  | isNew (int8)  |              isrCount (int32) ...             |  22+t
 *  +---------------+-----------------------------------------------+
 *  |                   isr (int32 each) ...                        |  27+t distinct broker ids, ISR order
 *  +---------------------------------------------------------------+
 *  |                   replicaCount (int32)                        |  i = 27+t+4*isrCount
 *  +---------------------------------------------------------------+
 *  |                   replicas (int32 each) ...                   |  i+4  distinct broker ids, preferred first
 *  +---------------------------------------------------------------+
 *  |                  topicId (16 bytes, v1+) ...                  |  j = i+4+4*replicaCount; Kafka's uuid type
 *  +---------------------------------------------------------------+
 *
 *  LiveBroker (20 + h + r bytes; r = 0 without a rack)
 *  +---------------------------------------------------------------+
 *  |                          id (int32)                           |  0    a broker id
 *  +---------------------------------------------------------------+
 *  |                         epoch (int64)                         |  4
 *  |                                                               |
 *  +-------------------------------+-------------------------------+
 *  |      host length (int16)      |     host (UTF-8) ...          |  12
 *  +-------------------------------+-------------------------------+
 *  |                         port (int32)                          |  14+h 0 to 65535
 *  +-------------------------------+-------------------------------+
 *  |  rack length (int16, -1 none) |     rack (UTF-8) ...          |  18+h
 *  +-------------------------------+-------------------------------+
 *
 *  ControlResponse (to 16400-16402)           ControlledShutdown response (to 16403)
 *  int16 errorCode                            int16 errorCode
 *   0:      int32 errorCount,                  0:  int32 partitionCount, TopicPartition[...] still led
 *           PartitionError[...]                41: int32 brokerId (NotControllerException)
 *   11, 77: Refusal (the whole message)        77: Refusal (StaleBrokerEpochException)
 *
 *  PartitionError: TopicPartition, int16 errorCode (11, 74 or 77), Refusal
 *  Refusal (18 + reason bytes)
 *  +---------------------------------------------------------------+
 *  |                     requestEpoch (int64)                      |  0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     currentEpoch (int64)                      |  8
 *  |                                                               |
 *  +-------------------------------+-------------------------------+
 *  | reason length (int16, -1 null)|     reason (UTF-8) ...        |  16
 *  +-------------------------------+-------------------------------+
 * </pre>
 *
 * <p>Error codes are Kafka's numbers for the same conditions: 0 NONE, 11 STALE_CONTROLLER_EPOCH
 * ({@link StaleControllerEpochException}), 41 NOT_CONTROLLER ({@link NotControllerException}), 74
 * FENCED_LEADER_EPOCH ({@link StaleLeaderEpochException}: Kafka's LeaderAndIsr answered a stale leader epoch with
 * STALE_CONTROLLER_EPOCH, which would lose the class), 77 STALE_BROKER_EPOCH ({@link StaleBrokerEpochException}). A
 * refusal carries the exception's {@link ControlRequestRefusedException#reason() reason} and epochs, and the
 * receiver rebuilds it with the same public constructor, so class, epochs and message are the sender's.
 *
 * <p>Version history, per message: 0 (Seglog 0.1) for all four; 1 for LeaderAndIsr and UpdateMetadata adds each
 * partition state's {@code topicId} (KIP-516: Kafka's LeaderAndIsr v5 and UpdateMetadata v7 carry it per topic; here
 * it follows each partition, the same for every partition of a topic, all zero for a topic without an id). Responses
 * are the same at every version. {@link #latestVersion} gives what a sender writes; a receiver reads every version from
 * 0 to that, so a v0 sender (an older controller) is still understood (its partitions have no topic id). The server
 * refuses the versions it does not implement before the body is read.
 *
 * <p>Integrity: the bytes are not checksummed (TCP and the frame size are the transport's); they are validated.
 * Every count and length is bounded by the bytes left before anything is allocated for it; strings are strict
 * UTF-8; topics follow Kafka's rules; broker ids are 0 or more (a leader may be -1 or -2), epochs of a partition 0 or
 * more, ports 0 to 65535; booleans 0 or 1; error codes those above; maps and sets are written in ascending order
 * (partitions by topic then number, brokers by id) and a decoder refuses any other order, so a repeated entry
 * cannot hide; partitions of one topic carry one topic id; no byte may follow the body. The encoding is canonical: whatever decodes re-encodes to the same
 * bytes. Anything else is a {@link MalformedControlMessageException} naming the message, field, position and value.
 * The encoders refuse (with {@link IllegalArgumentException}) what the decoders would.
 *
 * <p>The code follows the diagrams' layers, each written once: this class the messages (their keys, versions, error
 * codes and the order of their parts), {@code ControlStructures} the structures they are built of (PartitionState,
 * LiveBroker, TopicPartition arrays, Refusal), {@code ControlWriter} and {@code ControlReader} the primitives (the
 * writer sizes a body, then fills a buffer of exactly that size; the reader checks every field before it is used).
 *
 * <p>Stateless and thread-safe.
 */
public final class ControlCodec {
    /** API key of LeaderAndIsr. */
    static final short LEADER_AND_ISR_KEY = 16_400;
    /** API key of UpdateMetadata. */
    static final short UPDATE_METADATA_KEY = 16_401;
    /** API key of StopReplica. */
    public static final short STOP_REPLICA_KEY = 16_402;
    /** API key of ControlledShutdown. */
    static final short CONTROLLED_SHUTDOWN_KEY = 16_403;
    /** The first version of every control message (history in the javadoc). */
    public static final short FIRST_VERSION = 0;
    /** The version of LeaderAndIsr and UpdateMetadata that carries topic ids. */
    static final short TOPIC_ID_VERSION = 1;

    /** Error code: accepted. */
    static final short NONE = 0;
    /** Error code of {@link StaleControllerEpochException} (Kafka's STALE_CONTROLLER_EPOCH). */
    static final short STALE_CONTROLLER_EPOCH = 11;
    /** Error code of {@link NotControllerException} (Kafka's NOT_CONTROLLER). */
    static final short NOT_CONTROLLER = 41;
    /** Error code of {@link StaleLeaderEpochException} (Kafka's FENCED_LEADER_EPOCH). */
    static final short FENCED_LEADER_EPOCH = 74;
    /** Error code of {@link StaleBrokerEpochException} (Kafka's STALE_BROKER_EPOCH). */
    static final short STALE_BROKER_EPOCH = 77;

    /** Bytes of an int8. */
    static final int INT8_LENGTH = 1;
    /** Bytes of an int16, also of a string's length. */
    static final int INT16_LENGTH = 2;
    /** Bytes of an int32, also of an array's count. */
    static final int INT32_LENGTH = 4;
    /** Bytes of an int64. */
    static final int INT64_LENGTH = 8;
    /** Length of the request header: controllerId, controllerEpoch, brokerEpoch. */
    static final int REQUEST_HEADER_LENGTH = INT32_LENGTH + INT32_LENGTH + INT64_LENGTH;
    /** Length of a ControlledShutdown request: brokerId, brokerEpoch. */
    static final int CONTROLLED_SHUTDOWN_LENGTH = INT32_LENGTH + INT64_LENGTH;
    /** Smallest TopicPartition: a one-byte topic. */
    static final int MIN_TOPIC_PARTITION_LENGTH = INT16_LENGTH + 1 + INT32_LENGTH;
    /** Smallest PartitionState: controllerEpoch, leader, leaderEpoch, partitionEpoch, isNew, two empty arrays. */
    static final int MIN_PARTITION_STATE_LENGTH = MIN_TOPIC_PARTITION_LENGTH + 4 * INT32_LENGTH + INT8_LENGTH
        + 2 * INT32_LENGTH;
    /** Smallest LiveBroker: id, epoch, an empty host, port, no rack. */
    static final int MIN_LIVE_BROKER_LENGTH = INT32_LENGTH + INT64_LENGTH + INT16_LENGTH + INT32_LENGTH + INT16_LENGTH;
    /** Bytes of a topic id (Kafka's uuid type: two big-endian int64). */
    static final int UUID_LENGTH = 16;
    /** Smallest Refusal: both epochs and a null reason. */
    static final int MIN_REFUSAL_LENGTH = INT64_LENGTH + INT64_LENGTH + INT16_LENGTH;
    /** Smallest PartitionError: a TopicPartition, an error code and a Refusal. */
    static final int MIN_PARTITION_ERROR_LENGTH = MIN_TOPIC_PARTITION_LENGTH + INT16_LENGTH + MIN_REFUSAL_LENGTH;

    /** The order of every partition list on the wire: by topic (ASCII, so bytewise), then by number. */
    static final Comparator<TopicPartition> PARTITION_ORDER =
        Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    private ControlCodec() {
    }

    /**
     * A ControlledShutdown request: a broker asks the controller to move its leaderships away.
     *
     * @param brokerId    the broker shutting down, 0 or more
     * @param brokerEpoch its epoch
     */
    public record ControlledShutdown(int brokerId, long brokerEpoch) {
    }

    /**
     * The API key a request is sent with.
     *
     * @param request the request
     * @return {@link #LEADER_AND_ISR_KEY}, {@link #UPDATE_METADATA_KEY} or {@link #STOP_REPLICA_KEY}
     */
    public static short apiKey(final ControlRequest request) {
        Objects.requireNonNull(request, "request");
        if (request instanceof LeaderAndIsrRequest) {
            return LEADER_AND_ISR_KEY;
        }
        if (request instanceof UpdateMetadataRequest) {
            return UPDATE_METADATA_KEY;
        }
        if (request instanceof StopReplicaRequest) {
            return STOP_REPLICA_KEY;
        }
        throw new IllegalArgumentException("request class=" + request.getClass().getName() + " has no API key");
    }

    /**
     * The version a sender writes: the highest this codec knows for the message.
     *
     * @param apiKey the message's key
     * @return {@link #TOPIC_ID_VERSION} for LeaderAndIsr and UpdateMetadata, {@link #FIRST_VERSION} for the others
     * @throws IllegalArgumentException for a key that is not a control message's
     */
    public static short latestVersion(final short apiKey) {
        switch (apiKey) {
            case LEADER_AND_ISR_KEY:
            case UPDATE_METADATA_KEY:
                return TOPIC_ID_VERSION;
            case STOP_REPLICA_KEY:
            case CONTROLLED_SHUTDOWN_KEY:
                return FIRST_VERSION;
            default:
                throw new IllegalArgumentException("apiKey=" + apiKey + " is not a control message's");
        }
    }

    /**
     * Encodes a controller-to-broker request at its {@link #latestVersion}.
     *
     * @param request the request
     * @return the body, exactly sized, positioned at 0
     * @throws IllegalArgumentException naming the field when the request holds what the decoder would refuse
     */
    public static ByteBuffer encodeRequest(final ControlRequest request) {
        return encodeRequest(request, latestVersion(apiKey(request)));
    }

    /**
     * Encodes a controller-to-broker request at a given version (version 0 of LeaderAndIsr and UpdateMetadata leaves
     * the topic ids out, for a receiver that does not know version 1).
     *
     * @param request the request
     * @param version a version from {@link #FIRST_VERSION} to the message's {@link #latestVersion}
     * @return the body, exactly sized, positioned at 0
     * @throws IllegalArgumentException naming the field when the request holds what the decoder would refuse (a
     *                                  negative controller or replica id, a repeated replica, a live broker under
     *                                  another id, a string longer than 32767 bytes or not encodable)
     */
    static ByteBuffer encodeRequest(final ControlRequest request, final short version) {
        Objects.requireNonNull(request, "request");
        checkBrokerId("controllerId", request.controllerId());
        final short key = apiKey(request);
        if (version < FIRST_VERSION || version > latestVersion(key)) {
            throw new IllegalArgumentException("version=" + version + " of apiKey=" + key + " must be "
                + FIRST_VERSION + " to " + latestVersion(key));
        }
        final boolean withIds = version >= TOPIC_ID_VERSION;
        final Consumer<ControlWriter> header = out -> {
            out.int32(request.controllerId());
            out.int32(request.controllerEpoch());
            out.int64(request.brokerEpoch());
        };
        if (request instanceof LeaderAndIsrRequest lai) {
            final List<Map.Entry<TopicPartition, PartitionStateInfo>> states = sortedStates(lai.partitions());
            final List<LiveBroker> leaders = sortedBrokers("liveLeaders", lai.liveLeaders());
            return ControlWriter.encode(header.andThen(out -> writeStates(out, states, withIds))
                .andThen(out -> writeBrokers(out, leaders)));
        }
        if (request instanceof UpdateMetadataRequest um) {
            final List<LiveBroker> brokers = sortedBrokers("liveBrokers", um.liveBrokers());
            final List<Map.Entry<TopicPartition, PartitionStateInfo>> states = sortedStates(um.partitions());
            return ControlWriter.encode(header.andThen(out -> writeBrokers(out, brokers))
                .andThen(out -> writeStates(out, states, withIds)));
        }
        final StopReplicaRequest stop = (StopReplicaRequest) request;
        final List<TopicPartition> partitions = sorted(stop.partitions());
        return ControlWriter.encode(header.andThen(out -> {
            out.bool(stop.delete());
            writePartitions(out, partitions);
        }));
    }

    /**
     * Decodes a controller-to-broker request.
     *
     * @param apiKey  the key from the request header
     * @param version the version from the request header
     * @param body    the body, read from its position to its limit (the buffer itself is not moved)
     * @return the request
     * @throws MalformedControlMessageException when the key is not a controller-to-broker request's, the version is
     *                                          unknown, or the body is not a valid one
     */
    public static ControlRequest decodeRequest(final short apiKey, final short version, final ByteBuffer body) {
        Objects.requireNonNull(body, "body");
        final ControlReader in = new ControlReader(typeName(apiKey, "request") + " request v" + version, body);
        in.checkVersion(version, latestVersion(apiKey));
        final boolean withIds = version >= TOPIC_ID_VERSION;
        final int controllerId = in.brokerId("controllerId");
        final int controllerEpoch = in.int32("controllerEpoch");
        final long brokerEpoch = in.int64("brokerEpoch");
        final ControlRequest request;
        if (apiKey == LEADER_AND_ISR_KEY) {
            final Map<TopicPartition, PartitionStateInfo> states = readStates(in, withIds);
            final Map<Integer, LiveBroker> leaders = readBrokers(in, "liveLeaders");
            request = new LeaderAndIsrRequest(controllerId, controllerEpoch, brokerEpoch, states, leaders);
        } else if (apiKey == UPDATE_METADATA_KEY) {
            final Map<Integer, LiveBroker> brokers = readBrokers(in, "liveBrokers");
            final Map<TopicPartition, PartitionStateInfo> states = readStates(in, withIds);
            request = new UpdateMetadataRequest(controllerId, controllerEpoch, brokerEpoch, brokers, states);
        } else {
            final boolean delete = in.bool("delete");
            final Set<TopicPartition> partitions = readPartitions(in, "partitions");
            request = new StopReplicaRequest(controllerId, controllerEpoch, brokerEpoch, partitions, delete);
        }
        in.end();
        return request;
    }

    /**
     * Encodes a broker's answer to an accepted request: error code 0 and the refused partitions.
     *
     * @param response the answer
     * @return the body, exactly sized, positioned at 0
     * @throws IllegalArgumentException when a partition's refusal is not one of the refusal classes this codec knows
     */
    public static ByteBuffer encodeResponse(final ControlResponse response) {
        Objects.requireNonNull(response, "response");
        final List<Map.Entry<TopicPartition, ControlRequestRefusedException>> errors =
            new ArrayList<>(response.partitionErrors().entrySet());
        errors.sort(Map.Entry.comparingByKey(PARTITION_ORDER));
        return ControlWriter.encode(out -> {
            out.int16(NONE);
            out.int32(errors.size());
            for (final Map.Entry<TopicPartition, ControlRequestRefusedException> error : errors) {
                writePartition(out, error.getKey());
                out.int16(errorCode(error.getValue()));
                writeRefusal(out, error.getValue());
            }
        });
    }

    /**
     * Encodes a broker's refusal of a whole request.
     *
     * @param refusal a {@link StaleControllerEpochException} or a {@link StaleBrokerEpochException}
     * @return the body, exactly sized, positioned at 0
     * @throws IllegalArgumentException for any other refusal
     */
    public static ByteBuffer encodeRefusal(final ControlRequestRefusedException refusal) {
        Objects.requireNonNull(refusal, "refusal");
        if (!(refusal instanceof StaleControllerEpochException) && !(refusal instanceof StaleBrokerEpochException)) {
            throw new IllegalArgumentException("refusal class=" + refusal.getClass().getName()
                + " cannot refuse a whole message (only StaleControllerEpochException or StaleBrokerEpochException)");
        }
        return ControlWriter.encode(out -> {
            out.int16(errorCode(refusal));
            writeRefusal(out, refusal);
        });
    }

    /**
     * Decodes a broker's answer to a controller-to-broker request.
     *
     * @param apiKey  the key of the request answered
     * @param version the version of the request answered
     * @param body    the body, read from its position to its limit (the buffer itself is not moved)
     * @return the response, when the request was accepted
     * @throws StaleControllerEpochException    when the broker refused the whole request for its controller epoch
     * @throws StaleBrokerEpochException        when it refused it for its broker epoch
     * @throws MalformedControlMessageException when the key or version is unknown or the body is not a valid one
     */
    public static ControlResponse decodeResponse(final short apiKey, final short version, final ByteBuffer body) {
        Objects.requireNonNull(body, "body");
        final ControlReader in = new ControlReader(typeName(apiKey, "response") + " response v" + version, body);
        in.checkVersion(version, latestVersion(apiKey));
        final short code = in.errorCode("errorCode", NONE, STALE_CONTROLLER_EPOCH, STALE_BROKER_EPOCH);
        if (code != NONE) {
            final ControlRequestRefusedException refusal = readRefusal(in, code);
            in.end();
            throw refusal;
        }
        final int count = in.count("partitionErrors", MIN_PARTITION_ERROR_LENGTH);
        final Map<TopicPartition, ControlRequestRefusedException> errors = new HashMap<>();
        TopicPartition previous = null;
        for (int i = 0; i < count; i++) {
            in.element("partitionErrors", i);
            final TopicPartition tp = in.topicPartition(previous);
            final short partitionCode = in.errorCode("errorCode", STALE_CONTROLLER_EPOCH, FENCED_LEADER_EPOCH,
                STALE_BROKER_EPOCH);
            errors.put(tp, readRefusal(in, partitionCode));
            previous = tp;
        }
        in.element(null, 0);
        in.end();
        return new ControlResponse(errors);
    }

    /**
     * Encodes a ControlledShutdown request at {@link #FIRST_VERSION}, its only version.
     *
     * @param brokerId    the broker shutting down, 0 or more
     * @param brokerEpoch its epoch
     * @return the body, exactly sized, positioned at 0
     * @throws IllegalArgumentException when the broker id is negative
     */
    public static ByteBuffer encodeControlledShutdownRequest(final int brokerId, final long brokerEpoch) {
        checkBrokerId("brokerId", brokerId);
        return ControlWriter.encode(out -> {
            out.int32(brokerId);
            out.int64(brokerEpoch);
        });
    }

    /**
     * Decodes a ControlledShutdown request.
     *
     * @param version the version from the request header
     * @param body    the body, read from its position to its limit (the buffer itself is not moved)
     * @return the request
     * @throws MalformedControlMessageException when the version is unknown or the body is not a valid one
     */
    public static ControlledShutdown decodeControlledShutdownRequest(final short version, final ByteBuffer body) {
        Objects.requireNonNull(body, "body");
        final ControlReader in = new ControlReader("ControlledShutdown request v" + version, body);
        in.checkVersion(version, FIRST_VERSION);
        final ControlledShutdown request = new ControlledShutdown(in.brokerId("brokerId"), in.int64("brokerEpoch"));
        in.end();
        return request;
    }

    /**
     * Encodes the controller's answer to a ControlledShutdown: error code 0 and the partitions the broker still leads.
     *
     * @param stillLed the partitions (empty: the broker may stop)
     * @return the body, exactly sized, positioned at 0
     */
    public static ByteBuffer encodeControlledShutdownResponse(final Set<TopicPartition> stillLed) {
        final List<TopicPartition> partitions = sorted(Objects.requireNonNull(stillLed, "stillLed"));
        return ControlWriter.encode(out -> {
            out.int16(NONE);
            writePartitions(out, partitions);
        });
    }

    /**
     * Encodes the controller's refusal of a ControlledShutdown.
     *
     * @param e a {@link NotControllerException} or a {@link StaleBrokerEpochException}
     * @return the body, exactly sized, positioned at 0
     * @throws IllegalArgumentException for any other exception, or a negative broker id
     */
    public static ByteBuffer encodeControlledShutdownRefusal(final RuntimeException e) {
        Objects.requireNonNull(e, "e");
        if (e instanceof NotControllerException notController) {
            checkBrokerId("brokerId", notController.brokerId());
            return ControlWriter.encode(out -> {
                out.int16(NOT_CONTROLLER);
                out.int32(notController.brokerId());
            });
        }
        if (e instanceof StaleBrokerEpochException stale) {
            return ControlWriter.encode(out -> {
                out.int16(STALE_BROKER_EPOCH);
                writeRefusal(out, stale);
            });
        }
        throw new IllegalArgumentException("exception class=" + e.getClass().getName()
            + " cannot refuse a ControlledShutdown (only NotControllerException or StaleBrokerEpochException)");
    }

    /**
     * Decodes the controller's answer to a ControlledShutdown.
     *
     * @param version the version of the request answered
     * @param body    the body, read from its position to its limit (the buffer itself is not moved)
     * @return the partitions the broker still leads (immutable)
     * @throws NotControllerException           when the broker asked is not the controller
     * @throws StaleBrokerEpochException        when the controller refused the broker's epoch
     * @throws MalformedControlMessageException when the version is unknown or the body is not a valid one
     */
    public static Set<TopicPartition> decodeControlledShutdownResponse(final short version, final ByteBuffer body) {
        Objects.requireNonNull(body, "body");
        final ControlReader in = new ControlReader("ControlledShutdown response v" + version, body);
        in.checkVersion(version, FIRST_VERSION);
        final short code = in.errorCode("errorCode", NONE, NOT_CONTROLLER, STALE_BROKER_EPOCH);
        final RuntimeException refusal;
        if (code == NOT_CONTROLLER) {
            refusal = new NotControllerException(in.brokerId("brokerId"));
        } else if (code == STALE_BROKER_EPOCH) {
            refusal = readRefusal(in, code);
        } else {
            final Set<TopicPartition> stillLed = readPartitions(in, "stillLed");
            in.end();
            return stillLed;
        }
        in.end();
        throw refusal;
    }

    // ---------------------------------------------------------------------------------------------------- decoding

    private static String typeName(final short apiKey, final String kind) {
        switch (apiKey) {
            case LEADER_AND_ISR_KEY:
                return "LeaderAndIsr";
            case UPDATE_METADATA_KEY:
                return "UpdateMetadata";
            case STOP_REPLICA_KEY:
                return "StopReplica";
            default:
                throw new MalformedControlMessageException("control " + kind, "apiKey",
                    MalformedControlMessageException.IN_HEADER, String.valueOf(apiKey), "must be "
                    + LEADER_AND_ISR_KEY + " (LeaderAndIsr), " + UPDATE_METADATA_KEY + " (UpdateMetadata) or "
                    + STOP_REPLICA_KEY + " (StopReplica)" + (apiKey == CONTROLLED_SHUTDOWN_KEY
                    ? "; ControlledShutdown has its own decoder" : ""), null);
        }
    }
}
