package io.seglog.replication.wire;

import io.seglog.replication.transport.LiveBroker;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeCluster and DescribeConfigs as a Kafka broker answers them ({@code AuthHelper.computeDescribeClusterResponse},
 * {@code ConfigHelper.describeConfigs}), without an authorizer: the cluster from the metadata cache; a topic's
 * configuration from its overrides in ZooKeeper over the broker's defaults ({@link TopicConfigs}); the broker's own
 * configuration as far as Seglog knows it. Other resource types (broker loggers, groups, client metrics) answer
 * INVALID_REQUEST naming the type.
 *
 * <p>Thread-safe; topic configurations are read on the admin executor (ZooKeeper reads block).
 */
final class DescribeApis {
    /** DescribeCluster: every version (v1 adds the endpoint type, v2 fenced brokers, which Seglog never has). */
    static final short DESCRIBE_CLUSTER_MIN = 0;
    static final short DESCRIBE_CLUSTER_MAX = 2;
    /** DescribeConfigs: v1 (4.x's oldest) to v4. */
    static final short DESCRIBE_CONFIGS_MIN = 1;
    static final short DESCRIBE_CONFIGS_MAX = 4;
    /** Kafka's {@code EndpointType.BROKER}: the only endpoint a broker listener is. */
    private static final byte ENDPOINT_BROKER = 1;
    private static final byte ENDPOINT_CONTROLLER = 2;
    /** Kafka's {@code ConfigResource.Type} ids. */
    private static final byte RESOURCE_TOPIC = 2;
    private static final byte RESOURCE_BROKER = 4;
    private static final Map<Byte, String> RESOURCE_NAMES = Map.of((byte) 0, "UNKNOWN", RESOURCE_TOPIC, "TOPIC",
        RESOURCE_BROKER, "BROKER", (byte) 8, "BROKER_LOGGER", (byte) 16, "CLIENT_METRICS", (byte) 32, "GROUP");

    private final int brokerId;
    private final ClusterView cluster;
    private final AdminStore store;
    private final TopicConfigs configs;
    private final AdminApis.BrokerConfigView brokerConfig;
    private final Executor executor;

    DescribeApis(final int brokerId, final ClusterView cluster, final AdminStore store, final TopicConfigs configs,
                 final AdminApis.BrokerConfigView brokerConfig, final Executor executor) {
        this.brokerId = brokerId;
        this.cluster = cluster;
        this.store = store;
        this.configs = configs;
        this.brokerConfig = brokerConfig;
        this.executor = executor;
    }

    // -------------------------------------------------------------------------------------- DescribeCluster

    CompletionStage<ApiMessage> describeCluster(final KafkaRequest request) {
        final DescribeClusterRequestData req = (DescribeClusterRequestData) request.body();
        final DescribeClusterResponseData resp = new DescribeClusterResponseData();
        final byte type = req.endpointType();
        if (type != ENDPOINT_BROKER && type != ENDPOINT_CONTROLLER) {
            return CompletableFuture.completedFuture(resp.setErrorCode((request.version() == 0
                ? Errors.INVALID_REQUEST : Errors.UNSUPPORTED_ENDPOINT_TYPE).code())
                .setErrorMessage("Unsupported endpoint type " + type));
        }
        if (type != ENDPOINT_BROKER) {
            return CompletableFuture.completedFuture(resp.setErrorCode((request.version() == 0
                ? Errors.INVALID_REQUEST : Errors.MISMATCHED_ENDPOINT_TYPE).code())
                .setErrorMessage("The request was sent to an endpoint of type BROKER, but we wanted an endpoint of"
                    + " type CONTROLLER"));
        }
        final Map<Integer, LiveBroker> live = new TreeMap<>(cluster.liveBrokers());
        live.values().forEach(b -> resp.brokers().add(new DescribeClusterResponseData.DescribeClusterBroker()
            .setBrokerId(b.id()).setHost(b.host()).setPort(b.port()).setRack(b.rack().orElse(null))));
        final int controller = cluster.controllerId();
        resp.setClusterId(cluster.clusterId())
            .setControllerId(live.containsKey(controller) ? controller : -1) // Kafka: -1 for a node it cannot name
            .setEndpointType(request.version() >= 1 ? ENDPOINT_BROKER : 1);
        return CompletableFuture.completedFuture(resp);
    }

    // -------------------------------------------------------------------------------------- DescribeConfigs

