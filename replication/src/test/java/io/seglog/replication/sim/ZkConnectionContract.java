package io.seglog.replication.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.zk.ZkConnection;
import io.seglog.replication.zk.ZkError;
import io.seglog.replication.zk.ZkException;
import io.seglog.replication.zk.ZkNode;
import io.seglog.replication.zk.ZkOp;
import io.seglog.replication.zk.ZkSessionListener;
import io.seglog.replication.zk.ZkStat;
import io.seglog.replication.zk.ZkWatch;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * What the replication layer relies on from a {@link ZkConnection} (its javadoc), checked against the real thing
 * ({@code ZkClient} on a ZooKeeper server, {@link ZkConnectionRealIT}) and against the simulation's stand-in
 * ({@link SimZooKeeper}, {@link ZkConnectionSimTest}) with the same assertions: the stand-in behaves as ZooKeeper
 * where the code looks.
 *
 * <p>"Fires once" is checked without waiting for nothing to happen: a session's notifications arrive in order, so
 * after a later watch of the same session fired (a barrier), an earlier duplicate would already have arrived.
 */
abstract class ZkConnectionContract {
    private static final AtomicInteger ROOTS = new AtomicInteger();
    private static final byte[] NONE = new byte[0];

    /** A root of its own per test, so that a server can be shared by the tests of a class. */
    private final String root = "/contract" + ROOTS.incrementAndGet();
    private final AtomicInteger barriers = new AtomicInteger();

    /**
     * Opens a connection with a new session, announced to the listener, and waits until it has a session id.
     *
     * @param listener the session listener
     * @return the connection, closed by the subclass after the test
     */
    protected abstract ZkConnection open(ZkSessionListener listener);

    /**
     * Expires a connection's session on the server, as a long pause would.
     *
     * @param connection the connection
     */
    protected abstract void expire(ZkConnection connection);

    /**
     * Waits until a condition holds: by polling with a deadline (a real server) or by running events (the simulation).
     *
     * @param condition the condition
     * @param what      describes it for the failure
     */
    protected abstract void await(BooleanSupplier condition, Supplier<String> what);

    private ZkConnection open() {
        return open(new Sessions());
    }

