package io.seglog.replication.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.zk.ControllerElection;
import io.seglog.replication.zk.ControllerMovedException;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.TopicAssignmentZnode;
import io.seglog.replication.zk.Versioned;
import io.seglog.replication.zk.ZkClient;
import io.seglog.replication.zk.ZkSessionListener;
import io.seglog.replication.zk.ZkTestSupport;
import io.seglog.storage.TopicId;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TopicIds} against a real ZooKeeper: a topic without an id gets one written at the version read and fenced by
 * the controller epoch; an id already there is returned, never replaced, also when another writer set it between the
 * controller's read and its write; a controller whose epoch moved on writes nothing.
 */
@Timeout(60)
class TopicIdsIT {
    private static final ThreadFactory THREADS = r -> new Thread(r, "topic-ids-it");
    private Set<Thread> threadsBefore;
    private ZkTestSupport zk;
    private ZkClient client;
    private KafkaZkStore store;

    @BeforeEach
    void start() throws Exception {
        threadsBefore = Await.threads();
        zk = ZkTestSupport.server();
        client = ZkClient.open(ReplicationConfig.builder().brokerId(1).zookeeperConnect(zk.connectString())
            .zookeeperSessionTimeoutMs(4000).zookeeperRequestTimeoutMs(2000).build(), THREADS, new ZkSessionListener() {
                @Override
                public void onSessionExpired(final long sessionId) {
                }

                @Override
                public void onNewSession(final long sessionId) {
                }
            });
        client.awaitConnected(10_000);
        store = new KafkaZkStore(client);
        store.createPersistentPaths();
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        zk.close();
        Await.noThreadsLeakedSince(threadsBefore, Duration.ofSeconds(20));
    }

    private Versioned<TopicAssignmentZnode> read(final String topic) {
        return store.topicAssignment(topic, null).orElseThrow();
    }

    @Test
    void assignsAMissingIdOnceAndNeverReplacesOne() {
        final ControllerElection election = store.tryElectController(1, 0).orElseThrow();
        final TopicIds ids = new TopicIds(store, new SplittableRandom(7));
        store.createTopic("legacy", Map.of(0, List.of(1)));
        final Versioned<TopicAssignmentZnode> before = read("legacy");
        assertTrue(before.value().topicId().isEmpty());

        final TopicId assigned = ids.ensure("legacy", before, election.epochZkVersion(), null).orElseThrow();
        assertEquals(Optional.of(assigned.toString()), read("legacy").value().topicId(), "written");
        assertEquals(before.value().partitions(), read("legacy").value().partitions(), "assignment kept");
        assertNotEquals(TopicId.ZERO, assigned);
        // A second controller pass (a fresh read) finds it and keeps it, writing nothing.
        final int version = read("legacy").version();
        assertEquals(assigned, ids.ensure("legacy", read("legacy"), election.epochZkVersion(), null).orElseThrow());
        assertEquals(version, read("legacy").version(), "no second write");

        // Another writer gives the topic an id between the controller's read and its write: the conditional write
        // fails on the version, the controller reads again and keeps the other writer's id.
        store.createTopic("raced", Map.of(0, List.of(1)));
        final Versioned<TopicAssignmentZnode> stale = read("raced");
        final TopicId theirs = TopicId.random(new SplittableRandom(11));
        store.setTopicAssignment("raced", new TopicAssignmentZnode(stale.value().partitions(), Map.of(), Map.of(),
            Optional.of(theirs.toString())), stale.version());
        assertEquals(theirs, ids.ensure("raced", stale, election.epochZkVersion(), null).orElseThrow());
        assertEquals(Optional.of(theirs.toString()), read("raced").value().topicId());

        // A topic deleted meanwhile has no id to give.
        store.createTopic("gone", Map.of(0, List.of(1)));
        final Versioned<TopicAssignmentZnode> vanished = read("gone");
        client.delete("/brokers/topics/gone", -1);
        assertEquals(Optional.empty(), ids.ensure("gone", vanished, election.epochZkVersion(), null));
    }

    @Test
    void aControllerWhoseEpochMovedOnWritesNothing() {
        final ControllerElection first = store.tryElectController(1, 0).orElseThrow();
        client.delete("/controller", -1);
        final ControllerElection second = store.tryElectController(1, 1).orElseThrow();
        assertNotEquals(first.epochZkVersion(), second.epochZkVersion());
        store.createTopic("legacy", Map.of(0, List.of(1)));
        final TopicIds ids = new TopicIds(store, new SplittableRandom(7));
        assertThrows(ControllerMovedException.class,
            () -> ids.ensure("legacy", read("legacy"), first.epochZkVersion(), null));
        assertTrue(read("legacy").value().topicId().isEmpty(), "the fenced write left no id");
    }
}
