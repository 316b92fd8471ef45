package io.seglog.replication.wire;

import static io.seglog.replication.wire.ControlCodec.FENCED_LEADER_EPOCH;
import static io.seglog.replication.wire.ControlCodec.MIN_LIVE_BROKER_LENGTH;
import static io.seglog.replication.wire.ControlCodec.MIN_PARTITION_STATE_LENGTH;
import static io.seglog.replication.wire.ControlCodec.MIN_TOPIC_PARTITION_LENGTH;
import static io.seglog.replication.wire.ControlCodec.PARTITION_ORDER;
import static io.seglog.replication.wire.ControlCodec.STALE_BROKER_EPOCH;
import static io.seglog.replication.wire.ControlCodec.STALE_CONTROLLER_EPOCH;
import static io.seglog.replication.wire.ControlCodec.UUID_LENGTH;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.transport.ControlRequestRefusedException;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.replication.transport.StaleBrokerEpochException;
import io.seglog.replication.transport.StaleControllerEpochException;
import io.seglog.replication.transport.StaleLeaderEpochException;
import io.seglog.storage.TopicId;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The structures the control messages are built of, as {@link ControlCodec}'s diagrams draw them: PartitionState,
 * LiveBroker, TopicPartition arrays and the Refusal, each written and read here, once, for every message that carries
 * it. The writers refuse (with {@link IllegalArgumentException}) what the readers would; the readers check order and
 * ranges as they go. Stateless: the state of a pass is the {@link ControlWriter}'s or {@link ControlReader}'s.
 */
final class ControlStructures {
    private ControlStructures() {
    }

    static void writeStates(final ControlWriter out, final List<Map.Entry<TopicPartition, PartitionStateInfo>> states,
                            final boolean withIds) {
        out.int32(states.size());
        Map.Entry<TopicPartition, PartitionStateInfo> previous = null;
        for (final Map.Entry<TopicPartition, PartitionStateInfo> entry : states) {
            final PartitionStateInfo state = entry.getValue();
            if (withIds && previous != null && previous.getKey().topic().equals(entry.getKey().topic())
                && !previous.getValue().topicId().equals(state.topicId())) {
                throw new IllegalArgumentException("topicId=" + state.topicId() + " of " + entry.getKey()
                    + " differs from topicId=" + previous.getValue().topicId() + " of " + previous.getKey());
            }
            previous = entry;
            final LeaderAndIsr leaderAndIsr = state.leaderAndIsr();
            writePartition(out, entry.getKey());
            out.int32(state.controllerEpoch());
            out.int32(leaderAndIsr.leader());
            out.int32(leaderAndIsr.leaderEpoch());
            out.int32(leaderAndIsr.partitionEpoch());
            out.bool(state.isNew());
            writeIds(out, leaderAndIsr.isr());
            writeIds(out, state.replicas());
            if (withIds) {
                out.int64(state.topicId().mostSignificantBits());
                out.int64(state.topicId().leastSignificantBits());
            }
        }
    }

    static void writeIds(final ControlWriter out, final List<Integer> ids) {
        out.int32(ids.size());
        for (final int id : ids) {
            out.int32(id);
        }
    }

    static void writeBrokers(final ControlWriter out, final List<LiveBroker> brokers) {
        out.int32(brokers.size());
        for (final LiveBroker broker : brokers) {
            out.int32(broker.id());
            out.int64(broker.epoch());
            out.string("host", broker.host(), false);
            out.int32(broker.port());
            out.string("rack", broker.rack().orElse(null), true);
        }
    }

    static void writePartitions(final ControlWriter out, final List<TopicPartition> partitions) {
        out.int32(partitions.size());
        for (final TopicPartition tp : partitions) {
            writePartition(out, tp);
        }
    }

    static void writePartition(final ControlWriter out, final TopicPartition tp) {
        out.string("topic", tp.topic(), false);
        out.int32(tp.partition());
    }

    /** The Refusal structure: what follows the error code. */
    static void writeRefusal(final ControlWriter out, final ControlRequestRefusedException refusal) {
        out.int64(refusal.requestEpoch());
        out.int64(refusal.currentEpoch());
        out.string("reason", refusal.reason(), true);
    }

    static short errorCode(final ControlRequestRefusedException refusal) {
        if (refusal instanceof StaleControllerEpochException) {
            return STALE_CONTROLLER_EPOCH;
        }
        if (refusal instanceof StaleLeaderEpochException) {
            return FENCED_LEADER_EPOCH;
        }
        if (refusal instanceof StaleBrokerEpochException) {
            return STALE_BROKER_EPOCH;
        }
        throw new IllegalArgumentException("refusal class=" + refusal.getClass().getName() + " has no error code");
    }

    static List<Map.Entry<TopicPartition, PartitionStateInfo>> sortedStates(
        final Map<TopicPartition, PartitionStateInfo> states) {
        final List<Map.Entry<TopicPartition, PartitionStateInfo>> sorted = new ArrayList<>(states.entrySet());
        sorted.sort(Map.Entry.comparingByKey(PARTITION_ORDER));
        for (final Map.Entry<TopicPartition, PartitionStateInfo> entry : sorted) {
            checkIds("replicas of " + entry.getKey(), entry.getValue().replicas());
        }
        return sorted;
    }

