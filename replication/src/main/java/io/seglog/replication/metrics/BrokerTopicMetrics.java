package io.seglog.replication.metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kafka's {@code kafka.server:type=BrokerTopicMetrics} meters, for all topics and per topic ({@code topic=...}):
 * {@code MessagesInPerSec}, {@code BytesInPerSec}, {@code BytesOutPerSec}, {@code TotalProduceRequestsPerSec},
 * {@code TotalFetchRequestsPerSec} and {@code FailedProduceRequestsPerSec}. A topic's meters are made at its first
 * use; after that a mark is a map lookup and {@link Meter#mark}.
 */
public final class BrokerTopicMetrics {
    /** Metrics that count nothing. */
    public static final BrokerTopicMetrics NONE = new BrokerTopicMetrics(null);

    private static final String DOMAIN = "kafka.server";
    private static final String TYPE = "BrokerTopicMetrics";

    private final KafkaMetrics metrics;
    private final Meters all;
    private final Map<String, Meters> byTopic = new ConcurrentHashMap<>();

    /** One topic's meters (or the all-topics ones). */
    private record Meters(Meter messagesIn, Meter bytesIn, Meter bytesOut, Meter produceRequests,
                          Meter fetchRequests, Meter failedProduceRequests) {
    }

    /**
     * Meters in this registry.
     *
     * @param metrics the registry, or null for none
     */
    public BrokerTopicMetrics(final KafkaMetrics metrics) {
        this.metrics = metrics;
        this.all = metrics == null ? null : meters();
    }

    private Meters meters(final String... topic) {
        return new Meters(meter("MessagesInPerSec", "messages", topic), meter("BytesInPerSec", "bytes", topic),
            meter("BytesOutPerSec", "bytes", topic), meter("TotalProduceRequestsPerSec", "requests", topic),
            meter("TotalFetchRequestsPerSec", "requests", topic),
            meter("FailedProduceRequestsPerSec", "requests", topic));
    }

    private Meter meter(final String name, final String eventType, final String... topic) {
        return metrics.meter(topic.length == 0 ? MetricName.of(DOMAIN, TYPE, name)
            : MetricName.of(DOMAIN, TYPE, name, "topic", topic[0]), eventType);
    }

    private Meters topic(final String topic) {
        final Meters m = byTopic.get(topic);
        return m != null ? m : byTopic.computeIfAbsent(topic, t -> meters(t));
    }

    /**
     * A partition's produce request was appended.
     *
     * @param topic    the topic
     * @param bytes    the bytes appended
     * @param messages the records appended
     */
    public void appended(final String topic, final long bytes, final long messages) {
        if (metrics == null) {
            return;
        }
        final Meters t = topic(topic);
        t.produceRequests().mark();
        all.produceRequests().mark();
        t.bytesIn().mark(bytes);
        all.bytesIn().mark(bytes);
        t.messagesIn().mark(messages);
        all.messagesIn().mark(messages);
    }

    /**
     * A partition's produce request failed.
     *
     * @param topic the topic
     */
    public void produceFailed(final String topic) {
        if (metrics == null) {
            return;
        }
        final Meters t = topic(topic);
        t.produceRequests().mark();
        all.produceRequests().mark();
        t.failedProduceRequests().mark();
        all.failedProduceRequests().mark();
    }

    /**
     * A consumer's fetch of a partition was answered (followers' fetches are replication, not counted here).
     *
     * @param topic the topic
     * @param bytes the bytes of records sent
     */
    public void fetched(final String topic, final long bytes) {
        if (metrics == null) {
            return;
        }
        final Meters t = topic(topic);
        t.fetchRequests().mark();
        all.fetchRequests().mark();
        t.bytesOut().mark(bytes);
        all.bytesOut().mark(bytes);
    }
}
