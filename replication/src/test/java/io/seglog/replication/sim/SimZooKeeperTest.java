package io.seglog.replication.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.ZkError;
import io.seglog.replication.zk.ZkException;
import io.seglog.replication.zk.ZkPaths;
import io.seglog.replication.zk.ZkSessionListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What only the simulation's ZooKeeper does (injected faults, ghosts, timed callbacks); the rest is in the contract. */
class SimZooKeeperTest {
    private final SimScheduler sim = new SimScheduler(7);
    private final SimZooKeeper zk = new SimZooKeeper(sim);
    private final List<String> events = new ArrayList<>();

    private ZkSessionListener listener(final String name) {
        return new ZkSessionListener() {
            @Override
            public void onSessionExpired(final long sessionId) {
                events.add(name + " expired " + Long.toHexString(sessionId));
            }

            @Override
            public void onNewSession(final long sessionId) {
                events.add(name + " new " + Long.toHexString(sessionId));
            }
        };
    }

    private SimZkConnection connect(final String name) {
        final SimZkConnection c = zk.connect(0, listener(name), 6_000, 2_000);
        sim.run(sim.nowMs());
        return c;
    }

    @Test
    void connectionLossBeforeApplyLeavesNothingAndAfterApplyLeavesTheWrite() {
        final SimZkConnection c = connect("a");
        c.ensurePersistentPaths(List.of("/x"));
        c.failNextCall(SimZkConnection.Loss.BEFORE_APPLY);
        final ZkException before = assertThrows(ZkException.class, () -> c.create("/x/before", new byte[0], false));
        assertEquals(ZkError.CONNECTION_LOSS, before.error());
        assertEquals("/x/before", before.path());
        assertTrue(c.exists("/x/before", null).isEmpty());
        c.failNextCall(SimZkConnection.Loss.AFTER_APPLY);
        assertEquals(ZkError.CONNECTION_LOSS,
            assertThrows(ZkException.class, () -> c.setData("/x", new byte[] {1}, 0)).error());
        assertEquals(1, c.exists("/x", null).orElseThrow().version(), "applied, answer lost");
        assertEquals(ZkError.BAD_VERSION,
            assertThrows(ZkException.class, () -> c.setData("/x", new byte[] {2}, 0)).error(),
            "the retry sees its own earlier write");
        c.failNextCall(SimZkConnection.Loss.BEFORE_APPLY);
        assertTrue(c.getDataAsync("/x", null).isCompletedExceptionally(), "async calls fail in their future");
    }

    @Test
    void randomConnectionLossIsDrawnFromTheSeed() {
        final List<Integer> outcomes = new ArrayList<>();
        for (int run = 0; run < 2; run++) {
            final SimScheduler s = new SimScheduler(99);
            final SimZooKeeper server = new SimZooKeeper(s);
            final SimZkConnection c = server.connect(0, listener("r"), 6_000, 2_000);
            c.connectionLossRate(0.5);
            int ok = 0;
            final StringBuilder trace = new StringBuilder();
            for (int i = 0; i < 200; i++) {
                try {
                    c.ensurePersistentPaths(List.of("/n" + i));
                    ok++;
                    trace.append('+');
                } catch (final ZkException e) {
                    assertEquals(ZkError.CONNECTION_LOSS, e.error());
                    trace.append(server.peek("/n" + i).isPresent() ? 'a' : 'b');
                }
            }
            outcomes.add(trace.toString().hashCode());
            assertTrue(ok > 20 && ok < 180, "ok=" + ok);
            assertTrue(trace.indexOf("a") >= 0 && trace.indexOf("b") >= 0, trace.toString());
        }
        assertEquals(outcomes.get(0), outcomes.get(1), "the same seed, the same faults");
    }

    @Test
    void aDisconnectedSessionExpiresAfterItsTimeoutUnlessTheClientComesBack() {
        final SimZkConnection observer = connect("o");
        final SimZkConnection c = connect("c");
        final long first = c.sessionId();
        c.create("/eph", new byte[0], true);
        c.disconnect();
        assertEquals(ZkError.CONNECTION_LOSS, assertThrows(ZkException.class, () -> c.exists("/eph", null)).error());
        sim.run(sim.nowMs() + 5_000);
        c.reconnect();
        sim.run(sim.nowMs() + 10_000);
        assertEquals(first, c.sessionId(), "back within the timeout: same session, no callback");
        assertTrue(observer.exists("/eph", null).isPresent());
        c.disconnect();
        final long cut = sim.nowMs();
        assertTrue(sim.runUntil(() -> observer.exists("/eph", null).isEmpty(), cut + 60_000));
        assertEquals(cut + 6_000, sim.nowMs(), "expired at the session timeout");
        assertFalse(zk.isAlive(first));
        sim.run(sim.nowMs() + 1_000);
        assertEquals("c expired " + Long.toHexString(first), events.get(events.size() - 1),
            "the client declares the session lost while still disconnected");
        c.reconnect();
        sim.run(sim.nowMs());
        assertNotEquals(first, c.sessionId());
        assertEquals("c new " + Long.toHexString(c.sessionId()), events.get(events.size() - 1));
    }