    static List<LiveBroker> sortedBrokers(final String field, final Map<Integer, LiveBroker> brokers) {
        final List<LiveBroker> sorted = new ArrayList<>(brokers.size());
        for (final Map.Entry<Integer, LiveBroker> entry : brokers.entrySet()) {
            if (entry.getKey() != entry.getValue().id()) {
                throw new IllegalArgumentException(field + " holds broker.id=" + entry.getValue().id() + " under key="
                    + entry.getKey());
            }
            sorted.add(entry.getValue());
        }
        sorted.sort(Comparator.comparingInt(LiveBroker::id));
        return sorted;
    }

    static List<TopicPartition> sorted(final Set<TopicPartition> partitions) {
        final List<TopicPartition> sorted = new ArrayList<>(partitions);
        sorted.sort(PARTITION_ORDER);
        return sorted;
    }

    static void checkIds(final String field, final List<Integer> ids) {
        final Set<Integer> seen = new HashSet<>();
        for (final int id : ids) {
            checkBrokerId(field, id);
            if (!seen.add(id)) {
                throw new IllegalArgumentException(field + "=" + ids + " holds broker.id=" + id + " twice");
            }
        }
    }

    static void checkBrokerId(final String field, final int id) {
        if (id < 0) {
            throw new IllegalArgumentException(field + "=" + id + " must be >= 0");
        }
    }


    static Map<TopicPartition, PartitionStateInfo> readStates(final ControlReader in, final boolean withIds) {
        final int count = in.count("partitions", MIN_PARTITION_STATE_LENGTH + (withIds ? UUID_LENGTH : 0));
        final Map<TopicPartition, PartitionStateInfo> states = new HashMap<>();
        TopicPartition previous = null;
        TopicId previousId = null;
        for (int i = 0; i < count; i++) {
            in.element("partitions", i);
            final TopicPartition tp = in.topicPartition(previous);
            final int controllerEpoch = in.int32("controllerEpoch");
            final int leader = in.int32AtLeast("leader", LeaderAndIsr.LEADER_DURING_DELETE);
            final int leaderEpoch = in.int32AtLeast("leaderEpoch", 0);
            final int partitionEpoch = in.int32AtLeast("partitionEpoch", 0);
            final boolean isNew = in.bool("isNew");
            final List<Integer> isr = in.brokerIds("isr");
            final List<Integer> replicas = in.brokerIds("replicas");
            TopicId topicId = TopicId.ZERO;
            if (withIds) {
                final int at = in.offset();
                topicId = new TopicId(in.int64("topicId"), in.int64("topicId"));
                if (previous != null && previous.topic().equals(tp.topic()) && !topicId.equals(previousId)) {
                    throw in.malformed("topicId", at, topicId.toString(), "partitions of topic " + tp.topic()
                        + " must carry one topic id, as the one before: " + previousId);
                }
            }
            states.put(tp, new PartitionStateInfo(controllerEpoch,
                new LeaderAndIsr(leader, leaderEpoch, isr, partitionEpoch), replicas, isNew, topicId));
            previous = tp;
            previousId = topicId;
        }
        in.element(null, 0);
        return states;
    }

    static Map<Integer, LiveBroker> readBrokers(final ControlReader in, final String array) {
        final int count = in.count(array, MIN_LIVE_BROKER_LENGTH);
        final Map<Integer, LiveBroker> brokers = new HashMap<>();
        int previous = -1;
        for (int i = 0; i < count; i++) {
            in.element(array, i);
            final int at = in.offset();
            final int id = in.brokerId("id");
            if (id <= previous) {
                throw in.malformed("id", at, String.valueOf(id), "ids must ascend, after " + previous);
            }
            final long epoch = in.int64("epoch");
            final String host = in.string("host", false);
            final int portAt = in.offset();
            final int port = in.int32("port");
            if (port < 0 || port > 65_535) {
                throw in.malformed("port", portAt, String.valueOf(port), "must be 0 to 65535");
            }
            final String rack = in.string("rack", true);
            brokers.put(id, new LiveBroker(id, epoch, host, port, Optional.ofNullable(rack)));
            previous = id;
        }
        in.element(null, 0);
        return brokers;
    }

    static Set<TopicPartition> readPartitions(final ControlReader in, final String array) {
        final int count = in.count(array, MIN_TOPIC_PARTITION_LENGTH);
        final List<TopicPartition> partitions = new ArrayList<>(count);
        TopicPartition previous = null;
        for (int i = 0; i < count; i++) {
            in.element(array, i);
            previous = in.topicPartition(previous);
            partitions.add(previous);
        }
        in.element(null, 0);
        return Set.copyOf(partitions); // the order check has ruled out repeats
    }

    /** The Refusal structure after its error code, as the exception the code names. */
    static ControlRequestRefusedException readRefusal(final ControlReader in, final short code) {
        final long requestEpoch = in.int64("requestEpoch");
        final long currentEpoch = in.int64("currentEpoch");
        final String reason = in.string("reason", true);
        switch (code) {
            case STALE_CONTROLLER_EPOCH:
                return new StaleControllerEpochException(reason, requestEpoch, currentEpoch);
            case FENCED_LEADER_EPOCH:
                return new StaleLeaderEpochException(reason, requestEpoch, currentEpoch);
            default:
                return new StaleBrokerEpochException(reason, requestEpoch, currentEpoch);
        }
    }
}
