package io.seglog.replication.data;

import io.seglog.replication.Await;
import io.seglog.replication.broker.SeglogBroker;
import io.seglog.replication.replica.AppendResult;
import io.seglog.replication.replica.Partition;
import io.seglog.replication.replica.ReplicaFixtures;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Writes and reads for the scenario tests, through a broker's own API (the same path as a Kafka produce). */
final class ScenarioSupport {
    private ScenarioSupport() {
    }

    /** One batch holding the values, as a producer would send it. */
    static ByteBuffer batch(final String... values) {
        return ReplicaFixtures.batch(values);
    }

    /**
     * Produces one batch of values through a broker, as a Kafka produce with these acks would, and waits for the
     * answer.
     */
    static AppendResult write(final DataCluster cluster, final int broker, final TopicPartition tp, final int acks,
                              final String... values) throws Exception {
        return cluster.broker(broker).produce(tp, batch(values), (short) acks, 30_000).get(60, TimeUnit.SECONDS);
    }

    static Partition partition(final DataCluster cluster, final int broker, final TopicPartition tp) {
        return cluster.broker(broker).partition(tp).orElseThrow(() -> new AssertionError("broker " + broker
            + " hosts no " + tp));
    }

    static PartitionLog log(final DataCluster cluster, final int broker, final TopicPartition tp) {
        return partition(cluster, broker, tp).log();
    }

    /** The values of a replica's whole log. */
    static List<String> values(final DataCluster cluster, final int broker, final TopicPartition tp) {
        final PartitionLog log = log(cluster, broker, tp);
        return LogBytes.values(log, log.logStartOffset(), log.logEndOffset());
    }

    /** Waits until ZooKeeper names this leader. */
    static void awaitLeader(final DataCluster cluster, final TopicPartition tp, final int leader) {
        Await.until(DataCluster.WAIT, () -> cluster.state(tp).leader() == leader
                && cluster.broker(leader).partition(tp).map(Partition::isLeader).orElse(false),
            () -> "broker " + leader + " leads " + tp + ": " + cluster.state(tp));
    }

    /** Waits until every running replica holds the same bytes up to the leader's log end, and returns that end. */
    static long awaitConverged(final DataCluster cluster, final TopicPartition tp) {
        final int leader = cluster.state(tp).leader();
        // Equal offsets are not enough (a diverged replica may have the same end): wait for equal bytes.
        Await.until(DataCluster.WAIT, () -> {
            final long end = log(cluster, leader, tp).logEndOffset();
            if (!cluster.brokers().values().stream().allMatch(b -> b.partition(tp)
                .map(p -> p.log().logEndOffset() == end && p.log().highWatermark() == end).orElse(false))) {
                return false;
            }
            try {
                LogBytes.assertIdenticalBelowHighWatermark(logs(cluster, tp), end);
                return true;
            } catch (final AssertionError notYet) {
                return false;
            }
        }, () -> "every replica of " + tp + " holds the leader's bytes " + describe(cluster, tp));
        final long end = log(cluster, leader, tp).logEndOffset();
        LogBytes.assertIdenticalBelowHighWatermark(logs(cluster, tp), end);
        return end;
    }

    static Map<Integer, PartitionLog> logs(final DataCluster cluster, final TopicPartition tp) {
        final Map<Integer, PartitionLog> logs = new HashMap<>();
        for (final SeglogBroker b : cluster.brokers().values()) {
            logs.put(b.brokerId(), b.partition(tp).orElseThrow().log());
        }
        return logs;
    }

    static String describe(final DataCluster cluster, final TopicPartition tp) {
        final StringBuilder sb = new StringBuilder(cluster.state(tp).toString());
        cluster.brokers().forEach((id, b) -> b.partition(tp).ifPresent(p -> sb.append("; ").append(id).append(": leo=")
            .append(p.log().logEndOffset()).append(" hw=").append(p.log().highWatermark()).append(" epochs=")
            .append(p.log().leaderEpochs())));
        return sb.toString();
    }
}
