package io.seglog.replication.zk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.storage.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ZkClientIT {
    private static final ThreadFactory THREADS = r -> new Thread(r, "zk-client-it");
    private static final ZkSessionListener NO_LISTENER = new ZkSessionListener() {
        @Override
        public void onSessionExpired(final long sessionId) {
        }

        @Override
        public void onNewSession(final long sessionId) {
        }
    };

    private java.util.Set<Thread> threadsBefore;
    private ZkTestSupport zk;
    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        threadsBefore = Await.threads();
        zk = ZkTestSupport.server();
    }

    @AfterEach
    void stop() throws Exception {
        for (final AutoCloseable c : closeables) {
            c.close();
        }
        zk.close();
        Await.noThreadsLeakedSince(threadsBefore, Duration.ofSeconds(20));
    }

    private ReplicationConfig.Builder config(final String connect) {
        return ReplicationConfig.builder().brokerId(1).zookeeperConnect(connect).zookeeperSessionTimeoutMs(4000)
            .zookeeperRequestTimeoutMs(2000);
    }

    private ZkClient open(final ReplicationConfig config, final ZkSessionListener listener) {
        final ZkClient client = ZkClient.open(config, THREADS, listener);
        closeables.add(client);
        client.awaitConnected(10_000);
        return client;
    }

    @Test
    void chrootKeepsEveryPathUnderIt() {
        final ZkClient chrooted = open(config(zk.connectString() + "/seglog/a/").build(), NO_LISTENER);
        assertEquals(Optional.of("/seglog/a"), chrooted.chroot());
        new KafkaZkStore(chrooted).createPersistentPaths();
        final ZkClient root = open(config(zk.connectString()).build(), NO_LISTENER);
        assertTrue(root.exists("/seglog/a" + ZkPaths.BROKER_IDS, null).isPresent());
        assertTrue(root.exists(ZkPaths.BROKER_IDS, null).isEmpty(), "nothing outside the chroot");
    }

    @Test
    void rejectsChrootWithDotElements() {
        assertThrows(IllegalArgumentException.class,
            () -> ZkClient.open(config(zk.connectString() + "/a/../b").build(), THREADS, NO_LISTENER));
    }

    @Test
    void callsFailWithinTheirDeadlineWhenTheServerIsDown() throws Exception {
        final ZkClient client = open(config(zk.connectString()).zookeeperRequestTimeoutMs(800).build(), NO_LISTENER);
        client.ensurePersistentPaths(List.of("/x"));
        zk.stop();
        final long start = System.nanoTime();
        final ZkException e = assertThrows(ZkException.class, () -> client.getData("/x", null));
        final long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(e.error() == ZkError.TIMEOUT || e.error() == ZkError.CONNECTION_LOSS, e.toString());
        assertTrue(elapsedMs < 3_000, "failed after " + elapsedMs + " ms, deadline 800 ms");
        assertThrows(ZkException.class, () -> client.setData("/x", new byte[] {1}, -1));
        zk.restart();
        Await.until(Duration.ofSeconds(20), () -> {
            try {
                return client.getData("/x", null).isPresent();
            } catch (final ZkException retry) {
                return false;
            }
        }, () -> "reads work again after the server restarted");
    }

    @Test
    void unauthenticatedClientCannotWriteWhatBrokersCreated() {
        final String secured = zk.connectString() + "/acl";
        final ZkClient broker = open(config(secured).zookeeperSetAcl(true)
            .zookeeperDigest("broker:secret").build(), NO_LISTENER);
        final KafkaZkStore store = new KafkaZkStore(broker);
        store.createPersistentPaths();
        store.createTopic("t", Map.of(0, List.of(1)));
        final ZkClient anonymous = open(config(secured).build(), NO_LISTENER);
        assertTrue(new KafkaZkStore(anonymous).topicAssignment("t", null).isPresent(), "everyone may read");
        final ZkException write = assertThrows(ZkException.class,
            () -> anonymous.setData(ZkPaths.topicPath("t"), "{}".getBytes(StandardCharsets.UTF_8), -1));
        assertEquals(ZkError.NO_AUTH, write.error());
        final ZkException create = assertThrows(ZkException.class,
            () -> anonymous.create(ZkPaths.brokerPath(9), new byte[0], true));
        assertEquals(ZkError.NO_AUTH, create.error());
        final ZkException delete = assertThrows(ZkException.class, () -> anonymous.delete(ZkPaths.topicPath("t"), -1));
        assertEquals(ZkError.NO_AUTH, delete.error());
        // The chroot the brokers created carries their ACL: an absent /controller cannot be taken by an outsider
        // (it could at the ZooKeeper root, which is why set.acl requires a chroot).
        assertTrue(anonymous.exists(ZkPaths.CONTROLLER, null).isEmpty());
        assertEquals(ZkError.NO_AUTH, assertThrows(ZkException.class,
            () -> anonymous.create(ZkPaths.CONTROLLER, "{}".getBytes(StandardCharsets.UTF_8), true)).error());
        final ZkClient otherBroker = open(config(secured).zookeeperSetAcl(true)
            .zookeeperDigest("broker:secret").build(), NO_LISTENER);
        otherBroker.setData(ZkPaths.topicPath("t"), new TopicAssignmentZnode(Map.of(0, List.of(2))).toJson(), -1);
        assertEquals(List.of(2), store.topicAssignment("t", null).orElseThrow().value().partitions().get(0));
    }

    @Test
    void firedWatchesAreForgottenSoTheClientHoldsOnlyArmedOnes() {
        final ZkClient client = open(config(zk.connectString()).build(), NO_LISTENER);
        final java.util.concurrent.atomic.AtomicInteger fired = new java.util.concurrent.atomic.AtomicInteger();
        final ZkWatch watch = path -> fired.incrementAndGet();
        client.create("/w", new byte[] {0}, false);
        // Re-armed before it fired: one watcher, one notification (ZooKeeper dedups by watcher object).
        client.getData("/w", watch);
        client.getData("/w", watch);
        assertEquals(1, client.armedWatcherCount());
        client.setData("/w", new byte[] {1}, -1);
        Await.until(Duration.ofSeconds(10), () -> fired.get() == 1, () -> "first notification");
        Await.until(Duration.ofSeconds(10), () -> client.armedWatcherCount() == 0, () -> "fired watch forgotten");
        // Re-arm after every firing, as the controller does: the count stays at one armed watcher, never grows.
        for (int i = 2; i <= 30; i++) {
            client.getData("/w", watch);
            assertEquals(1, client.armedWatcherCount());
            client.setData("/w", new byte[] {(byte) i}, -1);
            final int expected = i;
            Await.until(Duration.ofSeconds(10), () -> fired.get() == expected, () -> "notification " + expected);
        }
        // Many distinct paths watched once, then deleted: every watch fires and none is kept.
        for (int i = 0; i < 50; i++) {
            client.create("/w" + i, new byte[0], false);
            client.getData("/w" + i, watch);
        }
        Await.until(Duration.ofSeconds(10), () -> client.armedWatcherCount() == 50, () -> "50 armed");
        for (int i = 0; i < 50; i++) {
            client.delete("/w" + i, -1);
        }
        Await.until(Duration.ofSeconds(10), () -> fired.get() == 80, () -> "50 deletions seen");
        Await.until(Duration.ofSeconds(10), () -> client.armedWatcherCount() == 0, () -> "all fired watches forgotten");
        assertEquals(80, fired.get(), "no duplicate notifications");
    }

    @Test
    void malformedZnodesAreSkippedNotFatal() {
        final ZkClient client = open(config(zk.connectString()).build(), NO_LISTENER);
        final KafkaZkStore store = new KafkaZkStore(client);
        store.createPersistentPaths();
        final BrokerRegistration good = new BrokerRegistration(1, "h", 9092, Optional.empty(), 1L);
        final long epoch = store.registerBroker(good, 0, 1000, System::nanoTime);
        client.create(ZkPaths.brokerPath(2), "not json".getBytes(StandardCharsets.UTF_8), true);
        client.create(ZkPaths.BROKER_IDS + "/abc", "{}".getBytes(StandardCharsets.UTF_8), true);
        final Map<Integer, BrokerInfo> brokers = store.brokers(null);
        assertEquals(Set.of(1), brokers.keySet());
        assertEquals(epoch, brokers.get(1).epoch());

        client.create(ZkPaths.topicPath("bad"), "{\"version\":3,\"partitions\":".getBytes(StandardCharsets.UTF_8), false);
        assertTrue(store.topicAssignment("bad", null).isEmpty());
        store.createTopic("good", Map.of(0, List.of(1), 1, List.of(1)));
        final TopicPartition p0 = new TopicPartition("good", 0);
        final TopicPartition p1 = new TopicPartition("good", 1);
        client.ensurePersistentPaths(List.of(ZkPaths.partitionPath(p0), ZkPaths.partitionPath(p1)));
        client.create(ZkPaths.partitionStatePath(p0), "{\"leader\":\"x\"}".getBytes(StandardCharsets.UTF_8), false);
        client.create(ZkPaths.partitionStatePath(p1),
            new PartitionStateZnode(LeaderAndIsr.initial(1, List.of(1)), 1).toJson(), false);
        final Map<TopicPartition, Optional<PartitionStateZnode>> states = store.partitionStates(List.of(p0, p1));
        assertFalse(states.containsKey(p0), "malformed state skipped");
        assertEquals(1, states.get(p1).orElseThrow().leaderAndIsr().leader());
        client.create(ZkPaths.CONTROLLER, "garbage".getBytes(StandardCharsets.UTF_8), true);
        assertEquals(-1, store.controllerId(null).getAsInt(), "unreadable controller reported, not thrown");
    }

    @Test
    void reRegistrationDeletesTheEphemeralOfThePreviousSession() {
        final ZkClient first = open(config(zk.connectString()).build(), NO_LISTENER);
        final KafkaZkStore firstStore = new KafkaZkStore(first);
        firstStore.createPersistentPaths();
        final BrokerRegistration reg = new BrokerRegistration(1, "h", 9092, Optional.of("r1"), 1L);
        final long epoch1 = firstStore.registerBroker(reg, 0, 1000, System::nanoTime);
        assertEquals(epoch1, firstStore.registerBroker(reg, 0, 1000, System::nanoTime),
            "registering again in the same session keeps the znode (a retried create)");

        final ZkClient second = open(config(zk.connectString()).build(), NO_LISTENER);
        final KafkaZkStore secondStore = new KafkaZkStore(second);
        final ZkException busy = assertThrows(ZkException.class,
            () -> secondStore.registerBroker(reg, 0, 300, System::nanoTime));
        assertEquals(ZkError.NODE_EXISTS, busy.error(), "a live foreign session keeps the id");

        final long epoch2 = secondStore.registerBroker(reg, first.sessionId(), 1000, System::nanoTime);
        assertNotEquals(epoch1, epoch2);
        assertTrue(epoch2 > epoch1, "new czxid = new broker epoch");
        final ZkNode node = second.getData(ZkPaths.brokerPath(1), null).orElseThrow();
        assertEquals(second.sessionId(), node.stat().ephemeralOwner());
        assertArrayEquals(reg.toJson(), node.data());
    }

    @Test
    void registrationWaitsForAForeignEphemeralToGo() {
        final ZkClient first = open(config(zk.connectString()).build(), NO_LISTENER);
        final KafkaZkStore firstStore = new KafkaZkStore(first);
        firstStore.createPersistentPaths();
        final BrokerRegistration reg = new BrokerRegistration(3, "h", 9092, Optional.empty(), 1L);
        final long epoch1 = firstStore.registerBroker(reg, 0, 1000, System::nanoTime);
        final ZkClient second = open(config(zk.connectString()).build(), NO_LISTENER);
        final Thread closer = new Thread(first::close, "closer");
        closer.start();
        final long epoch2 = new KafkaZkStore(second).registerBroker(reg, 0, 10_000, System::nanoTime);
        assertTrue(epoch2 > epoch1);
    }

    @Test
    void sessionListenerHearsExpiryBeforeTheNewSession() throws Exception {
        final List<String> events = new CopyOnWriteArrayList<>();
        final ZkClient client = open(config(zk.connectString()).build(), new ZkSessionListener() {
            @Override
            public void onSessionExpired(final long sessionId) {
                events.add("expired:" + sessionId);
            }

            @Override
            public void onNewSession(final long sessionId) {
                events.add("new:" + sessionId);
            }
        });
        Await.until(Duration.ofSeconds(5), () -> events.size() == 1, events::toString);
        final long first = client.sessionId();
        ZkTestSupport.expireSession(zk.connectString(), client.sessionCredentials());
        // Only a call (or a ping) tells the client its session is gone.
        ZkTestSupport.awaitNewSession(client, first, Duration.ofSeconds(20));
        final long second = client.sessionId();
        Await.until(Duration.ofSeconds(5), () -> events.size() == 3, events::toString);
        assertEquals(List.of("new:" + first, "expired:" + first, "new:" + second), events);
    }
}
