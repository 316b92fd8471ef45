package io.seglog.replication.zk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.zookeeper.server.NIOServerCnxnFactory;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;

/**
 * A standalone ZooKeeper server inside this JVM, on a loopback ephemeral port, built from ZooKeeper's own server
 * classes ({@link ZooKeeperServer} behind an {@link NIOServerCnxnFactory}). It is what the demo starts when it is
 * given no connection string; production brokers connect to a real ensemble instead. It needs ZooKeeper's server
 * classes ({@code org.apache.zookeeper:zookeeper}) and, at run time, {@code io.dropwizard.metrics:metrics-core} and
 * {@code org.xerial.snappy:snappy-java}, all of which this module passes on to its dependents.
 *
 * <p>Its snapshot and transaction log live in the given data directory (kept on close, so a restart on the same
 * directory finds the same znodes). {@link #close()} stops the listener, its selector and worker threads, the
 * request pipeline and the session tracker, then closes the transaction log.
 *
 * <p>Thread-safe. Threads: ZooKeeper's server threads (acceptor, selectors, workers, connection expirer, request
 * processors, session tracker), all ended by {@link #close()}.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    /**
     * Server tick. Sessions may last from 2 to 20 ticks (ZooKeeper's bounds), so 500 ms allows sessions of
     * 1 to 10 s; a short tick also bounds how long the session tracker's thread sleeps before it sees a shutdown.
     */
    public static final int TICK_MS = 500;
    /** Connections allowed from one address: every in-process broker connects from loopback. */
    private static final int MAX_CLIENT_CONNECTIONS = 60;

    private final Path dataDir;
    private final FileTxnSnapLog txnLog;
    private final ZooKeeperServer server;
    private final ServerCnxnFactory factory;
    private boolean closed;

    private EmbeddedZooKeeper(final Path dataDir, final FileTxnSnapLog txnLog, final ZooKeeperServer server,
                              final ServerCnxnFactory factory) {
        this.dataDir = dataDir;
        this.txnLog = txnLog;
        this.server = server;
        this.factory = factory;
    }

    /**
     * Starts a server on {@code 127.0.0.1} (the loopback address) and a free port.
     *
     * @param dataDir where the snapshot and transaction log go; created if missing
     * @return the running server, owned (and closed) by the caller
     * @throws UncheckedIOException naming the directory when it cannot be created or the server cannot bind
     * @throws IllegalStateException if interrupted while the server starts, or when ZooKeeper's server finds a
     *     class missing (it needs {@code io.dropwizard.metrics:metrics-core} and
     *     {@code org.xerial.snappy:snappy-java} at run time; this module depends on both at run time, so a project
     *     that depends on it gets them; one that excludes them cannot start this server)
     */
    public static EmbeddedZooKeeper start(final Path dataDir) {
        return start(dataDir, 0);
    }

    /**
     * Starts a server on {@code 127.0.0.1} and the given port (for a local cluster whose brokers run in other
     * processes and need to know where to connect).
     *
     * @param dataDir where the snapshot and transaction log go; created if missing
     * @param port    the port, 0 for a free one
     * @return the running server, owned (and closed) by the caller
     * @throws UncheckedIOException naming the directory when it cannot be created or the server cannot bind
     * @throws IllegalStateException as {@link #start(Path)}
     */
    public static EmbeddedZooKeeper start(final Path dataDir, final int port) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port=" + port + " must be in [0, 65535]");
        }
        FileTxnSnapLog txnLog = null;
        ServerCnxnFactory factory = null;
        ZooKeeperServer server = null;
        try {
            Files.createDirectories(dataDir);
            txnLog = new FileTxnSnapLog(dataDir.toFile(), dataDir.toFile());
            server = new ZooKeeperServer(txnLog, TICK_MS, "");
            factory = new NIOServerCnxnFactory();
            factory.configure(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), MAX_CLIENT_CONNECTIONS);
            factory.startup(server);
            return new EmbeddedZooKeeper(dataDir, txnLog, server, factory);
        } catch (final IOException e) {
            final UncheckedIOException failure = new UncheckedIOException(
                "cannot start an embedded ZooKeeper with dataDir=" + dataDir + ": " + e.getMessage(), e);
            stopQuietly(factory, server, txnLog, failure);
            throw failure;
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            final IllegalStateException failure = new IllegalStateException(
                "interrupted while starting an embedded ZooKeeper with dataDir=" + dataDir, e);
            stopQuietly(factory, server, txnLog, failure);
            throw failure;
        } catch (final NoClassDefFoundError e) {
            final IllegalStateException failure = new IllegalStateException("cannot start an embedded ZooKeeper: class "
                + e.getMessage() + " is missing; the server needs io.dropwizard.metrics:metrics-core and "
                + "org.xerial.snappy:snappy-java on the class path",
                e);
            stopQuietly(factory, server, txnLog, failure);
            throw failure;
        } catch (final RuntimeException | Error e) {
            stopQuietly(factory, server, txnLog, e);
            throw e;
        }
    }

    private static void stopQuietly(final ServerCnxnFactory factory, final ZooKeeperServer server,
                                    final FileTxnSnapLog txnLog, final Throwable failure) {
        try {
            if (factory != null) {
                factory.shutdown();
            }
            if (server != null) {
                server.shutdown(true);
            }
        } catch (final RuntimeException | Error e) {
            failure.addSuppressed(e);
        }
        try {
            if (txnLog != null) {
                txnLog.close();
            }
        } catch (final IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * The port the server listens on.
     *
     * @return the bound port
     */
    public int port() {
        return factory.getLocalPort();
    }

    /**
     * The connection string for clients, without a chroot.
     *
     * @return {@code 127.0.0.1:<port>}
     */
    public String connectString() {
        return InetAddress.getLoopbackAddress().getHostAddress() + ":" + port();
    }

    /**
     * The directory holding the snapshot and transaction log.
     *
     * @return the data directory
     */
    public Path dataDir() {
        return dataDir;
    }

    /**
     * Stops the server: closes the listener and every client connection (their sessions' ephemerals stay until
     * the sessions expire on a later start, as on a real server), waits for the selector and worker threads,
     * shuts the request pipeline and session tracker down, then closes the transaction log. Idempotent.
     *
     * @throws UncheckedIOException if the transaction log cannot be closed (after everything else was stopped)
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        try {
            // Stops the network side and joins its threads, then shuts the server down keeping its database.
            factory.shutdown();
        } catch (final RuntimeException e) {
            failure = e;
        }
        try {
            // The database is not reused in this JVM: release it fully (a no-op shutdown when already stopped).
            server.shutdown(true);
        } catch (final RuntimeException e) {
            failure = add(failure, e);
        }
        try {
            txnLog.close();
        } catch (final IOException e) {
            failure = add(failure, new UncheckedIOException("cannot close the ZooKeeper transaction log in "
                + dataDir + ": " + e.getMessage(), e));
        } catch (final RuntimeException e) {
            failure = add(failure, e);
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static RuntimeException add(final RuntimeException first, final RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    @Override
    public String toString() {
        return "EmbeddedZooKeeper{" + (closed ? "closed" : connectString()) + ", dataDir=" + dataDir + "}";
    }
}
