package io.seglog.replication.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.transport.ControlResponse;
import io.seglog.replication.transport.LeaderAndIsrRequest;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.replication.transport.StaleBrokerEpochException;
import io.seglog.replication.transport.StaleControllerEpochException;
import io.seglog.replication.transport.StaleLeaderEpochException;
import io.seglog.replication.transport.StopReplicaRequest;
import io.seglog.replication.transport.UpdateMetadataRequest;
import io.seglog.storage.TopicPartition;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BrokerControlHandlerTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final long EPOCH = 100;
    private BrokerControlHandler handler;

    @BeforeEach
    void setUp() {
        handler = new BrokerControlHandler(1);
        handler.brokerEpoch(EPOCH);
    }

    private static PartitionStateInfo state(final int leader, final int leaderEpoch) {
        return new PartitionStateInfo(1, new LeaderAndIsr(leader, leaderEpoch, List.of(1, 2), 0), List.of(1, 2), false);
    }

    private static LiveBroker live(final int id, final long epoch) {
        return new LiveBroker(id, epoch, "localhost", 9092 + id, Optional.empty());
    }

    private static LeaderAndIsrRequest lai(final int controllerEpoch, final long brokerEpoch, final int leaderEpoch) {
        return new LeaderAndIsrRequest(9, controllerEpoch, brokerEpoch, Map.of(TP, state(1, leaderEpoch)), Map.of());
    }

    @Test
    void appliesANewerLeaderEpoch() {
        assertTrue(handler.handle(lai(1, EPOCH, 0)).partitionErrors().isEmpty());
        assertTrue(handler.handle(lai(1, EPOCH, 1)).partitionErrors().isEmpty());
        assertEquals(1, handler.replica(TP).orElseThrow().leaderAndIsr().leaderEpoch());
        assertEquals(1, handler.controllerEpoch());
    }

    @Test
    void refusesALeaderEpochThatIsNotNewerCarryingBothEpochs() {
        handler.handle(lai(1, EPOCH, 5));
        for (final int stale : new int[] {5, 4}) {
            final ControlResponse response = handler.handle(lai(1, EPOCH, stale));
            final StaleLeaderEpochException e =
                assertInstanceOf(StaleLeaderEpochException.class, response.partitionErrors().get(TP));
            assertEquals(stale, e.requestEpoch());
            assertEquals(5, e.currentEpoch());
        }
        assertEquals(5, handler.replica(TP).orElseThrow().leaderAndIsr().leaderEpoch());
        assertEquals(2, handler.refusedCount());
    }

    @Test
    void refusesAnOlderControllerEpochForEveryMessageType() {
        handler.handle(lai(3, EPOCH, 0));
        final StaleControllerEpochException e = assertThrows(StaleControllerEpochException.class,
            () -> handler.handle(lai(2, EPOCH, 7)));
        assertEquals(2, e.requestEpoch());
        assertEquals(3, e.currentEpoch());
        assertThrows(StaleControllerEpochException.class, () -> handler.handle(
            new UpdateMetadataRequest(9, 2, EPOCH, Map.of(1, live(1, EPOCH)), Map.of())));
        assertThrows(StaleControllerEpochException.class, () -> handler.handle(
            new StopReplicaRequest(9, 2, EPOCH, Set.of(TP), true)));
        assertEquals(0, handler.replica(TP).orElseThrow().leaderAndIsr().leaderEpoch(), "nothing applied");
        assertTrue(handler.handle(lai(4, EPOCH, 1)).partitionErrors().isEmpty(), "a newer controller is accepted");
    }

    /**
     * A restarted broker knows no registration yet, so a deposed controller's message for its previous registration
     * looks newer than any epoch it has seen; the controller epoch read from ZooKeeper before it serves refuses it.
     */
    @Test
    void aRestartedBrokerRefusesADeposedControllerBeforeItKnowsItsRegistration() {
        final BrokerControlHandler restarted = new BrokerControlHandler(1);
        restarted.controllerEpochAtLeast(6);
        final StaleControllerEpochException e = assertThrows(StaleControllerEpochException.class,
            () -> restarted.handle(lai(5, EPOCH, 3)));
        assertEquals(5, e.requestEpoch());
        assertEquals(6, e.currentEpoch());
        assertTrue(restarted.replica(TP).isEmpty(), "nothing applied");
        restarted.controllerEpochAtLeast(2);
        assertEquals(6, restarted.controllerEpoch(), "never lowered");
        assertTrue(restarted.handle(lai(6, EPOCH + 1, 4)).partitionErrors().isEmpty(), "the current controller is");
    }

    /**
     * A restarted broker knows no registration yet, so what the current controller had queued for its previous
     * registration (LeaderAndIsr for a partition the previous process led) looks newer than any epoch it has seen;
     * the registrations' zxid read from ZooKeeper before it serves refuses it, and the new registration is accepted
     * even before the broker has set its epoch (seed 5840).
     */
    @Test
    void aRestartedBrokerRefusesWhatWasMeantForItsPreviousRegistration() {
        final BrokerControlHandler restarted = new BrokerControlHandler(1);
        restarted.registrationsUpTo(EPOCH + 3);
        for (final long previous : new long[] {EPOCH, EPOCH + 3}) {
            final StaleBrokerEpochException e = assertThrows(StaleBrokerEpochException.class,
                () -> restarted.handle(lai(1, previous, 1)));
            assertEquals(previous, e.requestEpoch());
        }
        assertTrue(restarted.replica(TP).isEmpty(), "nothing applied");
        assertEquals(-1, restarted.controllerEpoch());
        assertTrue(restarted.handle(lai(1, EPOCH + 7, 2)).partitionErrors().isEmpty(),
            "the new registration's czxid is larger: accepted before the broker has set it");
        restarted.brokerEpoch(EPOCH + 7);
        restarted.registrationsUpTo(EPOCH);
        assertThrows(StaleBrokerEpochException.class, () -> restarted.handle(lai(1, EPOCH + 5, 3)),
            "never lowered");
        assertEquals(2, restarted.replica(TP).orElseThrow().leaderAndIsr().leaderEpoch());
    }

    @Test
    void refusesAnOlderOrEndedBrokerEpoch() {
        final StaleBrokerEpochException older = assertThrows(StaleBrokerEpochException.class,
            () -> handler.handle(lai(1, EPOCH - 1, 0)));
        assertEquals(EPOCH - 1, older.requestEpoch());
        assertEquals(EPOCH, older.currentEpoch());
        handler.brokerEpoch(BrokerControlHandler.NO_BROKER_EPOCH);
        // The registration at EPOCH ended with its session: a (zombie) controller's message for it is refused.
        assertThrows(StaleBrokerEpochException.class, () -> handler.handle(lai(1, EPOCH, 0)));
        assertThrows(StaleBrokerEpochException.class, () -> handler.handle(lai(1, EPOCH - 5, 0)));
        assertTrue(handler.replica(TP).isEmpty());
        assertEquals(-1, handler.controllerEpoch(), "a refused message does not raise the controller epoch");
    }

    @Test
    void acceptsANewerRegistrationTheControllerSawFirst() {
        // The session expired and the broker registered again (czxid EPOCH + 9), but the controller's messages
        // for the new registration arrive before the registering thread sets the epoch here (Kafka accepts them).
        handler.brokerEpoch(BrokerControlHandler.NO_BROKER_EPOCH);
        assertTrue(handler.handle(lai(2, EPOCH + 9, 0)).partitionErrors().isEmpty());
        assertEquals(0, handler.replica(TP).orElseThrow().leaderAndIsr().leaderEpoch());
        handler.brokerEpoch(EPOCH + 9);
        assertTrue(handler.handle(lai(2, EPOCH + 9, 1)).partitionErrors().isEmpty());
        // Once told of it, anything older is refused, including the registration before it.
        assertThrows(StaleBrokerEpochException.class, () -> handler.handle(lai(2, EPOCH, 2)));
        assertEquals(1, handler.replica(TP).orElseThrow().leaderAndIsr().leaderEpoch());
    }

    @Test
    void stopReplicaAndDeletionMetadata() {
        handler.handle(lai(1, EPOCH, 0));
        handler.handle(new StopReplicaRequest(9, 1, EPOCH, Set.of(TP), false));
        assertTrue(handler.replica(TP).isEmpty());
        assertTrue(handler.metadata(TP).isPresent(), "metadata stays until the topic is deleted");
        handler.handle(new UpdateMetadataRequest(9, 1, EPOCH, Map.of(1, live(1, EPOCH), 2, live(2, 7L)), Map.of(TP,
            new PartitionStateInfo(1, new LeaderAndIsr(LeaderAndIsr.LEADER_DURING_DELETE, 0, List.of(1), 0),
                List.of(1), false))));
        assertTrue(handler.metadata(TP).isEmpty());
        assertEquals(Map.of(1, EPOCH, 2, 7L), handler.liveBrokers());
    }
}
