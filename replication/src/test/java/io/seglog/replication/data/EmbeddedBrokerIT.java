package io.seglog.replication.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.broker.SeglogBroker;
import io.seglog.replication.broker.SeglogBrokerConfig;
import io.seglog.replication.replica.AppendResult;
import io.seglog.replication.replica.LeadershipListener;
import io.seglog.replication.replica.ReadResult;
import io.seglog.replication.replica.ReplicaError;
import io.seglog.storage.LogBatch;
import io.seglog.storage.LogRecord;
import io.seglog.storage.Records;
import io.seglog.storage.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A custom broker's view: two {@link SeglogBroker}s with their defaults (control over TCP), produce and fetch
 * through the broker's own API, and the leadership callbacks in the order the roles change.
 */
@Timeout(180)
class EmbeddedBrokerIT {
    private static final TopicPartition TP = new TopicPartition("embedded", 0);

    @TempDir
    Path dir;
    private TestingServer zk;
    private final Map<Integer, SeglogBroker> brokers = new HashMap<>();
    private final Map<Integer, List<String>> events = new HashMap<>();

    @BeforeEach
    void start() throws Exception {
        zk = new TestingServer();
        for (final int id : List.of(1, 2)) {
            final List<String> seen = new CopyOnWriteArrayList<>();
            events.put(id, seen);
            brokers.put(id, start(id, seen));
        }
        for (final SeglogBroker b : brokers.values()) {
            b.awaitRegistered(DataCluster.WAIT.toMillis());
        }
    }

    private SeglogBroker start(final int id, final List<String> seen) {
        final Map<String, Object> props = new HashMap<>();
        props.put("broker.id", id);
        props.put("listeners", "PLAINTEXT://127.0.0.1:0");
        props.put("log.dirs", dir.resolve("broker-" + id).toString());
        props.put("zookeeper.connect", zk.getConnectString());
        props.put("min.insync.replicas", 1);
        return SeglogBroker.start(SeglogBrokerConfig.fromProperties(props), SeglogBroker.options()
            .leadershipListener(new LeadershipListener() {
                @Override
                public void onBecomeLeader(final TopicPartition tp, final int leaderEpoch) {
                    seen.add("leader " + tp + " epoch " + leaderEpoch);
                }

                @Override
                public void onBecomeFollower(final TopicPartition tp, final int leaderId, final int leaderEpoch) {
                    seen.add("follower " + tp + " of " + leaderId + " epoch " + leaderEpoch);
                }

                @Override
                public void onStopped(final TopicPartition tp, final boolean deleted) {
                    seen.add("stopped " + tp + (deleted ? " deleted" : ""));
                }
            }));
    }

    @AfterEach
    void stop() throws Exception {
        brokers.values().forEach(SeglogBroker::close);
        zk.close();
    }

    private static List<String> values(final ReadResult r) {
        final List<String> out = new ArrayList<>();
        if (r.records() == null) {
            return out;
        }
        for (final LogBatch b : Records.batches(r.records())) {
            for (final LogRecord rec : b.records()) {
                final byte[] v = new byte[rec.value().remaining()];
                rec.value().duplicate().get(v);
                out.add(new String(v, StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    @Test
    void produceFetchAndLeadershipCallbacksWithoutTheWireProtocol() throws Exception {
        brokers.get(1).admin().createTopic(TP.topic(), Map.of(0, List.of(1, 2)));
        Await.until(DataCluster.WAIT, () -> events.get(1).contains("leader " + TP + " epoch 0")
            && events.get(2).contains("follower " + TP + " of 1 epoch 0"), () -> "the roles: " + events);
        final SeglogBroker leader = brokers.get(1);

        // A long-poll fetch at the end waits for the next produce.
        final CompletableFuture<ReadResult> waiting = leader.fetch(TP, 0, 1 << 20, 30_000);
        final AppendResult appended = leader.produce(TP, ScenarioSupport.batch("a", "b", "c"), (short) -1, 30_000)
            .get(30, TimeUnit.SECONDS);
        assertEquals(ReplicaError.NONE, appended.error());
        assertEquals(0, appended.baseOffset());
        assertEquals(2, appended.lastOffset());
        final ReadResult read = waiting.get(30, TimeUnit.SECONDS);
        assertEquals(ReplicaError.NONE, read.error());
        assertEquals(3, read.highWatermark());
        assertEquals(List.of("a", "b", "c"), values(read));

        // At the high watermark with no wait: nothing, no error; a follower answers NOT_LEADER_OR_FOLLOWER.
        final ReadResult atEnd = leader.fetch(TP, 3, 1 << 20, 0).get(30, TimeUnit.SECONDS);
        assertEquals(ReplicaError.NONE, atEnd.error());
        assertNull(atEnd.records());
        assertEquals(ReplicaError.NOT_LEADER_OR_FOLLOWER, brokers.get(2).fetch(TP, 0, 1 << 20, 0)
            .get(30, TimeUnit.SECONDS).error());
        assertEquals(ReplicaError.NOT_LEADER_OR_FOLLOWER, brokers.get(2).produce(TP, ScenarioSupport.batch("x"),
            (short) 1, 30_000).get(30, TimeUnit.SECONDS).error());

        // The leader goes: the follower is told it leads, in the next epoch.
        brokers.remove(1).close();
        Await.until(DataCluster.WAIT, () -> events.get(2).contains("leader " + TP + " epoch 1"), () -> "broker 2 leads: "
            + events.get(2));
        assertEquals(List.of("a", "b", "c"), values(brokers.get(2).fetch(TP, 0, 1 << 20, 0).get(30, TimeUnit.SECONDS)));

        // Deleting the topic stops and deletes the replica, and the broker says so.
        brokers.get(2).admin().deleteTopic(TP.topic());
        Await.until(DataCluster.WAIT, () -> events.get(2).contains("stopped " + TP + " deleted"), () -> "stopped: "
            + events.get(2));
        assertTrue(Files.notExists(dir.resolve("broker-2").resolve("embedded-0")), "the log directory is gone");
        assertEquals(List.of("follower " + TP + " of 1 epoch 0", "leader " + TP + " epoch 1", "stopped " + TP
            + " deleted"), events.get(2), "every change, in order");
    }
}
