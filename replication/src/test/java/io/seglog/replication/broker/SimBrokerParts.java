package io.seglog.replication.broker;

import io.seglog.replication.replica.IsrWriter;
import io.seglog.replication.zk.KafkaZkStore;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The broker package's parts that the cluster simulation assembles as {@link SeglogBroker} does, opened to it from the
 * same package (they are package-private in the main code).
 */
public final class SimBrokerParts {
    private SimBrokerParts() {
    }

    /**
     * The broker's ISR writer, writing on the simulation's executor instead of a thread of its own.
     *
     * @param store    the broker's current store
     * @param executor runs each write as an event
     * @return the writer
     */
    public static IsrWriter zkIsrWriter(final Supplier<KafkaZkStore> store, final Executor executor) {
        return new ZkIsrWriter(store, executor);
    }

    /**
     * The broker's producer-id manager (InitProducerId's ids, reserved in blocks in ZooKeeper), reserving on the
     * simulation's executor instead of a thread of its own.
     *
     * @param brokerId the broker
     * @param store    the broker's current store
     * @param clockMs  the simulated clock
     * @param executor runs each reservation as an event
     * @return the manager; {@link AutoCloseable#close()} stops it (a crash)
     */
    public static ProducerIds producerIds(final int brokerId, final Supplier<KafkaZkStore> store,
                                          final java.util.function.LongSupplier clockMs, final Executor executor) {
        final ZkProducerIdManager manager = new ZkProducerIdManager(brokerId, store, clockMs, new OnExecutor(executor));
        return new ProducerIds() {
            @Override
            public long nextProducerId() {
                return manager.nextProducerId();
            }

            @Override
            public void close() {
                manager.close();
            }
        };
    }

    /** A producer-id source that can be stopped. */
    public interface ProducerIds extends io.seglog.replication.wire.ProducerIdSource, AutoCloseable {
        @Override
        void close();
    }

    /** An executor service over a plain executor: nothing runs after a shutdown (a crashed process). */
    private static final class OnExecutor extends java.util.concurrent.AbstractExecutorService {
        private final Executor executor;
        private boolean shutdown;

        OnExecutor(final Executor executor) {
            this.executor = executor;
        }

        @Override
        public void execute(final Runnable task) {
            if (shutdown) {
                throw new java.util.concurrent.RejectedExecutionException("stopped");
            }
            executor.execute(() -> {
                if (!shutdown) {
                    task.run();
                }
            });
        }

        @Override
        public void shutdown() {
            shutdown = true;
        }

        @Override
        public java.util.List<Runnable> shutdownNow() {
            shutdown = true;
            return java.util.List.of();
        }

        @Override
        public boolean isShutdown() {
            return shutdown;
        }

        @Override
        public boolean isTerminated() {
            return shutdown;
        }

        @Override
        public boolean awaitTermination(final long timeout, final java.util.concurrent.TimeUnit unit) {
            return shutdown;
        }
    }
}