    private static byte[] bytes(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static ZkError error(final Executable call) {
        return assertThrows(ZkException.class, call).error();
    }

    private static ZkException failure(final Executable call) {
        return assertThrows(ZkException.class, call);
    }

    private String path(final String name) {
        return root + "/" + name;
    }

    private ZkConnection withRoot() {
        final ZkConnection c = open();
        c.ensurePersistentPaths(List.of(root));
        return c;
    }

    /** Waits until every notification sent to {@code watcher} before now has arrived (see the class comment). */
    private void barrier(final ZkConnection watcher, final ZkConnection writer) {
        final String p = path("barrier" + barriers.incrementAndGet());
        final AtomicBoolean fired = new AtomicBoolean();
        assertTrue(watcher.exists(p, x -> fired.set(true)).isEmpty());
        writer.create(p, NONE, false);
        await(fired::get, () -> "barrier " + p + " fired");
    }

    /** Records watch firings; thread-safe (a real client calls it on its event thread). */
    private static final class Recorder implements ZkWatch {
        final List<String> fired = new CopyOnWriteArrayList<>();

        @Override
        public void onChange(final String path) {
            fired.add(path);
        }
    }

    /** Records session callbacks in order. */
    private static final class Sessions implements ZkSessionListener {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void onSessionExpired(final long sessionId) {
            events.add("expired " + Long.toHexString(sessionId));
        }

        @Override
        public void onNewSession(final long sessionId) {
            events.add("new " + Long.toHexString(sessionId));
        }
    }

    @Test
    void createGetAndSetFollowTheDataVersion() {
        final ZkConnection c = withRoot();
        final String p = path("a");
        c.create(p, bytes("one"), false);
        final ZkNode read = c.getData(p, null).orElseThrow();
        assertArrayEquals(bytes("one"), read.data());
        assertEquals(0, read.stat().version());
        assertEquals(0, read.stat().ephemeralOwner());
        final ZkStat set = c.setData(p, bytes("two"), 0);
        assertEquals(1, set.version());
        assertEquals(read.stat().czxid(), set.czxid(), "a change keeps the create's zxid");
        final ZkException stale = failure(() -> c.setData(p, bytes("three"), 0));
        assertEquals(ZkError.BAD_VERSION, stale.error());
        assertEquals(p, stale.path());
        assertEquals(2, c.setData(p, bytes("three"), -1).version());
        assertArrayEquals(bytes("three"), c.getData(p, null).orElseThrow().data());
        assertEquals(2, c.exists(p, null).orElseThrow().version());
        assertEquals(ZkError.BAD_VERSION, error(() -> c.delete(p, 1)));
        c.delete(p, 2);
        assertEquals(Optional.empty(), c.getData(p, null));
        assertEquals(Optional.empty(), c.exists(p, null));
        c.create(p, null, false);
        assertEquals(0, c.getData(p, null).orElseThrow().data().length, "no data reads as empty");
    }

    @Test
    void missingExistingAndNonEmptyNodesFailWithTheirErrors() {
        final ZkConnection c = withRoot();
        final ZkException noParent = failure(() -> c.create(path("missing/child"), NONE, false));
        assertEquals(ZkError.NO_NODE, noParent.error());
        assertEquals(path("missing/child"), noParent.path());
        c.create(path("p"), NONE, false);
        assertEquals(ZkError.NODE_EXISTS, error(() -> c.create(path("p"), NONE, true)));
        assertEquals(ZkError.NO_NODE, error(() -> c.setData(path("nothing"), NONE, -1)));
        assertEquals(ZkError.NO_NODE, error(() -> c.delete(path("nothing"), -1)));
        c.create(path("p/q"), NONE, false);
        assertEquals(ZkError.NOT_EMPTY, error(() -> c.delete(path("p"), -1)));
        assertEquals(Optional.empty(), c.children(path("nothing"), null));
        assertEquals(Optional.of(List.of("q")), c.children(path("p"), null));
        assertEquals(Optional.of(List.of()), c.children(path("p/q"), null));
        assertEquals(Optional.empty(), c.getDataAsync(path("nothing"), null).join());
        c.ensurePersistentPaths(List.of(path("x/y/z"), path("p")));
        assertTrue(c.exists(path("x/y/z"), null).isPresent(), "parents created, existing paths tolerated");
    }

    @Test
    void czxidGrowsWithEveryWriteAndAMultiIsOneTransaction() {
        final ZkConnection c = withRoot();
        c.create(path("a"), NONE, false);
        c.create(path("b"), NONE, false);
        final long a = c.exists(path("a"), null).orElseThrow().czxid();
        final long b = c.exists(path("b"), null).orElseThrow().czxid();
        assertTrue(b > a, "a=" + a + " b=" + b);
        c.multi(List.of(new ZkOp.Create(path("c"), NONE, false), new ZkOp.Create(path("d"), NONE, false)));
        final long cz = c.exists(path("c"), null).orElseThrow().czxid();
        assertTrue(cz > b);
        assertEquals(cz, c.exists(path("d"), null).orElseThrow().czxid());
    }

    /** What a restarted broker relies on to refuse what was meant for its previous registration. */
    @Test
    void pzxidIsTheLastChildCreateOrDeleteAnExpiryIncluded() {
        final ZkConnection c = withRoot();
        final String ids = path("ids");
        c.create(ids, NONE, false);
        assertEquals(c.exists(ids, null).orElseThrow().czxid(), c.exists(ids, null).orElseThrow().pzxid(),
            "the create's zxid until a child changes");
        final ZkConnection owner = open();
        owner.create(ids + "/1", NONE, true);
        final long registered = c.exists(ids + "/1", null).orElseThrow().czxid();
        final long afterCreate = c.exists(ids, null).orElseThrow().pzxid();
        assertEquals(registered, afterCreate);
        c.setData(ids + "/1", bytes("changed"), -1);
        assertEquals(afterCreate, c.exists(ids, null).orElseThrow().pzxid(), "a child's data is not a child change");
        expire(owner);
        await(() -> c.exists(ids + "/1", null).isEmpty(), () -> "the expired session's ephemeral deleted");
        final long afterExpiry = c.exists(ids, null).orElseThrow().pzxid();
        assertTrue(afterExpiry > afterCreate, "the expiry's delete moves it: " + afterExpiry + " > " + afterCreate);
        c.create(ids + "/1", NONE, true);
        assertTrue(c.exists(ids + "/1", null).orElseThrow().czxid() > afterExpiry, "a later child's czxid is larger");
    }

    @Test
    void multiIsAllOrNothingAndNamesTheFirstFailingOperation() throws Exception {
        final ZkConnection c = withRoot();
        final String epoch = path("epoch");
        final String x = path("x");
        c.create(epoch, bytes("1"), false);
        c.create(x, bytes("old"), false);
        final ZkException fenced = failure(() -> c.multi(List.of(new ZkOp.Check(epoch, 5),
            new ZkOp.SetData(x, bytes("new"), -1))));
        assertEquals(ZkError.BAD_VERSION, fenced.error());
        assertEquals(epoch, fenced.path());
        assertArrayEquals(bytes("old"), c.getData(x, null).orElseThrow().data());
        final ZkException exists = failure(() -> c.multi(List.of(new ZkOp.Create(path("n1"), NONE, false),
            new ZkOp.Create(x, NONE, false), new ZkOp.Create(path("n3"), NONE, false))));
        assertEquals(ZkError.NODE_EXISTS, exists.error());
        assertEquals(x, exists.path());
        assertTrue(c.exists(path("n1"), null).isEmpty(), "the create before the failing one was not applied");
        assertEquals(ZkError.NO_NODE, error(() -> c.multi(List.of(new ZkOp.SetData(path("n1"), NONE, -1),
            new ZkOp.Delete(path("n3"), -1)))));
        final List<ZkStat> stats = c.multi(List.of(new ZkOp.Check(epoch, 0), new ZkOp.SetData(x, bytes("new"), 0),
            new ZkOp.Delete(epoch, 0)));
        assertEquals(3, stats.size());
        assertNull(stats.get(0));
        assertEquals(1, stats.get(1).version());
        assertNull(stats.get(2));
        assertTrue(c.exists(epoch, null).isEmpty());
        final ExecutionException async = assertThrows(ExecutionException.class,
            () -> c.multiAsync(List.of(new ZkOp.Check(epoch, 0))).get());
        assertEquals(ZkError.NO_NODE, ((ZkException) async.getCause()).error());
        assertEquals(epoch, ((ZkException) async.getCause()).path());
    }

    @Test
    void sequentialNamesCountTheParentsChildChanges() {
        final ZkConnection c = withRoot();
        c.create(path("changes"), NONE, false);
        final String prefix = path("changes/change_");
        for (int i = 0; i < 3; i++) {
            c.multi(List.of(new ZkOp.CreateSequential(prefix, bytes("v" + i))));
        }
        assertEquals(List.of("change_0000000000", "change_0000000001", "change_0000000002"),
            List.copyOf(new TreeSet<>(c.children(path("changes"), null).orElseThrow())));
        assertArrayEquals(bytes("v1"), c.getData(prefix + "0000000001", null).orElseThrow().data());
        c.delete(prefix + "0000000000", -1);
        c.multi(List.of(new ZkOp.CreateSequential(prefix, NONE)));
        // Only creates move the counter (ZooKeeper's server bumps the parent's cversion on a create, not a delete).
        assertEquals(List.of("change_0000000001", "change_0000000002", "change_0000000003"),
            List.copyOf(new TreeSet<>(c.children(path("changes"), null).orElseThrow())));
        assertEquals(ZkError.NO_NODE, error(() -> c.multi(List.of(new ZkOp.CreateSequential(path("none/s_"), NONE)))));
    }

    @Test
    void ephemeralsBelongToTheirSessionAndGoWhenItExpires() {
        final ZkConnection observer = withRoot();
        final ZkConnection owner = open();
        owner.create(path("eph"), bytes("me"), true);
        owner.create(path("per"), NONE, false);
        assertEquals(owner.sessionId(), observer.exists(path("eph"), null).orElseThrow().ephemeralOwner());
        final long before = owner.sessionId();
        expire(owner);
        await(() -> observer.exists(path("eph"), null).isEmpty(), () -> "the expired session's ephemeral deleted");
        assertTrue(observer.exists(path("per"), null).isPresent());
        await(() -> owner.sessionId() != before && owner.sessionId() != 0, () -> "a new session");
        owner.create(path("eph"), NONE, true);
        assertEquals(owner.sessionId(), observer.exists(path("eph"), null).orElseThrow().ephemeralOwner());
    }

    @Test
    void ephemeralsGoWhenTheSessionClosesAndAClosedConnectionRefusesCalls() {
        final ZkConnection observer = withRoot();
        final ZkConnection owner = open();
        owner.create(path("eph"), NONE, true);
        owner.close();
        owner.close();
        await(() -> observer.exists(path("eph"), null).isEmpty(), () -> "the closed session's ephemeral deleted");
        assertEquals(ZkError.CLOSED, error(() -> owner.getData(path("eph"), null)));
    }

    @Test
    void dataWatchFiresOnceForAChangeAndForADelete() {
        final ZkConnection c = withRoot();
        final ZkConnection writer = open();
        final String p = path("d");
        c.create(p, NONE, false);
        final Recorder w = new Recorder();
        assertTrue(c.getData(p, w).isPresent());
        assertTrue(c.getData(p, w).isPresent(), "armed twice with the same callback: still one watch");
        writer.setData(p, bytes("1"), -1);
        writer.setData(p, bytes("2"), -1);
        barrier(c, writer);
        assertEquals(List.of(p), w.fired);
        final Recorder del = new Recorder();
        c.getData(p, del);
        writer.delete(p, -1);
        barrier(c, writer);
        assertEquals(List.of(p), del.fired);
    }

    @Test
    void existsWatchFiresOnCreateAndGetDataOfAnAbsentNodeWatchesItsCreation() {
        final ZkConnection c = withRoot();
        final ZkConnection writer = open();
        final Recorder exists = new Recorder();
        final Recorder data = new Recorder();
        assertTrue(c.exists(path("e"), exists).isEmpty());
        assertTrue(c.getData(path("g"), data).isEmpty());
        writer.create(path("e"), NONE, false);
        writer.create(path("g"), NONE, false);
        writer.setData(path("e"), NONE, -1);
        barrier(c, writer);
        assertEquals(List.of(path("e")), exists.fired);
        assertEquals(List.of(path("g")), data.fired);
        final Recorder onExisting = new Recorder();
        assertTrue(c.exists(path("e"), onExisting).isPresent());
        writer.setData(path("e"), NONE, -1);
        barrier(c, writer);
        assertEquals(List.of(path("e")), onExisting.fired, "an exists-watch on an existing node sees a change");
    }

    @Test
    void childWatchFiresOnceForAChildChangeAndForTheParentsDelete() {
        final ZkConnection c = withRoot();
        final ZkConnection writer = open();
        final String parent = path("ids");
        c.create(parent, NONE, false);
        final Recorder w = new Recorder();
        assertEquals(Optional.of(List.of()), c.children(parent, w));
        writer.create(parent + "/1", NONE, true);
        writer.create(parent + "/2", NONE, true);
        writer.setData(parent, bytes("data changes do not fire a child watch"), -1);
        barrier(c, writer);
        assertEquals(List.of(parent), w.fired);
        final Recorder removed = new Recorder();
        c.children(parent, removed);
        writer.delete(parent + "/1", -1);
        barrier(c, writer);
        assertEquals(List.of(parent), removed.fired);
        final Recorder leaf = new Recorder();
        c.children(parent + "/2", leaf);
        writer.delete(parent + "/2", -1);
        barrier(c, writer);
        assertEquals(List.of(parent + "/2"), leaf.fired, "deleting the watched node fires its child watch");
        final Recorder dataOnly = new Recorder();
        c.getData(parent, dataOnly);
        writer.create(parent + "/3", NONE, false);
        barrier(c, writer);
        assertEquals(List.of(), dataOnly.fired, "a child change does not fire a data watch");
    }

    @Test
    void oneCallbackWatchingDataAndChildrenFiresOnceWhenTheNodeGoes() {
        final ZkConnection c = withRoot();
        final ZkConnection writer = open();
        final String p = path("both");
        c.create(p, NONE, false);
        final Recorder w = new Recorder();
        c.getData(p, w);
        c.children(p, w);
        writer.delete(p, -1);
        barrier(c, writer);
        assertEquals(List.of(p), w.fired);
    }

    @Test
    void sessionListenerHearsTheExpiryBeforeTheNewSessionAndWatchesAreDropped() {
        final ZkConnection writer = withRoot();
        final Sessions sessions = new Sessions();
        final ZkConnection c = open(sessions);
        final long first = c.sessionId();
        await(() -> sessions.events.size() == 1, () -> "the first session announced: " + sessions.events);
        assertEquals(List.of("new " + Long.toHexString(first)), sessions.events);
        writer.create(path("w"), NONE, false);
        final Recorder lost = new Recorder();
        c.getData(path("w"), lost);
        expire(c);
        await(() -> sessions.events.size() == 3, () -> "expiry and new session: " + sessions.events);
        final long second = c.sessionId();
        assertNotEquals(first, second);
        assertEquals(List.of("new " + Long.toHexString(first), "expired " + Long.toHexString(first),
            "new " + Long.toHexString(second)), sessions.events);
        writer.setData(path("w"), NONE, -1);
        barrier(c, writer);
        assertEquals(List.of(), lost.fired, "the expired session's watch is gone");
    }
}
