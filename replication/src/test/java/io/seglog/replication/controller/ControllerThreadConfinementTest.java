package io.seglog.replication.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.transport.InJvmControlChannel;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The controller's state is confined to its event thread: hooks called from elsewhere are refused. */
class ControllerThreadConfinementTest {
    @Test
    void testHooksRefuseToRunOffTheEventThread() {
        final ReplicationConfig config = ReplicationConfig.builder().brokerId(1).zookeeperConnect("127.0.0.1:1").build();
        try (Controller controller = new Controller(config, new InJvmControlChannel(), Thread::new, () -> 0L,
            () -> 0L, epoch -> { })) {
            final IllegalStateException e = assertThrows(IllegalStateException.class, () -> controller.reelect(Set.of()));
            assertTrue(e.getMessage().startsWith("reelect must run on the controller's event thread"), e.getMessage());
            assertThrows(IllegalStateException.class, controller::sendMetadataToAll);
            assertThrows(IllegalStateException.class, controller::epochZkVersion);
            assertEquals(-1, controller.epoch());
        }
    }
}
