package io.seglog.replication.broker;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/** The broker's threads: named daemon threads from the embedder's factory, and their shutdown at close. */
final class BrokerThreads {
    private BrokerThreads() {
    }

    /** Threads of {@code factory}, named {@code name}, daemon (a broker's threads never keep a JVM alive). */
    static ThreadFactory named(final ThreadFactory factory, final String name) {
        return r -> {
            final Thread t = factory.newThread(r);
            t.setName(name);
            t.setDaemon(true);
            return t;
        };
    }

    /** Closes an executor: its queued work runs for up to 10 s, then it is interrupted; null closes nothing. */
    static AutoCloseable shutdown(final ExecutorService executor) {
        return executor == null ? null : () -> {
            executor.shutdown();
            if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        };
    }
}
