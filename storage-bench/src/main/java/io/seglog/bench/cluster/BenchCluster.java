package io.seglog.bench.cluster;

/**
 * A three-broker cluster that kafka-clients can produce to and consume from over loopback: the seam that lets
 * {@link VersusKafkaBench} drive Seglog and Kafka with the same workload.
 *
 * <p>Not thread-safe: one benchmark thread creates topics and closes the cluster.
 */
interface BenchCluster extends AutoCloseable {
    /** @return the system's name as the results print it ({@code Seglog} or {@code Kafka}) */
    String system();

    /** @return {@code host:port,...} of every broker */
    String bootstrap();

    /**
     * Creates a one-partition topic led by broker 1, replicated to brokers 1, 2 and 3 when
     * {@code replicationFactor} is 3, and returns once its leader has a full ISR.
     *
     * @param topic             the name
     * @param replicationFactor 1 or 3
     * @throws Exception when the topic is not led with a full ISR within a minute
     */
    void createTopic(String topic, int replicationFactor) throws Exception;

    /** Stops every broker (and the coordination service), keeping the first failure. */
    @Override
    void close();
}
