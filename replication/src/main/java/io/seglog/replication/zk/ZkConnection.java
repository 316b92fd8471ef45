package io.seglog.replication.zk;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One ZooKeeper session as the replication layer uses it: the calls {@link KafkaZkStore}, {@link AdminZkStore} and
 * the controller make, and nothing of Curator or ZooKeeper in their signatures. {@link ZkClient} is the production
 * implementation; a deterministic simulation supplies an in-memory one (its futures are complete when a call
 * returns, and its watch and session callbacks are events on the simulation's scheduler).
 *
 * <p>What callers rely on, and every implementation provides:
 * <ul>
 *   <li>the data version of a znode is the compare-and-set token of {@code setData}, {@code delete} and
 *       {@link ZkOp.Check} ({@code -1} = any);</li>
 *   <li>{@link ZkStat#czxid()} comes from one counter that grows with every write of the ensemble (a broker's
 *       registration czxid is its broker epoch);</li>
 *   <li>an ephemeral znode belongs to the session that created it and goes when that session expires or closes,
 *       not when a connection drops;</li>
 *   <li>a {@link #multi multi} is all or nothing, and its failure names the first failing operation's error and path;</li>
 *   <li>a watch fires at most once per (path, callback), and every watch of a session is gone when it expires;</li>
 *   <li>{@link ZkError#CONNECTION_LOSS} and {@link ZkError#TIMEOUT} leave a write's outcome unknown: it may have
 *       been applied.</li>
 * </ul>
 *
 * <p>Implementations are thread-safe. Callbacks ({@link ZkWatch}, {@link ZkSessionListener}) never run inside the
 * call that armed them.
 */
public interface ZkConnection extends AutoCloseable {
    /**
     * The id of the current session, 0 before the first one is established.
     *
     * @return the session id
     */
    long sessionId();

    /**
     * The deadline of each call.
     *
     * @return milliseconds
     */
    long requestTimeoutMs();

    /**
     * Creates each persistent path (and its parents) if it does not exist.
     *
     * @param paths absolute paths (without chroot)
     * @throws ZkException when a path cannot be created
     */
    void ensurePersistentPaths(List<String> paths);

    /**
     * Reads a znode's data and stat, optionally leaving a watch.
     *
     * @param path  the path
     * @param watch called once when the znode changes or is deleted; null for none. When the znode does not
     *              exist, an exists-watch is set instead so that its creation is seen.
     * @return the node, or empty when it does not exist
     * @throws ZkException on failure or timeout
     */
    Optional<ZkNode> getData(String path, ZkWatch watch);

    /**
     * Reads a znode without waiting: many such reads can be in flight at once. Unlike {@link #getData}, a watch is
     * left only when the znode exists.
     *
     * @param path  the path
     * @param watch a data watch, or null
     * @return a future of the node (empty when it does not exist); fails with {@link ZkException}
     */
    CompletableFuture<Optional<ZkNode>> getDataAsync(String path, ZkWatch watch);

    /**
     * Reads a znode's stat, optionally leaving an exists-watch (fires on create, change and delete).
     *
     * @param path  the path
     * @param watch the watch, or null
     * @return the stat, or empty when the znode does not exist
     * @throws ZkException on failure or timeout
     */
    Optional<ZkStat> exists(String path, ZkWatch watch);

    /**
     * Lists a znode's children, optionally leaving a child watch (fires when a child is added or removed, or the
     * znode is deleted).
     *
     * @param path  the path
     * @param watch the watch, or null; not left when the znode does not exist
     * @return the children's names (unordered), or empty when the znode does not exist
     * @throws ZkException on failure or timeout
     */
    Optional<List<String>> children(String path, ZkWatch watch);

    /**
     * Creates a znode.
     *
     * @param path      the path; its parent must exist
     * @param data      the data
     * @param ephemeral whether it lives only as long as this session
     * @throws ZkException {@link ZkError#NODE_EXISTS} when it exists, {@link ZkError#NO_NODE} when its parent does
     *                     not, or another failure
     */
    default void create(final String path, final byte[] data, final boolean ephemeral) {
        multi(List.of(new ZkOp.Create(path, data, ephemeral)));
    }

    /**
     * Sets a znode's data at an expected version.
     *
     * @param path    the path
     * @param data    the data
     * @param version the expected version, -1 for any
     * @return the new stat
     * @throws ZkException {@link ZkError#BAD_VERSION}, {@link ZkError#NO_NODE} or another failure
     */
    default ZkStat setData(final String path, final byte[] data, final int version) {
        return multi(List.of(new ZkOp.SetData(path, data, version))).get(0);
    }

    /**
     * Deletes a znode at an expected version.
     *
     * @param path    the path
     * @param version the expected version, -1 for any
     * @throws ZkException {@link ZkError#NO_NODE}, {@link ZkError#BAD_VERSION}, {@link ZkError#NOT_EMPTY} or
     *                     another failure
     */
    default void delete(final String path, final int version) {
        multi(List.of(new ZkOp.Delete(path, version)));
    }

    /**
     * Runs operations atomically and waits. Internal to the ZooKeeper layer: outside
     * {@code io.seglog.replication.zk} the main code writes through {@link KafkaZkStore} (an architecture rule keeps
     * {@link ZkOp} inside the package).
     *
     * @param ops the operations
     * @return one stat per operation (null for creates, deletes and checks)
     * @throws ZkException carrying the error and path of the first operation that failed
     */
    List<ZkStat> multi(List<ZkOp> ops);

    /**
     * Runs operations atomically without waiting. Internal to the ZooKeeper layer, as {@link #multi}.
     *
     * @param ops the operations
     * @return a future of one stat per operation; fails with {@link ZkException} naming the failed operation
     */
    CompletableFuture<List<ZkStat>> multiAsync(List<ZkOp> ops);

    /**
     * Closes the session (its ephemerals go at once); no callback runs afterwards. Idempotent.
     */
    @Override
    void close();
}
