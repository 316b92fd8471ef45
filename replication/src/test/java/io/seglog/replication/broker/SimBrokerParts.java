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
}
