package io.seglog.replication.controller;

import io.seglog.replication.Await;
import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.broker.ReplicationBroker;
import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.transport.InJvmControlChannel;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.replication.zk.ZkClient;
import io.seglog.replication.zk.ZkError;
import io.seglog.replication.zk.ZkException;
import io.seglog.replication.zk.ZkSessionListener;
import io.seglog.storage.TopicPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/** Brokers in one JVM over one ZooKeeper, plus an observer session for reading and forging znodes. */
final class TestCluster implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(30);
    /** A session listener that ignores session events, for observer and outsider clients. */
    static final ZkSessionListener QUIET = new ZkSessionListener() {
        @Override
        public void onSessionExpired(final long sessionId) {
        }

        @Override
        public void onNewSession(final long sessionId) {
        }
    };

    final InJvmControlChannel channel = new InJvmControlChannel();
    /** What brokers send (through the ControlChannel seam); delivery is by {@link #channel}. */
    final RecordingControlChannel sent = new RecordingControlChannel(channel);
    final ReplicationConfig base;
    final Map<Integer, ReplicationBroker> brokers = new TreeMap<>();
    final ZkClient observerClient;
    final KafkaZkStore observer;
    private final AtomicInteger threadIds = new AtomicInteger();

    TestCluster(final String connect, final UnaryOperator<ReplicationConfig.Builder> tweak) {
        base = tweak.apply(ReplicationConfig.builder().brokerId(0).zookeeperConnect(connect)
            .zookeeperSessionTimeoutMs(3000).zookeeperRequestTimeoutMs(3000).autoLeaderRebalanceEnable(false)).build();
        observerClient = ZkClient.open(base.withBroker(999, null), threads("observer"), QUIET);
        observerClient.awaitConnected(WAIT.toMillis());
        observer = new KafkaZkStore(observerClient);
        observer.createPersistentPaths();
    }

    ThreadFactory threads(final String name) {
        return r -> new Thread(r, "test-" + name + "-" + threadIds.incrementAndGet());
    }

    ReplicationBroker start(final int id) {
        return start(id, null);
    }

    ReplicationBroker start(final int id, final String rack) {
        final ReplicationBroker b = ReplicationBroker.start(base.withBroker(id, rack), sent, channel,
            threads("broker" + id), () -> System.nanoTime() / 1_000_000);
        brokers.put(id, b);
        return b;
    }

    void startAll(final int... ids) throws Exception {
        for (final int id : ids) {
            start(id);
        }
        for (final int id : ids) {
            brokers.get(id).awaitRegistered(WAIT.toMillis());
        }
    }

    void stop(final int id) {
        brokers.remove(id).close();
    }

    ReplicationBroker broker(final int id) {
        return brokers.get(id);
    }

    List<ReplicationBroker> active() {
        final List<ReplicationBroker> list = new ArrayList<>();
        brokers.values().forEach(b -> {
            if (b.isController()) {
                list.add(b);
            }
        });
        return list;
    }

    /** Waits for exactly one active controller, with at least the given epoch, that every broker knows. */
    ReplicationBroker awaitController(final int minEpoch) {
        Await.until(WAIT, () -> {
            final List<ReplicationBroker> a = active();
            return a.size() == 1 && a.get(0).controller().epoch() >= minEpoch;
        }, () -> "one controller with epoch >= " + minEpoch + ", active=" + active());
        return active().get(0);
    }

    Optional<PartitionStateZnode> state(final TopicPartition tp) {
        return observer.partitionStates(List.of(tp)).getOrDefault(tp, Optional.empty());
    }

    /**
     * A read by the test's own ZooKeeper client, asked again when ZooKeeper did not answer within the request timeout
     * (a busy machine: TopicAdminIT's read of a partition state once timed out beside two other test JVMs and two CPU
     * hogs), until {@link #WAIT}. Only the reads of tests that wait for a state, with ZooKeeper up: QuorumIT asserts
     * what a read or write does without a quorum, within a broker's session, so {@link #state} and writes fail at once.
     */
    private static <T> T readAgainAfterTimeouts(final Supplier<T> read) {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            try {
                return read.get();
            } catch (final ZkException e) {
                if (e.error() != ZkError.TIMEOUT || System.nanoTime() > deadline) {
                    throw e;
                }
            }
        }
    }

    LeaderAndIsr leaderAndIsr(final TopicPartition tp) {
        return readAgainAfterTimeouts(() -> state(tp)).orElseThrow(() -> new AssertionError("no state for " + tp))
            .leaderAndIsr();
    }

    void awaitAllLed(final Collection<TopicPartition> partitions) {
        Await.until(WAIT, () -> readAgainAfterTimeouts(() -> observer.partitionStates(partitions)).values().stream()
                .allMatch(s -> s.isPresent() && s.get().leaderAndIsr().hasLeader()),
            () -> "every partition has a leader: " + observer.partitionStates(partitions));
    }

    TopicAdmin admin() {
        return new TopicAdmin(observer, new SplittableRandom(42));
    }

    /** Writes an ISR as a partition leader does (conditional on the partition epoch) and notifies the controller. */
    void leaderSetsIsr(final TopicPartition tp, final List<Integer> isr) {
        observer.updateIsrAsLeader(tp, state(tp).orElseThrow(), isr);
    }

    @Override
    public void close() {
        for (final ReplicationBroker b : brokers.values()) {
            b.close();
        }
        brokers.clear();
        observerClient.close();
    }
}
