package io.seglog.replication.example;

import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.broker.ReplicationBroker;
import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.transport.InJvmControlChannel;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.storage.TopicPartition;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Part two of the demo, the replication control plane: three brokers in this JVM (an in-JVM control channel, one
 * ZooKeeper session each), the elected controller and its epoch, a topic with three partitions and replication
 * factor three, the leaders and ISRs as ZooKeeper holds them, then the controller broker stopped: a new controller
 * at the next epoch and new leaders for the partitions the stopped broker led.
 *
 * <p>Not thread-safe; runs on the caller's thread. The brokers' threads come from a factory of named, non-daemon
 * threads, all ended when the brokers close.
 */
final class ClusterTour {
    static final int[] BROKER_IDS = {1, 2, 3};
    static final int PARTITIONS = 3;
    static final int REPLICATION_FACTOR = 3;
    /** Long enough to ride out a pause on a loaded machine, short enough for an embedded server (max 20 ticks). */
    private static final int SESSION_TIMEOUT_MS = 6_000;

    /**
     * What the replication part saw.
     *
     * @param topic             the topic created
     * @param firstController   the controller elected at start
     * @param firstEpoch        its controller epoch
     * @param leadersBefore     partition to leader and ISR after the topic was created
     * @param stoppedBroker     the broker stopped (the first controller)
     * @param secondController  the controller elected after the stop
     * @param secondEpoch       its controller epoch
     * @param leadersAfter      partition to leader and ISR after the failover
     * @param liveBrokers       the brokers registered after the failover
     */
    record Outcome(String topic, int firstController, int firstEpoch, Map<Integer, LeaderAndIsr> leadersBefore,
                   int stoppedBroker, int secondController, int secondEpoch, Map<Integer, LeaderAndIsr> leadersAfter,
                   Set<Integer> liveBrokers) {
    }

    private final String connect;
    private final PrintStream out;
    private final Duration stepTimeout;
    private final InJvmControlChannel channel = new InJvmControlChannel();
    private final Map<Integer, ReplicationBroker> brokers = new TreeMap<>();
    private final AtomicInteger threadIds = new AtomicInteger();

    private ClusterTour(final String connect, final PrintStream out, final Duration stepTimeout) {
        this.connect = connect;
        this.out = out;
        this.stepTimeout = stepTimeout;
    }

