package io.seglog.replication.example;

import io.seglog.replication.broker.SeglogBroker;
import io.seglog.replication.broker.SeglogBrokerConfig;
import io.seglog.replication.replica.AppendResult;
import io.seglog.replication.replica.Partition;
import io.seglog.replication.replica.ReplicaError;
import io.seglog.storage.LogRecord;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.Records;
import io.seglog.storage.TopicPartition;
import io.seglog.storage.format.RecordBatchBuilder;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Part three of the demo, the data path: three whole brokers in this JVM, each with its own log directory and its
 * own Kafka-protocol listener on loopback (Kafka's clients could connect to them; the followers fetch and the
 * controller's messages travel over them), a topic with replication factor three and min.insync.replicas=2, records
 * written with acks=all, the leader stopped, every acknowledged record read back from the new leader, more records
 * written, and the stopped broker restarted: it catches up and every replica holds the same records.
 *
 * <p>Not thread-safe; runs on the caller's thread. Threads come from a factory of named, non-daemon threads, all
 * ended when the brokers close.
 */
final class DataTour {
    static final int RECORDS_PER_WRITE = 100;
    static final int WRITES = 10;

    /**
     * What the data part saw.
     *
     * @param firstLeader   the leader the records were written to first
     * @param secondLeader  the leader after the first one stopped
     * @param acknowledged  records acknowledged in all (acks=all)
     * @param endOffset     the log end offset every replica reached
     * @param bootstrap     the brokers' addresses (for Kafka's clients)
     * @param topic         the topic written
     */
    record Outcome(int firstLeader, int secondLeader, long acknowledged, long endOffset, String bootstrap,
                   String topic) {
    }

    private final String connect;
    private final Path dir;
    private final PrintStream out;
    private final Duration stepTimeout;
    private final Map<Integer, SeglogBroker> brokers = new TreeMap<>();
    private final Map<Integer, Integer> ports = new HashMap<>();
    private final AtomicInteger threadIds = new AtomicInteger();

    private DataTour(final String connect, final Path dir, final PrintStream out, final Duration stepTimeout) {
        this.connect = connect;
        this.dir = dir;
        this.out = out;
        this.stepTimeout = stepTimeout;
    }

    static Outcome run(final String connect, final Path dir, final PrintStream out, final Duration stepTimeout)
        throws Exception {
        final DataTour tour = new DataTour(connect, dir, out, stepTimeout);
        try {
            return tour.run();
        } finally {
            final List<AutoCloseable> all = new ArrayList<>(tour.brokers.values());
            tour.brokers.clear();
            CloseHelper.closeAll(all);
            out.println("[data] closed the brokers");
        }
    }

    private Outcome run() throws Exception {
        final Deadline startup = Deadline.of("data: start three brokers", stepTimeout);
        for (int id = 1; id <= 3; id++) {
            start(id);
        }
        for (final SeglogBroker b : brokers.values()) {
            b.awaitRegistered(startup.remainingMs());
        }
        out.println("[data] brokers " + brokers.keySet() + " listen on " + bootstrap() + " (Kafka's clients can use"
            + " that as bootstrap.servers)");
        final Deadline create = Deadline.of("data: create a topic", stepTimeout);
        // A name not taken by an earlier run against the same ZooKeeper.
        final java.util.Set<String> existing = brokers.get(1).control().store().topics(null);
        String topic = "payments";
        for (int n = 2; existing.contains(topic); n++) {
            topic = "payments-" + n;
        }
        final TopicPartition tp = new TopicPartition(topic, 0);
        brokers.get(1).admin().createTopic(topic, Map.of(0, List.of(1, 2, 3)));
        final int first = awaitLeader(create, tp, -1);
        out.println("[data] created " + topic + " (replication factor 3, min.insync.replicas=2): leader broker " + first);

        final Deadline writing = Deadline.of("data: write with acks=all", stepTimeout);
        long acked = write(writing, first, tp, 0);
        awaitReplicas(writing, tp, acked);
        out.println("[data] " + acked + " records acknowledged (acks=all); high watermark " + acked
            + " on every replica, the same bytes on all three");

        final Deadline failover = Deadline.of("data: leader failover", stepTimeout);
        brokers.remove(first).close();
        out.println("[data] stopped the leader, broker " + first);
        final int second = awaitLeader(failover, tp, first);
        final List<String> kept = values(brokers.get(second).partition(tp).orElseThrow().log(), acked);
        if (kept.size() != acked || !kept.get((int) acked - 1).equals("record-" + (acked - 1))) {
            throw new DemoFailure("the new leader, broker " + second + ", holds " + kept.size() + " of " + acked
                + " acknowledged records");
        }
        out.println("[data] new leader: broker " + second + ", holding all " + acked + " acknowledged records");
        acked += write(failover, second, tp, acked);
        out.println("[data] " + acked + " records acknowledged in all, " + WRITES * RECORDS_PER_WRITE
            + " of them by the new leader");

        final Deadline catchUp = Deadline.of("data: the stopped broker catches up", stepTimeout);
        start(first).awaitRegistered(catchUp.remainingMs());
        awaitReplicas(catchUp, tp, acked);
        out.println("[data] broker " + first + " restarted, caught up and back in the ISR: every replica holds "
            + acked + " records, byte for byte the same");
        return new Outcome(first, second, acked, acked, bootstrap(), topic);
    }

    private ThreadFactory threads(final int id) {
        return r -> new Thread(r, "data-broker" + id + "-" + threadIds.incrementAndGet());
    }

    private SeglogBroker start(final int id) {
        final Map<String, Object> props = new HashMap<>();
        props.put("broker.id", id);
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + ports.getOrDefault(id, 0));
        props.put("log.dirs", dir.resolve("broker-" + id).toString());
        props.put("zookeeper.connect", connect);
        props.put("zookeeper.session.timeout.ms", 6_000);
        props.put("min.insync.replicas", 2);
        props.put("auto.leader.rebalance.enable", "false");
        final SeglogBroker b = SeglogBroker.start(SeglogBrokerConfig.fromProperties(props),
            SeglogBroker.options().threadFactory(threads(id)));
        brokers.put(id, b);
        ports.put(id, b.boundAddress().getPort());
        return b;
    }

    private String bootstrap() {
        return ports.values().stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    /** Waits until a broker other than {@code not} leads the partition, and returns it. */
    private int awaitLeader(final Deadline deadline, final TopicPartition tp, final int not)
        throws InterruptedException {
        final int[] leader = {-1};
        deadline.await(() -> {
            for (final SeglogBroker b : brokers.values()) {
                if (b.brokerId() != not && b.partition(tp).map(Partition::isLeader).orElse(false)) {
                    leader[0] = b.brokerId();
                    return true;
                }
            }
            return false;
        }, () -> "a leader of " + tp);
        return leader[0];
    }

    /** Writes {@link #WRITES} batches through the leader with acks=all; returns the records acknowledged. */
    private long write(final Deadline deadline, final int leader, final TopicPartition tp, final long from)
        throws InterruptedException, ExecutionException {
        long acked = 0;
        for (int w = 0; w < WRITES; w++) {
            final byte[][] values = new byte[RECORDS_PER_WRITE][];
            for (int i = 0; i < RECORDS_PER_WRITE; i++) {
                values[i] = ("record-" + (from + acked + i)).getBytes(StandardCharsets.UTF_8);
            }
            final UnsafeBuffer built = RecordBatchBuilder.batchOf(0, System.currentTimeMillis(), values);
            final ByteBuffer batch = ByteBuffer.allocate(built.capacity());
            built.getBytes(0, batch, built.capacity());
            batch.flip();
            final AppendResult r = deadline.get(brokers.get(leader).produce(tp, batch, (short) -1,
                deadline.remainingMs()), "an acks=all write to broker " + leader);
            if (r.error() != ReplicaError.NONE) {
                throw new DemoFailure("an acks=all write to broker " + leader + " failed: " + r.error() + " "
                    + r.message());
            }
            acked += RECORDS_PER_WRITE;
        }
        return acked;
    }

    /** Waits until every running replica's high watermark is {@code end} and their records are the same. */
    private void awaitReplicas(final Deadline deadline, final TopicPartition tp, final long end)
        throws InterruptedException {
        deadline.await(() -> brokers.values().stream().allMatch(b -> b.partition(tp)
            .map(p -> p.log().highWatermark() == end && p.log().logEndOffset() == end).orElse(false)),
            () -> "every replica of " + tp + " at " + end);
        List<String> reference = null;
        for (final SeglogBroker b : brokers.values()) {
            final List<String> mine = values(b.partition(tp).orElseThrow().log(), end);
            if (reference == null) {
                reference = mine;
            } else if (!reference.equals(mine)) {
                throw new DemoFailure("broker " + b.brokerId() + "'s records differ from the others'");
            }
        }
    }

    private static List<String> values(final PartitionLog log, final long end) {
        final List<String> values = new ArrayList<>();
        for (final LogRecord r : Records.of(log, log.logStartOffset(), end)) {
            final ByteBuffer v = r.value();
            final byte[] b = new byte[v.remaining()];
            v.duplicate().get(b);
            values.add(new String(b, StandardCharsets.UTF_8));
        }
        return values;
    }
}
