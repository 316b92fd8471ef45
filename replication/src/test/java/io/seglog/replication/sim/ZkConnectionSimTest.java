package io.seglog.replication.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.zk.ZkConnection;
import io.seglog.replication.zk.ZkSessionListener;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** The {@link ZkConnectionContract} against the simulation's {@link SimZooKeeper}. */
class ZkConnectionSimTest extends ZkConnectionContract {
    /** Long enough for every callback of a test; the simulated clock makes it free. */
    private static final long DEADLINE_MS = 60_000;

    private final SimScheduler sim = new SimScheduler(2026);
    private final SimZooKeeper zk = new SimZooKeeper(sim);
    private int nodes;

    @Override
    protected ZkConnection open(final ZkSessionListener listener) {
        final SimZkConnection c = zk.connect(nodes++, listener, 4_000, 2_000);
        await(() -> c.sessionId() != 0, () -> "session of " + c);
        return c;
    }

    @Override
    protected void expire(final ZkConnection connection) {
        zk.expire(((SimZkConnection) connection).serverSessionId());
    }

    @Override
    protected void await(final BooleanSupplier condition, final Supplier<String> what) {
        assertTrue(sim.runUntil(condition, sim.nowMs() + DEADLINE_MS), () -> "seed " + sim.seed() + ": " + what.get());
    }
}
