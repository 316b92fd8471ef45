package io.seglog.replication.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.zk.BrokerRegistration;
import io.seglog.replication.zk.ControllerElection;
import io.seglog.replication.zk.ControllerMovedException;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.replication.zk.ZkError;
import io.seglog.replication.zk.ZkException;
import io.seglog.replication.zk.ZkPaths;
import io.seglog.replication.zk.ZkSessionListener;
import io.seglog.storage.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The production {@link KafkaZkStore} over the simulation's ZooKeeper, in the situations the stand-in exists for:
 * answers lost after the write applied, a zombie controller, ghost registrations. Nothing here blocks: the store's
 * waits return at once on the stand-in's completed futures.
 */
class KafkaZkStoreOnSimTest {
    private static final ZkSessionListener QUIET = new ZkSessionListener() {
        @Override
        public void onSessionExpired(final long sessionId) {
        }

        @Override
        public void onNewSession(final long sessionId) {
        }
    };

    private final SimScheduler sim = new SimScheduler(11);
    private final SimZooKeeper zk = new SimZooKeeper(sim);

    private SimZkConnection connect(final int node) {
        final SimZkConnection c = zk.connect(node, QUIET, 6_000, 2_000);
        assertTrue(sim.runUntil(() -> c.sessionId() != 0, sim.nowMs() + 1_000));
        return c;
    }

    private BrokerRegistration registration(final int id) {
        return new BrokerRegistration(id, "broker" + id, 9092, Optional.empty(), sim.clock().wallMs());
    }

    @Test
    void anElectionWhoseAnswerWasLostIsStillWonAndOneThatNeverLandedIsNot() {
        final SimZkConnection a = connect(1);
        final SimZkConnection b = connect(2);
        final KafkaZkStore storeA = new KafkaZkStore(a);
        final KafkaZkStore storeB = new KafkaZkStore(b);
        storeA.createPersistentPaths();
        final ControllerElection first = storeA.tryElectController(1, 0).orElseThrow();
        storeA.deleteController(first.epochZkVersion());
        b.failNextWrite(SimZkConnection.Loss.BEFORE_APPLY);
        assertEquals(Optional.empty(), storeB.tryElectController(2, 0));
        assertEquals(OptionalInt.empty(), storeB.controllerId(null));
        assertEquals(first.epoch(), storeB.controllerEpoch().orElseThrow().value(), "nothing landed");
        a.failNextWrite(SimZkConnection.Loss.AFTER_APPLY);
        final ControllerElection won = storeA.tryElectController(1, 0).orElseThrow();
        assertEquals(first.epoch() + 1, won.epoch());
        assertEquals(OptionalInt.of(1), storeB.controllerId(null));
        assertEquals(Optional.empty(), storeB.tryElectController(2, 0), "the seat is taken");
    }

    @Test
    void aZombieControllerIsFencedAfterItsSessionExpired() {
        final SimZkConnection a = connect(1);
        final SimZkConnection b = connect(2);
        final KafkaZkStore storeA = new KafkaZkStore(a);
        final KafkaZkStore storeB = new KafkaZkStore(b);
        storeA.createPersistentPaths();
        final ControllerElection first = storeA.tryElectController(1, 0).orElseThrow();
        zk.expire(a.serverSessionId());
        final ControllerElection second = storeB.tryElectController(2, 0).orElseThrow();
        assertEquals(first.epoch() + 1, second.epoch());
        final TopicPartition tp = new TopicPartition("t", 0);
        storeB.createTopic("t", Map.of(0, List.of(1, 2)));
        final PartitionStateZnode state = new PartitionStateZnode(LeaderAndIsr.initial(1, List.of(1, 2)), first.epoch());
        assertThrows(ControllerMovedException.class,
            () -> storeA.createPartitionStates(Map.of(tp, state), first.epochZkVersion()));
        storeA.deleteController(first.epochZkVersion());
        assertEquals(OptionalInt.of(2), storeB.controllerId(null), "the zombie could not remove its successor");
        assertEquals(Set.of(tp), storeB.createPartitionStates(Map.of(tp, state), second.epochZkVersion()));
    }

