package io.seglog.replication.wire;

/**
 * Where a broker's InitProducerId answers take new producer ids from. Implementations must be thread-safe and must not
 * block: they are called on the connections' event loops, so ids are reserved ahead (in blocks, on another thread).
 */
@FunctionalInterface
public interface ProducerIdSource {
    /** What {@link #nextProducerId()} returns while no id is at hand (the next block is being reserved). */
    long NONE_AVAILABLE = -1;

    /**
     * Takes a producer id no broker of the cluster has handed out or will hand out.
     *
     * @return the id (zero or more), or {@link #NONE_AVAILABLE} when none is at hand now (the client is told to retry)
     */
    long nextProducerId();
}
