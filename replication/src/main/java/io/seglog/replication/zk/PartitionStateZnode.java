package io.seglog.replication.zk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.seglog.replication.election.LeaderAndIsr;
import java.util.List;

/**
 * The payload of {@code /brokers/topics/<t>/partitions/<p>/state}: a partition's leader, leader epoch, ISR and the
 * epoch of the controller that made the leadership decision.
 *
 * <pre>
 * {"controller_epoch":5,"leader":2,"version":1,"leader_epoch":7,"isr":[2,3]}
 * </pre>
 *
 * <p>Version history: 1 is the only version Kafka ever wrote. Since Kafka 3.2 (KIP-704) the object carries
 * {@code "leader_recovery_state":1} after an unclean election, and only then (0 = recovered is left out); it is
 * read and written here so a rewrite does not lose it. The partition epoch is not in the JSON: it is the znode's
 * version, passed to {@link #fromJson(String, byte[], int)} from the {@code Stat}.
 *
 * <p>Integrity: the decoder checks every field (types, ranges, distinct ISR ids) and rejects anything else with a
 * {@link MalformedZnodeException}. Immutable and thread-safe.
 *
 * @param leaderAndIsr     the leader, leader epoch, ISR and partition epoch
 * @param controllerEpoch  the epoch of the controller that elected this leader (an ISR-only change keeps it)
 * @param leaderRecovering whether the leader was elected uncleanly and has not yet recovered (KIP-704)
 */
public record PartitionStateZnode(LeaderAndIsr leaderAndIsr, int controllerEpoch, boolean leaderRecovering) {
    /** The only payload version. */
    static final int VERSION = 1;
    private static final int RECOVERED = 0;
    private static final int RECOVERING = 1;
    private static final String DEFAULT_PATH = "<partition state znode>";

    /**
     * Validates.
     *
     * @param leaderAndIsr     the leader and ISR
     * @param controllerEpoch  the controller epoch, zero or more
     * @param leaderRecovering the recovery flag
     * @throws IllegalArgumentException when the state is null or the epoch negative
     */
    public PartitionStateZnode {
        if (leaderAndIsr == null) {
            throw new IllegalArgumentException("leaderAndIsr=null");
        }
        if (controllerEpoch < 0) {
            throw new IllegalArgumentException("controllerEpoch=" + controllerEpoch + " must be >= 0");
        }
    }

    /**
     * A recovered partition's state (the usual case).
     *
     * @param leaderAndIsr    the leader and ISR
     * @param controllerEpoch the controller epoch, zero or more
     */
    public PartitionStateZnode(final LeaderAndIsr leaderAndIsr, final int controllerEpoch) {
        this(leaderAndIsr, controllerEpoch, false);
    }

    /**
     * Encodes the payload.
     *
     * @return compact UTF-8 JSON in Kafka's field order
     */
    public byte[] toJson() {
        final ObjectNode obj = ZkJson.newObject()
            .put("controller_epoch", controllerEpoch)
            .put("leader", leaderAndIsr.leader())
            .put("version", VERSION)
            .put("leader_epoch", leaderAndIsr.leaderEpoch());
        obj.set("isr", ZkJson.intArray(leaderAndIsr.isr()));
        if (leaderRecovering) {
            obj.put("leader_recovery_state", RECOVERING);
        }
        return ZkJson.write(obj);
    }

    /**
     * Decodes a payload read from a state znode whose path the caller does not give.
     *
     * @param json    the payload
     * @param version the znode's version ({@code Stat.version}), which becomes the partition epoch
     * @return the state
     * @throws MalformedZnodeException when the payload is not a valid partition state
     */
    public static PartitionStateZnode fromJson(final byte[] json, final int version) throws MalformedZnodeException {
        return fromJson(DEFAULT_PATH, json, version);
    }

    /**
     * Decodes a payload.
     *
     * @param path    the znode's path, for messages
     * @param json    the payload
     * @param version the znode's version ({@code Stat.version}), which becomes the partition epoch
     * @return the state
     * @throws MalformedZnodeException when the payload is not a valid partition state
     * @throws IllegalArgumentException when {@code version} is negative (a caller's mistake, not the payload's)
     */
    static PartitionStateZnode fromJson(final String path, final byte[] json, final int version)
        throws MalformedZnodeException {
        if (version < 0) {
            throw new IllegalArgumentException("version=" + version + " must be >= 0 (path=" + path + ")");
        }
        final ObjectNode obj = ZkJson.parseObject(path, json);
        ZkJson.version(path, obj, VERSION, VERSION);
        final int leader = ZkJson.requiredInt(path, obj, "leader", LeaderAndIsr.LEADER_DURING_DELETE, Integer.MAX_VALUE);
        final int leaderEpoch = ZkJson.requiredInt(path, obj, "leader_epoch", 0, Integer.MAX_VALUE);
        final int controllerEpoch = ZkJson.requiredInt(path, obj, "controller_epoch", 0, Integer.MAX_VALUE);
        final List<Integer> isr = ZkJson.brokerIds(path, "isr", ZkJson.required(path, obj, "isr"), true);
        final JsonNode recovery = obj.get("leader_recovery_state");
        final boolean recovering =
            recovery != null && ZkJson.asInt(path, "leader_recovery_state", recovery, RECOVERED, RECOVERING) == RECOVERING;
        return new PartitionStateZnode(new LeaderAndIsr(leader, leaderEpoch, isr, version), controllerEpoch, recovering);
    }
}