    @Test
    void aRegistrationWhoseAnswerWasLostIsFoundOnTheRetry() {
        final SimZkConnection a = connect(1);
        final KafkaZkStore store = new KafkaZkStore(a);
        store.createPersistentPaths();
        a.failNextWrite(SimZkConnection.Loss.AFTER_APPLY);
        assertEquals(ZkError.CONNECTION_LOSS, assertThrows(ZkException.class,
            () -> store.registerBroker(registration(1), 0, 0, sim.clock().nsSupplier())).error());
        final long epoch = store.registerBroker(registration(1), 0, 0, sim.clock().nsSupplier());
        assertEquals(zk.peek(ZkPaths.brokerPath(1)).orElseThrow().stat().czxid(), epoch);
        assertEquals(a.sessionId(), zk.peek(ZkPaths.brokerPath(1)).orElseThrow().stat().ephemeralOwner());
    }

    @Test
    void aGhostRegistrationIsReplacedByItsOwnerAndBlocksAnyoneElse() {
        final SimZkConnection a = connect(1);
        final KafkaZkStore store = new KafkaZkStore(a);
        store.createPersistentPaths();
        final long firstEpoch = store.registerBroker(registration(1), 0, 0, sim.clock().nsSupplier());
        final long ghost = a.abandonSession();
        assertTrue(sim.runUntil(() -> a.sessionId() != ghost && a.sessionId() != 0, sim.nowMs() + 1_000));
        final SimZkConnection impostor = connect(9);
        assertEquals(ZkError.NODE_EXISTS, assertThrows(ZkException.class, () -> new KafkaZkStore(impostor)
            .registerBroker(registration(1), 0, 0, sim.clock().nsSupplier())).error(),
            "a live foreign session holds the id; no wait, so no blocking");
        final long secondEpoch = store.registerBroker(registration(1), ghost, 0, sim.clock().nsSupplier());
        assertTrue(secondEpoch > firstEpoch, "the broker epoch grows: " + firstEpoch + " then " + secondEpoch);
        assertTrue(zk.isAlive(ghost), "the ghost session lives on, without its registration");
        assertEquals(a.sessionId(), zk.peek(ZkPaths.brokerPath(1)).orElseThrow().stat().ephemeralOwner());
    }

    @Test
    void aSeededTopicAdminWritesTheSameTopicIdsAndTheDefaultOneDrawsFreshOnes() {
        final SimZkConnection a = connect(1);
        final KafkaZkStore store = new KafkaZkStore(a);
        store.createPersistentPaths();
        store.registerBroker(registration(1), 0, 0, sim.clock().nsSupplier());
        new io.seglog.replication.controller.TopicAdmin(store, new java.util.SplittableRandom(7),
            new java.util.SplittableRandom(42)).createTopic("seeded-a", 1, 1);
        new io.seglog.replication.controller.TopicAdmin(store, new java.util.SplittableRandom(8),
            new java.util.SplittableRandom(42)).createTopic("seeded-b", 1, 1);
        new io.seglog.replication.controller.TopicAdmin(store, new java.util.SplittableRandom(7))
            .createTopic("secure-a", 1, 1);
        new io.seglog.replication.controller.TopicAdmin(store, new java.util.SplittableRandom(7))
            .createTopic("secure-b", 1, 1);
        final java.util.function.Function<String, String> id = topic -> store.topicAssignment(topic, null)
            .orElseThrow().value().topicId().orElseThrow();
        assertEquals(id.apply("seeded-a"), id.apply("seeded-b"), "the same id source, the same id (a replayed seed)");
        assertTrue(!id.apply("secure-a").equals(id.apply("secure-b")) && !id.apply("secure-a").equals(
            id.apply("seeded-a")), "ids from the secure source differ: " + id.apply("secure-a") + " "
            + id.apply("secure-b"));
    }
}