    @Test
    void anAbandonedSessionLeavesGhostEphemeralsUntilTheServerExpiresIt() {
        final SimZkConnection broker = connect("b");
        final KafkaZkStore store = new KafkaZkStore(broker);
        store.createPersistentPaths();
        final long old = broker.sessionId();
        broker.create(ZkPaths.brokerPath(1), new byte[0], true);
        assertEquals(old, broker.abandonSession());
        sim.run(sim.nowMs());
        assertNotEquals(old, broker.sessionId());
        assertTrue(zk.isAlive(old));
        final ZkException taken = assertThrows(ZkException.class,
            () -> broker.create(ZkPaths.brokerPath(1), new byte[0], true));
        assertEquals(ZkError.NODE_EXISTS, taken.error(), "the ghost still holds the registration");
        assertEquals(old, zk.peek(ZkPaths.brokerPath(1)).orElseThrow().stat().ephemeralOwner());
        zk.expire(old);
        assertEquals(Optional.empty(), zk.peek(ZkPaths.brokerPath(1)));
        broker.create(ZkPaths.brokerPath(1), new byte[0], true);
        assertEquals(List.of("b new " + Long.toHexString(old), "b expired " + Long.toHexString(old),
            "b new " + Long.toHexString(broker.sessionId())), events, "expiring the ghost tells nobody");
    }

    @Test
    void callbacksAreEventsInOrderPerSessionEvenWithRandomDelays() {
        zk.notificationDelay(0, 50);
        final SimZkConnection c = connect("c");
        final SimZkConnection writer = connect("w");
        sim.run(sim.nowMs() + 100);
        final List<String> fired = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            final String p = "/n" + i;
            c.exists(p, fired::add);
        }
        for (int i = 0; i < 20; i++) {
            writer.create("/n" + i, new byte[0], false);
        }
        assertTrue(fired.isEmpty(), "no callback inside the write");
        sim.run(sim.nowMs() + 1_000);
        final List<String> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            expected.add("/n" + i);
        }
        assertEquals(expected, fired);
        c.close();
        writer.setData("/n0", new byte[0], -1);
        sim.run(sim.nowMs() + 1_000);
        assertEquals(20, fired.size());
    }

    @Test
    void aFailedMultiFiresNothingAndTakesNoZxid() {
        final SimZkConnection c = connect("c");
        c.ensurePersistentPaths(List.of("/a"));
        final List<String> fired = new ArrayList<>();
        c.children("/a", fired::add);
        final long zxid = zk.zxid();
        assertThrows(ZkException.class, () -> c.multi(List.of(
            new io.seglog.replication.zk.ZkOp.Create("/a/b", new byte[0], false),
            new io.seglog.replication.zk.ZkOp.Check("/a", 3))));
        sim.run(sim.nowMs() + 1_000);
        assertEquals(List.of(), fired);
        assertEquals(zxid, zk.zxid());
        assertTrue(c.children("/a", null).orElseThrow().isEmpty());
    }

    @Test
    void aWatchThatFiresWhileDisconnectedArrivesOnReconnectionUnlessTheSessionExpired() {
        final SimZkConnection c = connect("c");
        final SimZkConnection writer = connect("w");
        writer.ensurePersistentPaths(List.of("/a", "/b"));
        final List<String> fired = new ArrayList<>();
        c.getData("/a", fired::add);
        c.disconnect();
        writer.setData("/a", new byte[] {1}, -1);
        sim.run(sim.nowMs() + 1_000);
        assertEquals(List.of(), fired, "held while disconnected");
        c.reconnect();
        sim.run(sim.nowMs());
        assertEquals(List.of("/a"), fired);
        c.getData("/b", fired::add);
        c.disconnect();
        writer.setData("/b", new byte[] {1}, -1);
        sim.run(sim.nowMs() + 10_000);
        c.reconnect();
        sim.run(sim.nowMs() + 1_000);
        assertEquals(List.of("/a"), fired, "the session expired first: its watch is gone");
    }

    /** A workload with random callback delays and random connection loss; returns the trace digest. */
    private static long zooKeeperRun(final long seed) {
        final SimScheduler s = new SimScheduler(seed);
        final SimZooKeeper server = new SimZooKeeper(s);
        server.notificationDelay(0, 20);
        final List<SimZkConnection> clients = new ArrayList<>();
        final List<String> seen = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            final SimZkConnection c = server.connect(i, new ZkSessionListener() {
                @Override
                public void onSessionExpired(final long sessionId) {
                    seen.add("expired");
                }

                @Override
                public void onNewSession(final long sessionId) {
                    seen.add("new");
                }
            }, 6_000, 2_000);
            c.connectionLossRate(0.1);
            clients.add(c);
        }
        for (int step = 0; step < 300; step++) {
            final int who = s.random().nextInt(clients.size());
            final SimZkConnection c = clients.get(who);
            final String path = "/n" + s.random().nextInt(10);
            s.schedule("op " + step, who, s.random().nextLong(0, 30), () -> {
                try {
                    switch (s.random().nextInt(5)) {
                        case 0 -> c.create(path, new byte[0], s.random().nextBoolean());
                        case 1 -> c.setData(path, new byte[] {1}, -1);
                        case 2 -> c.delete(path, -1);
                        case 3 -> c.getData(path, seen::add);
                        default -> server.expire(c.serverSessionId());
                    }
                } catch (final ZkException e) {
                    seen.add(e.error().name());
                }
            });
            s.run(s.nowMs() + 10);
        }
        s.run(s.nowMs() + 60_000);
        assertTrue(seen.size() > 100, "the workload did something: " + seen.size());
        return s.digest() * 31 + seen.hashCode();
    }

    @Test
    void theSameSeedGivesTheSameZooKeeperRun() {
        assertEquals(zooKeeperRun(5), zooKeeperRun(5));
        assertNotEquals(zooKeeperRun(5), zooKeeperRun(6));
    }
}
