package io.seglog.replication.wire;

import io.seglog.storage.LogConfig;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's AlterConfigs (API 33, v0-2) and IncrementalAlterConfigs (API 44, v0-1) for TOPIC resources, as Kafka's
 * ZooKeeper-mode {@code ZkAdminManager} serves them: the topic's new overrides are checked by the rules of
 * CreateTopics ({@link TopicConfigs#validate}) and, unless only validated, written to {@code /config/topics/<topic>}
 * with a {@code /config/changes} notification ({@link AdminStore#changeTopicConfig}), from which every broker
 * reconfigures its logs of the topic. AlterConfigs replaces the whole set of overrides; IncrementalAlterConfigs
 * applies SET, DELETE, APPEND and SUBTRACT (the last two to list configs only, {@code cleanup.policy}) to the
 * current overrides. Other resource types (dynamic broker configs, loggers) are refused with INVALID_REQUEST: Seglog
 * has no dynamic broker configuration. ZooKeeper work runs on the admin thread.
 *
 * <p>Thread-safe (stateless apart from its collaborators).
 */
final class AlterConfigsApis {
    /** The versions served. */
    static final short ALTER_CONFIGS_MIN = 0;
    static final short ALTER_CONFIGS_MAX = 2;
    static final short INCREMENTAL_ALTER_CONFIGS_MIN = 0;
    static final short INCREMENTAL_ALTER_CONFIGS_MAX = 1;
    /** Kafka's {@code ConfigResource.Type.TOPIC}. */
    private static final byte RESOURCE_TOPIC = 2;
    /** Kafka's {@code AlterConfigOp.OpType} ids. */
    private static final byte OP_SET = 0;
    private static final byte OP_DELETE = 1;
    private static final byte OP_APPEND = 2;
    private static final byte OP_SUBTRACT = 3;
    /** The topic configs of Kafka's LIST type that Seglog has. */
    private static final Set<String> LIST_CONFIGS = Set.of(LogConfig.CLEANUP_POLICY_CONFIG);
    private static final Logger LOG = LoggerFactory.getLogger(AlterConfigsApis.class);

    private final AdminStore store;
    private final TopicConfigs configs;
    private final LogConfig defaults;
    private final ScheduledExecutorService executor;

    AlterConfigsApis(final AdminStore store, final TopicConfigs configs, final LogConfig defaults,
                     final ScheduledExecutorService executor) {
        this.store = store;
        this.configs = configs;
        this.defaults = defaults;
        this.executor = executor;
    }

    CompletionStage<ApiMessage> alterConfigs(final KafkaRequest request) {
        final AlterConfigsRequestData req = (AlterConfigsRequestData) request.body();
        return CompletableFuture.supplyAsync(() -> {
            final AlterConfigsResponseData resp = new AlterConfigsResponseData();
            for (final AlterConfigsRequestData.AlterConfigsResource r : req.resources()) {
                final AlterConfigsResponseData.AlterConfigsResourceResponse result =
                    new AlterConfigsResponseData.AlterConfigsResourceResponse().setResourceType(r.resourceType())
                        .setResourceName(r.resourceName());
                try {
                    final String topic = topicOf(r.resourceType(), r.resourceName(), "AlterConfigs");
                    final Map<String, String> overrides = new LinkedHashMap<>();
                    for (final AlterConfigsRequestData.AlterableConfig c : r.configs()) {
                        if (c.value() == null) {
                            throw new AdminApis.TopicError(Errors.INVALID_REQUEST,
                                "Null value not supported for topic config " + c.name());
                        }
                        overrides.put(c.name(), c.value());
                    }
                    change(topic, overrides, req.validateOnly());
                    result.setErrorCode(Errors.NONE.code()).setErrorMessage(null);
                } catch (final AdminApis.TopicError e) {
                    result.setErrorCode(e.error.code()).setErrorMessage(e.getMessage());
                } catch (final RuntimeException e) {
                    LOG.error("AlterConfigs of {} failed", r.resourceName(), e);
                    result.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code()).setErrorMessage(e.toString());
                }
                resp.responses().add(result);
            }
            return (ApiMessage) resp;
        }, executor);
    }

    CompletionStage<ApiMessage> incrementalAlterConfigs(final KafkaRequest request) {
        final IncrementalAlterConfigsRequestData req = (IncrementalAlterConfigsRequestData) request.body();
        return CompletableFuture.supplyAsync(() -> {
            final IncrementalAlterConfigsResponseData resp = new IncrementalAlterConfigsResponseData();
            for (final IncrementalAlterConfigsRequestData.AlterConfigsResource r : req.resources()) {
                final IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse result =
                    new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                        .setResourceType(r.resourceType()).setResourceName(r.resourceName());
                try {
                    final String topic = topicOf(r.resourceType(), r.resourceName(), "IncrementalAlterConfigs");
                    change(topic, applyOps(topic, r.configs()), req.validateOnly());
                    result.setErrorCode(Errors.NONE.code()).setErrorMessage(null);
                } catch (final AdminApis.TopicError e) {
                    result.setErrorCode(e.error.code()).setErrorMessage(e.getMessage());
                } catch (final RuntimeException e) {
                    LOG.error("IncrementalAlterConfigs of {} failed", r.resourceName(), e);
                    result.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code()).setErrorMessage(e.toString());
                }
                resp.responses().add(result);
            }
            return (ApiMessage) resp;
        }, executor);
    }

    /** The topic a resource names, or the error Kafka answers for it. */
    private String topicOf(final byte type, final String name, final String api) {
        if (type != RESOURCE_TOPIC) {
            throw new AdminApis.TopicError(Errors.INVALID_REQUEST, api + " is only supported for topics by Seglog"
                + " (no dynamic broker configuration), but resource type is " + type);
        }
        try {
            TopicPartition.validateTopic(name);
        } catch (final IllegalArgumentException e) {
            throw new AdminApis.TopicError(Errors.INVALID_TOPIC_EXCEPTION, "Topic name is invalid: " + e.getMessage());
        }
        if (store.topic(name).isEmpty()) {
            throw new AdminApis.TopicError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic " + name + " does not exist.");
        }
        return name;
    }

    /** Kafka's {@code ConfigAdminManager.prepareIncrementalConfigs} over the topic's current overrides. */
    private Map<String, String> applyOps(final String topic,
                                         final IncrementalAlterConfigsRequestData.AlterableConfigCollection ops) {
        final Set<String> seen = new HashSet<>();
        for (final IncrementalAlterConfigsRequestData.AlterableConfig op : ops) {
            if (!seen.add(op.name())) {
                throw new AdminApis.TopicError(Errors.INVALID_REQUEST, "Error due to duplicate config keys");
            }
        }
        final Map<String, String> overrides = new LinkedHashMap<>(store.topicConfig(topic));
        for (final IncrementalAlterConfigsRequestData.AlterableConfig op : ops) {
            final String name = op.name();
            switch (op.configOperation()) {
                case OP_SET -> {
                    if (op.value() == null) {
                        throw new AdminApis.TopicError(Errors.INVALID_REQUEST,
                            "Null value not supported for topic config " + name);
                    }
                    overrides.put(name, op.value());
                }
                case OP_DELETE -> overrides.remove(name);
                case OP_APPEND, OP_SUBTRACT -> {
                    if (!LIST_CONFIGS.contains(name)) {
                        throw new AdminApis.TopicError(Errors.INVALID_CONFIG, "Config value "
                            + (op.configOperation() == OP_APPEND ? "append" : "subtract")
                            + " is not allowed for config key: " + name);
                    }
                    final String current = overrides.getOrDefault(name, defaults.toProperties().get(name));
                    final List<String> values = new ArrayList<>(split(current));
                    for (final String v : split(op.value())) {
                        if (op.configOperation() == OP_APPEND) {
                            if (!values.contains(v)) {
                                values.add(v);
                            }
                        } else {
                            values.remove(v);
                        }
                    }
                    overrides.put(name, String.join(",", values));
                }
                default -> throw new AdminApis.TopicError(Errors.INVALID_REQUEST,
                    "Unknown config operation " + op.configOperation() + " for config " + name);
            }
        }
        return overrides;
    }

    private static List<String> split(final String list) {
        if (list == null || list.isBlank()) {
            return List.of();
        }
        return Arrays.stream(list.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    /** Checks the topic's new overrides as CreateTopics does and writes them unless only validated. */
    private void change(final String topic, final Map<String, String> overrides, final boolean validateOnly) {
        final String error = configs.validate(overrides);
        if (error != null) {
            throw new AdminApis.TopicError(Errors.INVALID_CONFIG, error);
        }
        if (!validateOnly) {
            store.changeTopicConfig(topic, overrides);
            LOG.info("configuration of topic {} changed: {}", topic, overrides);
        }
    }
}