    CompletionStage<ApiMessage> describeConfigs(final KafkaRequest request) {
        final DescribeConfigsRequestData req = (DescribeConfigsRequestData) request.body();
        return CompletableFuture.supplyAsync(() -> {
            final DescribeConfigsResponseData resp = new DescribeConfigsResponseData();
            for (final DescribeConfigsRequestData.DescribeConfigsResource r : req.resources()) {
                DescribeConfigsResponseData.DescribeConfigsResult result;
                try {
                    result = describe(r, req.includeSynonyms(), request.version());
                } catch (final AdminApis.TopicError e) {
                    result = new DescribeConfigsResponseData.DescribeConfigsResult().setErrorCode(e.error.code())
                        .setErrorMessage(e.getMessage());
                }
                resp.results().add(result.setResourceType(r.resourceType()).setResourceName(r.resourceName()));
            }
            return (ApiMessage) resp;
        }, executor);
    }

    private DescribeConfigsResponseData.DescribeConfigsResult describe(
        final DescribeConfigsRequestData.DescribeConfigsResource resource, final boolean synonyms, final short version) {
        final List<DescribeConfigsResponseData.DescribeConfigsResourceResult> entries = new ArrayList<>();
        final List<String> keys = resource.configurationKeys();
        if (resource.resourceType() == RESOURCE_TOPIC) {
            final String topic = resource.resourceName();
            try {
                TopicPartition.validateTopic(topic);
            } catch (final IllegalArgumentException e) {
                throw new AdminApis.TopicError(Errors.INVALID_TOPIC_EXCEPTION, "Topic name is invalid: "
                    + e.getMessage());
            }
            if (cluster.partitions().keySet().stream().noneMatch(tp -> tp.topic().equals(topic))) {
                return new DescribeConfigsResponseData.DescribeConfigsResult()
                    .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            }
            for (final TopicConfigs.Entry e : configs.describe(store.topicConfig(topic), synonyms)) {
                if (keys != null && !keys.isEmpty() && !keys.contains(e.name())) {
                    continue;
                }
                final DescribeConfigsResponseData.DescribeConfigsResourceResult entry =
                    new DescribeConfigsResponseData.DescribeConfigsResourceResult().setName(e.name())
                        .setValue(e.value()).setReadOnly(false).setIsSensitive(false).setConfigSource(e.source());
                e.synonyms().forEach(s -> entry.synonyms().add(new DescribeConfigsResponseData.DescribeConfigsSynonym()
                    .setName(s.name()).setValue(s.value()).setSource(s.source())));
                if (version >= 3) {
                    entry.setConfigType(e.type()).setDocumentation(null);
                }
                entries.add(entry);
            }
        } else if (resource.resourceType() == RESOURCE_BROKER) {
            final String name = resource.resourceName();
            if (name != null && !name.isEmpty()) {
                final int id;
                try {
                    id = Integer.parseInt(name);
                } catch (final NumberFormatException e) {
                    throw new AdminApis.TopicError(Errors.INVALID_REQUEST, "Broker id must be an integer, but it is: "
                        + name);
                }
                if (id != brokerId) {
                    throw new AdminApis.TopicError(Errors.INVALID_REQUEST, "Unexpected broker id, expected "
                        + brokerId + " or empty string, but received " + name);
                }
                brokerConfig.values().forEach((key, value) -> {
                    if (keys != null && !keys.isEmpty() && !keys.contains(key)) {
                        return;
                    }
                    final byte source = brokerConfig.explicit().contains(key) ? TopicConfigs.SOURCE_STATIC_BROKER
                        : TopicConfigs.SOURCE_DEFAULT;
                    final DescribeConfigsResponseData.DescribeConfigsResourceResult entry =
                        new DescribeConfigsResponseData.DescribeConfigsResourceResult().setName(key).setValue(value)
                            .setReadOnly(true).setIsSensitive(false).setConfigSource(source);
                    if (synonyms) {
                        entry.synonyms().add(new DescribeConfigsResponseData.DescribeConfigsSynonym().setName(key)
                            .setValue(value).setSource(source));
                    }
                    entries.add(entry);
                });
            } // the empty name is the cluster-wide dynamic default: Seglog has none
        } else {
            throw new AdminApis.TopicError(Errors.INVALID_REQUEST, "Unsupported resource type: "
                + RESOURCE_NAMES.getOrDefault(resource.resourceType(), String.valueOf(resource.resourceType())));
        }
        return new DescribeConfigsResponseData.DescribeConfigsResult().setErrorCode(Errors.NONE.code())
            .setConfigs(entries);
    }
}