    static Outcome run(final String connect, final PrintStream out, final Duration stepTimeout)
        throws InterruptedException, TimeoutException {
        final ClusterTour tour = new ClusterTour(connect, out, stepTimeout);
        final Outcome outcome;
        try {
            outcome = tour.run();
        } catch (final InterruptedException | TimeoutException | RuntimeException | Error e) {
            try {
                tour.closeAll();
            } catch (final RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        final Set<Integer> closing = Set.copyOf(tour.brokers.keySet());
        tour.closeAll();
        out.println("[cluster] closed brokers " + new TreeSet<>(closing));
        return outcome;
    }

    private Outcome run() throws InterruptedException, TimeoutException {
        final ReplicationConfig base = ReplicationConfig.builder().brokerId(BROKER_IDS[0]).zookeeperConnect(connect)
            .zookeeperSessionTimeoutMs(SESSION_TIMEOUT_MS)
            // The demo shows failover only; a later rebalance back to the preferred leaders would blur it.
            .autoLeaderRebalanceEnable(false)
            .build();

        final Deadline startup = Deadline.of("cluster: start brokers and elect a controller", stepTimeout);
        for (final int id : BROKER_IDS) {
            try {
                brokers.put(id, ReplicationBroker.start(base.withBroker(id, null), channel, threads(id),
                    () -> System.nanoTime() / 1_000_000));
            } catch (final RuntimeException e) {
                throw new DemoFailure("step '" + startup.step() + "': broker " + id
                    + " could not start against ZooKeeper " + connect + ": " + e, e);
            }
        }
        final List<String> epochs = new ArrayList<>();
        for (final ReplicationBroker broker : brokers.values()) {
            epochs.add(broker.brokerId() + ":" + broker.awaitRegistered(startup.remainingMs()));
        }
        out.println("[cluster] brokers " + brokers.keySet() + " registered under /brokers/ids (broker epochs "
            + String.join(", ", epochs) + ")");
        final ReplicationBroker controller = awaitController(startup, -1);
        final int firstEpoch = controller.controller().epoch();
        out.println("[cluster] controller: broker " + controller.brokerId() + ", controller epoch " + firstEpoch);

        final Deadline create = Deadline.of("cluster: create a topic", stepTimeout);
        final KafkaZkStore store = controller.store();
        final String topic = freeTopicName(store.topics(null));
        final Map<Integer, List<Integer>> assignment =
            controller.admin(new SplittableRandom(7)).createTopic(topic, PARTITIONS, REPLICATION_FACTOR);
        out.println("[cluster] created topic " + topic + ": " + PARTITIONS + " partitions, replication factor "
            + REPLICATION_FACTOR);
        final List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            partitions.add(new TopicPartition(topic, p));
        }
        final Set<Integer> all = brokers.keySet();
        final Map<Integer, LeaderAndIsr> before = awaitLeaders(create, store, partitions, Set.copyOf(all));
        print(before, assignment, topic);

        final Deadline failover = Deadline.of("cluster: controller failover", stepTimeout);
        final int stopped = controller.brokerId();
        brokers.remove(stopped).close();
        out.println("[cluster] stopped broker " + stopped + " (the controller; its session and ephemerals are gone)");
        final ReplicationBroker next = awaitController(failover, firstEpoch);
        final int secondEpoch = next.controller().epoch();
        out.println("[cluster] new controller: broker " + next.brokerId() + ", controller epoch " + secondEpoch
            + " (was " + firstEpoch + ")");
        final KafkaZkStore nextStore = next.store();
        final Set<Integer> live = Set.copyOf(brokers.keySet());
        final Map<Integer, LeaderAndIsr> after = awaitLeaders(failover, nextStore, partitions, live);
        print(after, assignment, topic);
        final Set<Integer> registered = nextStore.brokers(null).keySet();
        if (!registered.equals(live)) {
            throw new DemoFailure("registered brokers " + registered + " differ from the live ones " + live);
        }
        // Sorted, so that the summary line prints the brokers in order.
        return new Outcome(topic, stopped, firstEpoch, before, stopped, next.brokerId(), secondEpoch, after,
            Collections.unmodifiableSortedSet(new TreeSet<>(registered)));
    }

    /** Waits for exactly one active controller with an epoch above {@code previousEpoch}, as ZooKeeper records it. */
    private ReplicationBroker awaitController(final Deadline deadline, final int previousEpoch)
        throws InterruptedException {
        final ReplicationBroker[] found = new ReplicationBroker[1];
        deadline.await(() -> {
            final List<ReplicationBroker> active = new ArrayList<>();
            for (final ReplicationBroker b : brokers.values()) {
                if (b.isController() && b.controller().epoch() > previousEpoch) {
                    active.add(b);
                }
            }
            if (active.size() != 1) {
                return false;
            }
            final ReplicationBroker b = active.get(0);
            final OptionalInt inZk = b.store().controllerId(null);
            final int epochInZk = b.store().controllerEpoch().map(v -> v.value()).orElse(-1);
            found[0] = b;
            return inZk.isPresent() && inZk.getAsInt() == b.brokerId() && epochInZk == b.controller().epoch();
        }, () -> "one active controller with epoch > " + previousEpoch + " matching /controller and /controller_epoch");
        return found[0];
    }

    /** Waits until every partition has a leader among {@code live} and an ISR made only of live brokers. */
    private static Map<Integer, LeaderAndIsr> awaitLeaders(final Deadline deadline, final KafkaZkStore store,
                                                           final List<TopicPartition> partitions,
                                                           final Set<Integer> live) throws InterruptedException {
        final Map<Integer, LeaderAndIsr> seen = new TreeMap<>();
        deadline.await(() -> {
            seen.clear();
            for (final Map.Entry<TopicPartition, Optional<PartitionStateZnode>> e
                : store.partitionStates(partitions).entrySet()) {
                e.getValue().ifPresent(s -> seen.put(e.getKey().partition(), s.leaderAndIsr()));
            }
            return seen.size() == partitions.size() && seen.values().stream().allMatch(s ->
                s.hasLeader() && live.contains(s.leader()) && live.containsAll(s.isr()) && s.isr().contains(s.leader()));
        }, () -> "every partition led by one of " + live + " with an ISR of live brokers, in ZooKeeper: " + seen);
        return new TreeMap<>(seen);
    }

    private void print(final Map<Integer, LeaderAndIsr> states, final Map<Integer, List<Integer>> assignment,
                       final String topic) {
        for (final Map.Entry<Integer, LeaderAndIsr> e : states.entrySet()) {
            final LeaderAndIsr s = e.getValue();
            out.println("[cluster]   " + topic + "-" + e.getKey() + ": replicas " + assignment.get(e.getKey())
                + ", leader " + s.leader() + " (leader epoch " + s.leaderEpoch() + "), isr " + s.isr());
        }
    }

    /** {@code orders}, or the first {@code orders-<n>} not taken (a kept directory or a shared ZooKeeper). */
    private static String freeTopicName(final Set<String> existing) {
        String name = "orders";
        for (int n = 2; existing.contains(name); n++) {
            name = "orders-" + n;
        }
        return name;
    }

    private ThreadFactory threads(final int brokerId) {
        return r -> new Thread(r, "seglog-demo-broker" + brokerId + "-" + threadIds.incrementAndGet());
    }

    private void closeAll() {
        RuntimeException failure = null;
        for (final ReplicationBroker b : brokers.values()) {
            try {
                b.close();
            } catch (final RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        brokers.clear();
        if (failure != null) {
            throw failure;
        }
    }
}
