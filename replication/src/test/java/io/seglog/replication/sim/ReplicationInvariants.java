package io.seglog.replication.sim;

import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The replication invariants of issue 15, checked after every event of a simulated run from what the brokers and
 * ZooKeeper hold then, and at the end from the replicas' logs. It keeps the history it needs (who led which leader
 * epoch, the highest epochs and high watermarks seen) and reports the first violation with the event that showed it,
 * so a failing seed names what broke and when.
 *
 * <p>After every event ({@link #observe}):
 * <ul>
 *   <li>one leader per (partition, leader epoch): two brokers never lead the same partition in the same epoch;</li>
 *   <li>leader epochs, each broker's controller epoch and ZooKeeper's controller epoch never go back; a leader's
 *       high watermark never goes back within its leader epoch (a follower's may: it follows the leader's, which a
 *       new leader can start lower, as in Kafka); an unclean restart starts a broker's baselines again
 *       ({@link #restarted});</li>
 *   <li>the leader's high watermark is at most the log end offset of every ISR member (ZooKeeper's ISR, read at
 *       the leader's epoch);</li>
 *   <li>the ISR in ZooKeeper is never empty;</li>
 *   <li>no replica that stayed in the ISR is truncated below the high watermark it had ({@link #truncated}).</li>
 * </ul>
 * At the end ({@link #checkEnd}): every acknowledged record is on every ISR member at its offset, the replicas are
 * identical below the leader's high watermark, and no offset ever held two values on replicas of the ISR.
 *
 * <p>Not thread-safe: the simulation's one thread calls it.
 */
final class ReplicationInvariants {
    static final java.util.Comparator<TopicPartition> BY_TP = java.util.Comparator
        .comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    private static <V> TreeMap<TopicPartition, V> sorted(final Map<TopicPartition, V> map) {
        final TreeMap<TopicPartition, V> out = new TreeMap<>(BY_TP);
        out.putAll(map);
        return out;
    }

    /** A broker's view of one partition. */
    record Replica(int broker, boolean leader, int leaderEpoch, long highWatermark, long logEndOffset) {
    }

    /** ZooKeeper's state of one partition. */
    record ZkPartition(int leader, int leaderEpoch, List<Integer> isr) {
        ZkPartition {
            isr = List.copyOf(isr);
        }
    }

    /**
     * Everything observed after one event.
     *
     * @param event            what just happened (for the report)
     * @param replicas         per partition, each running broker's replica
     * @param zk               per partition, ZooKeeper's state
     * @param controllerEpoch  ZooKeeper's controller epoch (-1 before the first)
     * @param brokerControllerEpochs each running broker's latest known controller epoch
     */
    record Snapshot(String event, Map<TopicPartition, List<Replica>> replicas, Map<TopicPartition, ZkPartition> zk,
                    int controllerEpoch, Map<Integer, Integer> brokerControllerEpochs) {
    }

    /** A broken invariant, with the event after which it was seen. */
    static final class Violation extends AssertionError {
        private static final long serialVersionUID = 1L;

        /**
         * @param event what it followed
         * @param what  what broke
         */
        Violation(final String event, final String what) {
            super("after " + event + ": " + what);
        }

        private Violation(final String message) {
            super(message);
        }

        /**
         * The same violation with more said about the state it was seen in.
         *
         * @param detail what to add
         * @return a new violation
         */
        Violation with(final String detail) {
            return new Violation(getMessage() + detail);
        }
    }

    private final Map<String, Integer> leaderOfEpoch = new HashMap<>();
    private final Map<String, Integer> highestLeaderEpoch = new HashMap<>();
    private final Map<String, Long> highestHw = new HashMap<>();
    private final Map<Integer, Integer> highestBrokerControllerEpoch = new HashMap<>();
    private int highestControllerEpoch = -1;
    private final Map<TopicPartition, ZkPartition> lastZk = new HashMap<>();
    private final Map<String, Long> lastHwOf = new HashMap<>();
    private long events;

    private static String key(final int broker, final TopicPartition tp) {
        return broker + "@" + tp;
    }

    /**
     * Checks one snapshot against the invariants and the history.
     *
     * @param s the snapshot
     * @throws Violation naming the invariant, the partition, the brokers and the values
     */
    void observe(final Snapshot s) {
        events++;
        if (s.controllerEpoch() < highestControllerEpoch) {
            throw new Violation(s.event(), "ZooKeeper's controller epoch went back from " + highestControllerEpoch
                + " to " + s.controllerEpoch());
        }
        highestControllerEpoch = s.controllerEpoch();
        s.brokerControllerEpochs().forEach((broker, epoch) -> {
            final Integer before = highestBrokerControllerEpoch.get(broker);
            if (before != null && epoch < before) {
                throw new Violation(s.event(), "broker " + broker + "'s controller epoch went back from " + before
                    + " to " + epoch);
            }
            highestBrokerControllerEpoch.put(broker, epoch);
        });
        for (final Map.Entry<TopicPartition, ZkPartition> e : sorted(s.zk()).entrySet()) {
            if (e.getValue().isr().isEmpty()) {
                throw new Violation(s.event(), e.getKey() + ": the ISR in ZooKeeper is empty");
            }
            lastZk.put(e.getKey(), e.getValue());
        }
        for (final Map.Entry<TopicPartition, List<Replica>> e : sorted(s.replicas()).entrySet()) {
            final TopicPartition tp = e.getKey();
            final Map<Integer, Replica> byBroker = new TreeMap<>();
            for (final Replica r : e.getValue()) {
                byBroker.put(r.broker(), r);
                checkReplicaHistory(s.event(), tp, r);
            }
            for (final Replica r : e.getValue()) {
                if (r.leader()) {
                    checkLeader(s.event(), tp, r, byBroker, s.zk().get(tp));
                }
            }
        }
    }

    private void checkReplicaHistory(final String event, final TopicPartition tp, final Replica r) {
        final String k = key(r.broker(), tp);
        final Integer epoch = highestLeaderEpoch.get(k);
        if (epoch != null && r.leaderEpoch() < epoch) {
            throw new Violation(event, tp + " on broker " + r.broker() + ": leader epoch went back from " + epoch
                + " to " + r.leaderEpoch());
        }
        highestLeaderEpoch.put(k, r.leaderEpoch());
        if (r.leader()) {
            final String term = k + "#" + r.leaderEpoch();
            final Long hw = highestHw.get(term);
            if (hw != null && r.highWatermark() < hw) {
                throw new Violation(event, tp + " led by broker " + r.broker() + " in epoch " + r.leaderEpoch()
                    + ": high watermark went back from " + hw + " to " + r.highWatermark());
            }
            highestHw.put(term, r.highWatermark());
        }
        lastHwOf.put(k, r.highWatermark());
        if (r.leader()) {
            final String epochKey = tp + "#" + r.leaderEpoch();
            final Integer other = leaderOfEpoch.putIfAbsent(epochKey, r.broker());
            if (other != null && other != r.broker()) {
                throw new Violation(event, tp + ": brokers " + other + " and " + r.broker() + " both led leader epoch "
                    + r.leaderEpoch());
            }
        }
    }

    private static void checkLeader(final String event, final TopicPartition tp, final Replica leader,
                                    final Map<Integer, Replica> byBroker, final ZkPartition zk) {
        if (zk == null || zk.leaderEpoch() != leader.leaderEpoch()) {
            return; // the leader's view and ZooKeeper's differ in epoch: the ISR to compare with is not known
        }
        for (final int member : zk.isr()) {
            final Replica r = byBroker.get(member);
            if (r != null && leader.highWatermark() > r.logEndOffset()) {
                throw new Violation(event, tp + ": leader " + leader.broker() + "'s high watermark "
                    + leader.highWatermark() + " is past ISR member " + member + "'s log end offset "
                    + r.logEndOffset() + " (ISR " + zk.isr() + ")");
            }
        }
    }

    /**
     * A replica's log was truncated (a follower settling with its leader, or recovery).
     *
     * @param event  what truncated it
     * @param broker the broker
     * @param tp     the partition
     * @param to     the new log end offset
     */
    void truncated(final String event, final int broker, final TopicPartition tp, final long to) {
        final ZkPartition zk = lastZk.get(tp);
        final Long hw = lastHwOf.get(key(broker, tp));
        if (zk != null && zk.isr().contains(broker) && hw != null && to < hw) {
            throw new Violation(event, tp + " on broker " + broker + " (in the ISR " + zk.isr() + ") truncated to "
                + to + ", below its high watermark " + hw);
        }
    }

    /**
     * A broker restarted after a crash: its in-memory state starts again, so do its baselines (its log keeps only
     * what was durable; it learns the controller epoch again).
     *
     * @param broker the broker
     */
    void restarted(final int broker) {
        final String prefix = broker + "@";
        highestHw.keySet().removeIf(k -> k.startsWith(prefix));
        lastHwOf.keySet().removeIf(k -> k.startsWith(prefix));
        highestLeaderEpoch.keySet().removeIf(k -> k.startsWith(prefix));
        highestBrokerControllerEpoch.remove(broker);
    }

    /**
     * The snapshots checked so far.
     *
     * @return the count
     */
    long events() {
        return events;
    }

    /**
     * The end-of-run checks.
     *
     * @param acknowledged per partition, each acknowledged offset with the digest of its record
     * @param logs         per partition, per broker, each offset with its record's digest
     * @param isr          per partition, the final ISR
     * @param highWatermark per partition, the leader's final high watermark
     * @throws Violation naming the partition, broker and offset
     */
    static void checkEnd(final Map<TopicPartition, Map<Long, Long>> acknowledged,
                         final Map<TopicPartition, Map<Integer, Map<Long, Long>>> logs,
                         final Map<TopicPartition, List<Integer>> isr, final Map<TopicPartition, Long> highWatermark) {
        for (final TopicPartition tp : sorted(isr).keySet()) {
            final Map<Integer, Map<Long, Long>> replicas = logs.getOrDefault(tp, Map.of());
            for (final int member : isr.get(tp)) {
                final Map<Long, Long> log = replicas.getOrDefault(member, Map.of());
                for (final Map.Entry<Long, Long> a : new TreeMap<>(acknowledged.getOrDefault(tp, Map.of()))
                    .entrySet()) {
                    if (!Objects.equals(log.get(a.getKey()), a.getValue())) {
                        throw new Violation("the end", tp + ": acknowledged offset " + a.getKey() + " is "
                            + (log.containsKey(a.getKey()) ? "another record" : "missing") + " on ISR member "
                            + member);
                    }
                }
            }
            final long hw = highWatermark.getOrDefault(tp, 0L);
            final List<Integer> members = new ArrayList<>(isr.get(tp));
            for (long offset = 0; offset < hw; offset++) {
                Long value = null;
                int first = -1;
                for (final int member : members) {
                    final Map<Long, Long> log = replicas.getOrDefault(member, Map.of());
                    if (!log.containsKey(offset)) {
                        continue; // below its log start (retention): nothing to compare
                    }
                    if (value == null) {
                        value = log.get(offset);
                        first = member;
                    } else if (!value.equals(log.get(offset))) {
                        throw new Violation("the end", tp + ": offset " + offset + " below the high watermark " + hw
                            + " differs between ISR members " + first + " and " + member);
                    }
                }
            }
        }
    }

    /**
     * One replica's log as an idempotent producer's retries must leave it: each batch (its value names the producer
     * and the sequence, {@code <prefix><producer id>-<sequence>}) at most once, and each producer's sequences one after
     * another. A retry the leader did not know for a duplicate (lost producer state, a new leader that rebuilt it
     * wrong) shows up twice; a leader that accepted a sequence after a gap shows up out of order.
     *
     * @param where  the partition and replica, for the message
     * @param prefix the idempotent records' value prefix (other values are skipped)
     * @param values the replica's log: offset to record value
     * @throws Violation if a batch is there twice or a producer's sequences skip or go back
     */
    static void checkIdempotent(final String where, final String prefix, final Map<Long, String> values) {
        final Map<String, Long> seen = new HashMap<>();
        final Map<Long, Integer> lastSequence = new HashMap<>();
        for (final Map.Entry<Long, String> e : new TreeMap<>(values).entrySet()) {
            final String value = e.getValue();
            if (!value.startsWith(prefix)) {
                continue;
            }
            final Long earlier = seen.putIfAbsent(value, e.getKey());
            if (earlier != null) {
                throw new Violation("the end", where + " holds the idempotent batch " + value + " twice, at offsets "
                    + earlier + " and " + e.getKey());
            }
            final String[] parts = value.substring(prefix.length()).split("-");
            final long producerId = Long.parseLong(parts[0]);
            final int sequence = Integer.parseInt(parts[1]);
            final Integer before = lastSequence.put(producerId, sequence);
            if (before != null && sequence != before + 1) {
                throw new Violation("the end", where + " holds producer " + producerId + "'s sequence " + sequence
                    + " at offset " + e.getKey() + " right after its sequence " + before);
            }
        }
    }

    /**
     * The partitions with a violation-free history, for a summary.
     *
     * @return the partitions observed in ZooKeeper
     */
    Set<TopicPartition> partitions() {
        return lastZk.keySet();
    }
}
