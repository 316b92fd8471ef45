package io.seglog.replication.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.seglog.storage.TopicPartition;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class InJvmControlChannelTest {
    private static final UpdateMetadataRequest REQUEST = new UpdateMetadataRequest(1, 1, 5, Map.of(), Map.of());

    @Test
    void deliversToTheRegisteredBrokerAndReportsItsRefusal() throws Exception {
        final InJvmControlChannel channel = new InJvmControlChannel();
        channel.register(2, r -> ControlResponse.ok(), (b, e) -> CompletableFuture.completedFuture(Set.of()));
        assertEquals(ControlResponse.ok(), channel.send(2, REQUEST).get());
        channel.register(3, r -> {
            throw new StaleControllerEpochException("refused", r.controllerEpoch(), 7);
        }, (b, e) -> CompletableFuture.completedFuture(Set.of(new TopicPartition("t", 0))));
        final ExecutionException refused = assertThrows(ExecutionException.class, () -> channel.send(3, REQUEST).get());
        final StaleControllerEpochException cause = assertInstanceOf(StaleControllerEpochException.class,
            refused.getCause());
        assertEquals(1, cause.requestEpoch());
        assertEquals(7, cause.currentEpoch());
        assertEquals(Set.of(new TopicPartition("t", 0)), channel.controlledShutdown(3, 2, 5).get());
    }

    @Test
    void anUnknownOrDepartedBrokerIsUnreachable() {
        final InJvmControlChannel channel = new InJvmControlChannel();
        channel.register(2, r -> ControlResponse.ok(), (b, e) -> CompletableFuture.completedFuture(Set.of()));
        channel.unregister(2);
        final ExecutionException e = assertThrows(ExecutionException.class, () -> channel.send(2, REQUEST).get());
        assertInstanceOf(BrokerUnreachableException.class, e.getCause());
        assertEquals("broker.id=2 is not reachable", e.getCause().getMessage());
        assertInstanceOf(BrokerUnreachableException.class, assertThrows(ExecutionException.class,
            () -> channel.controlledShutdown(2, 1, 1).get()).getCause());
    }
}
