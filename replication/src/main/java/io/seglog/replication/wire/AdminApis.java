package io.seglog.replication.wire;

import io.seglog.replication.controller.TopicExistsException;
import io.seglog.replication.controller.UnknownTopicException;
import io.seglog.replication.election.ReplicaAssignment;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.storage.LogConfig;
import io.seglog.storage.TopicPartition;
import io.seglog.storage.config.ConfigDef;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's topic administration APIs as a ZooKeeper-mode Kafka broker serves them ({@code ZkAdminManager}): CreateTopics,
 * DeleteTopics and CreatePartitions are validated here, with Kafka's error codes and messages, and written to
 * ZooKeeper through an {@link AdminStore} by the broker that received them; the controller, watching those znodes,
 * does the rest. The answer waits, as Kafka's {@code DelayedCreatePartitions}/{@code DelayedDeleteTopics} do, until
 * this broker's metadata cache shows the partitions led (or the topic gone), or the request's timeout passes
 * (REQUEST_TIMED_OUT). DescribeCluster and DescribeConfigs are in {@link DescribeApis}.
 *
 * <p>Threads: handlers run on a connection's event loop and only hand work to the admin executor (ZooKeeper reads and
 * writes block); waits re-read the metadata cache every {@value #POLL_MS} ms on that executor. Thread-safe.
 */
public final class AdminApis {
    /** CreateTopics: v2 (4.x's oldest) to v7 (topic ids in the answer). */
    static final short CREATE_TOPICS_MIN = 2;
    static final short CREATE_TOPICS_MAX = 7;
    /** DeleteTopics: v1 (4.x's oldest) to v6 (topics by id). */
    static final short DELETE_TOPICS_MIN = 1;
    static final short DELETE_TOPICS_MAX = 6;
    /** CreatePartitions: every version. */
    static final short CREATE_PARTITIONS_MIN = 0;
    static final short CREATE_PARTITIONS_MAX = 3;
    /**
     * How often a waiting request re-reads the metadata cache: short against the seconds a client's timeout allows,
     * long against the microseconds a read of the cache costs.
     */
    static final long POLL_MS = 20;
    private static final Logger LOG = LoggerFactory.getLogger(AdminApis.class);

    private final ClusterView cluster;
    private final AdminStore store;
    private final int numPartitions;
    private final int replicationFactor;
    private final TopicConfigs configs;
    private final ScheduledExecutorService executor;
    private final LongSupplier clockMs;
    /** Draws the start broker of automatic assignments, as Kafka does; used on the (single) admin thread only. */
    private final SplittableRandom random;
    private final DescribeApis describe;
    private final AlterConfigsApis alter;

    /**
     * The admin APIs of one broker.
     *
     * @param brokerId          the broker
     * @param cluster           the cluster as its metadata cache knows it
     * @param store             topic administration in ZooKeeper
     * @param numPartitions     {@code num.partitions}, for a CreateTopics that gives no count
     * @param replicationFactor {@code default.replication.factor}, likewise
     * @param topicDefaults     the broker's topic defaults
     * @param brokerTable       the broker's configuration table (DescribeConfigs of a broker)
     * @param brokerConfig      the broker's configuration as DescribeConfigs shows it
     * @param executor          runs ZooKeeper work and waits (one thread)
     * @param clockMs           a monotonic clock
     * @param random            draws the start broker of automatic assignments (seeded in a simulation)
     */
    public AdminApis(final int brokerId, final ClusterView cluster, final AdminStore store, final int numPartitions,
                     final int replicationFactor, final LogConfig topicDefaults, final ConfigDef brokerTable,
                     final BrokerConfigView brokerConfig, final ScheduledExecutorService executor,
                     final LongSupplier clockMs, final SplittableRandom random) {
        this.random = random;
        this.cluster = cluster;
        this.store = store;
        this.configs = new TopicConfigs(topicDefaults, brokerTable);
        this.numPartitions = numPartitions;
        this.replicationFactor = replicationFactor;
        this.executor = executor;
        this.clockMs = clockMs;
        this.describe = new DescribeApis(brokerId, cluster, store, configs, brokerConfig, executor);
        this.alter = new AlterConfigsApis(store, configs, topicDefaults, executor);
    }

    /**
     * The broker's own configuration as DescribeConfigs shows it.
     *
     * @param values   Kafka's broker config names to their effective values
     * @param explicit the names the broker's configuration sets (STATIC_BROKER_CONFIG; the others are defaults)
     */
    public record BrokerConfigView(Map<String, String> values, Set<String> explicit) {
        /**
         * Copies.
         *
         * @param values   name to value
         * @param explicit the names set explicitly
         */
        public BrokerConfigView {
            values = java.util.Collections.unmodifiableMap(new TreeMap<>(values));
            explicit = Set.copyOf(explicit);
        }
    }

    /**
     * The APIs to give the {@link KafkaWireServer}, beside {@link KafkaApis#apis()}.
     *
     * @return the list
     */
    public List<KafkaApi> apis() {
        return List.of(
            new KafkaApi(ApiKeys.CREATE_TOPICS, CREATE_TOPICS_MIN, CREATE_TOPICS_MAX, this::createTopics),
            new KafkaApi(ApiKeys.DELETE_TOPICS, DELETE_TOPICS_MIN, DELETE_TOPICS_MAX, this::deleteTopics),
            new KafkaApi(ApiKeys.CREATE_PARTITIONS, CREATE_PARTITIONS_MIN, CREATE_PARTITIONS_MAX,
                this::createPartitions),
            new KafkaApi(ApiKeys.DESCRIBE_CLUSTER, DescribeApis.DESCRIBE_CLUSTER_MIN, DescribeApis.DESCRIBE_CLUSTER_MAX,
                describe::describeCluster),
            new KafkaApi(ApiKeys.DESCRIBE_CONFIGS, DescribeApis.DESCRIBE_CONFIGS_MIN, DescribeApis.DESCRIBE_CONFIGS_MAX,
                describe::describeConfigs),
            new KafkaApi(ApiKeys.ALTER_CONFIGS, AlterConfigsApis.ALTER_CONFIGS_MIN, AlterConfigsApis.ALTER_CONFIGS_MAX,
                alter::alterConfigs),
            new KafkaApi(ApiKeys.INCREMENTAL_ALTER_CONFIGS, AlterConfigsApis.INCREMENTAL_ALTER_CONFIGS_MIN,
                AlterConfigsApis.INCREMENTAL_ALTER_CONFIGS_MAX, alter::incrementalAlterConfigs));
    }

    /** A Kafka error with its message, for one topic of a request. */
    static final class TopicError extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient Errors error;

        TopicError(final Errors error, final String message) {
            super(message, null, false, false);
            this.error = error;
        }
    }

    // ------------------------------------------------------------------------------------------ CreateTopics

    CompletionStage<ApiMessage> createTopics(final KafkaRequest request) {
        final CreateTopicsRequestData req = (CreateTopicsRequestData) request.body();
        final long deadlineMs = clockMs.getAsLong() + Math.max(0, req.timeoutMs());
        return onAdminThread(() -> {
            final CreateTopicsResponseData resp = new CreateTopicsResponseData();
            final Map<String, Integer> counts = new HashMap<>();
            req.topics().forEach(t -> counts.merge(t.name(), 1, Integer::sum));
            final Map<String, Integer> created = new LinkedHashMap<>();
            final Set<String> existing = store.topics();
            final Set<String> deleting = store.topicsMarkedForDeletion();
            final Map<Integer, Optional<String>> brokers = store.brokers();
            for (final CreateTopicsRequestData.CreatableTopic topic : req.topics()) {
                final CreateTopicsResponseData.CreatableTopicResult result =
                    new CreateTopicsResponseData.CreatableTopicResult().setName(topic.name());
                try {
                    if (counts.get(topic.name()) > 1) {
                        throw new TopicError(Errors.INVALID_REQUEST, "Found multiple entries for this topic.");
                    }
                    final Map<Integer, List<Integer>> assignment = createTopic(topic, existing, deleting, brokers,
                        req.validateOnly(), result, request.version());
                    result.setErrorMessage(null); // Kafka's ApiError.NONE has no message
                    if (!req.validateOnly()) {
                        created.put(topic.name(), assignment.size());
                        existing.add(topic.name());
                        if (request.version() >= 7) {
                            store.topic(topic.name()).flatMap(AdminStore.TopicState::topicId)
                                .ifPresent(id -> result.setTopicId(Uuid.fromString(id)));
                        }
                    }
                } catch (final TopicError e) {
                    fail(result, e.error, e.getMessage());
                } catch (final RuntimeException e) {
                    LOG.error("creating topic {} failed", topic.name(), e);
                    fail(result, Errors.UNKNOWN_SERVER_ERROR, e.toString());
                }
                resp.topics().add(result);
            }
            if (created.isEmpty()) {
                return CompletableFuture.completedFuture((ApiMessage) resp);
            }
            return awaitLeaders(created, deadlineMs, req.timeoutMs()).thenApply(leaderless -> {
                for (final CreateTopicsResponseData.CreatableTopicResult r : resp.topics()) {
                    if (leaderless.contains(r.name())) {
                        fail(r, Errors.REQUEST_TIMED_OUT, null);
                    }
                }
                return (ApiMessage) resp;
            });
        });
    }

    private static void fail(final CreateTopicsResponseData.CreatableTopicResult result, final Errors error,
                             final String message) {
        result.setErrorCode(error.code()).setErrorMessage(message).setConfigs(new ArrayList<>()).setNumPartitions(-1)
            .setReplicationFactor((short) -1).setTopicId(Uuid.ZERO_UUID);
    }

    /** Kafka's {@code ZkAdminManager.createTopics} for one topic: validated, then created unless only validated. */
    private Map<Integer, List<Integer>> createTopic(final CreateTopicsRequestData.CreatableTopic topic,
                                                    final Set<String> existing, final Set<String> deleting,
                                                    final Map<Integer, Optional<String>> brokers,
                                                    final boolean validateOnly,
                                                    final CreateTopicsResponseData.CreatableTopicResult result,
                                                    final short version) {
        final String name = topic.name();
        validateName(name);
        if (deleting.contains(name)) {
            throw new TopicError(Errors.TOPIC_ALREADY_EXISTS, "Topic '" + name + "' is marked for deletion.");
        }
        if (existing.contains(name) || cluster.partitions().keySet().stream().anyMatch(tp -> tp.topic().equals(name))) {
            throw new TopicError(Errors.TOPIC_ALREADY_EXISTS, "Topic '" + name + "' already exists.");
        }
        checkCollision(name, existing);
        final Map<String, String> overrides = new LinkedHashMap<>();
        final List<String> nulls = new ArrayList<>();
        topic.configs().forEach(c -> {
            if (c.value() == null) {
                nulls.add(c.name());
            } else {
                overrides.put(c.name(), c.value());
            }
        });
        if (!nulls.isEmpty()) {
            throw new TopicError(Errors.INVALID_CONFIG, "Null value not supported for topic configs: "
                + String.join(",", nulls));
        }
        if ((topic.numPartitions() != -1 || topic.replicationFactor() != -1) && !topic.assignments().isEmpty()) {
            throw new TopicError(Errors.INVALID_REQUEST, "Both numPartitions or replicationFactor and "
                + "replicasAssignments were set. Both cannot be used at the same time.");
        }
        final Map<Integer, List<Integer>> assignment;
        if (topic.assignments().isEmpty()) {
            final int partitions = topic.numPartitions() == -1 ? numPartitions : topic.numPartitions();
            final int rf = topic.replicationFactor() == -1 ? replicationFactor : topic.replicationFactor();
            assignment = assign(brokers, partitions, rf, -1, 0);
        } else {
            assignment = new TreeMap<>();
            topic.assignments().forEach(a -> assignment.put(a.partitionIndex(), List.copyOf(a.brokerIds())));
            validateManualAssignment(assignment, brokers.keySet());
        }
        final String configError = configs.validate(overrides);
        if (configError != null) {
            throw new TopicError(Errors.INVALID_CONFIG, configError);
        }
        if (version >= 5) {
            result.setNumPartitions(assignment.size()).setReplicationFactor((short) assignment.get(0).size());
            for (final TopicConfigs.Entry e : configs.describe(overrides, false)) {
                result.configs().add(new CreateTopicsResponseData.CreatableTopicConfigs().setName(e.name())
                    .setValue(e.value()).setReadOnly(false).setConfigSource(e.source()).setIsSensitive(false));
            }
        }
        if (!validateOnly) {
            try {
                store.createTopic(name, assignment, overrides);
            } catch (final TopicExistsException e) {
                throw new TopicError(Errors.TOPIC_ALREADY_EXISTS, "Topic '" + name + "' already exists.");
            } catch (final IllegalArgumentException e) {
                throw new TopicError(Errors.INVALID_REPLICA_ASSIGNMENT, e.getMessage());
            }
            LOG.info("created topic {} with {} partitions: {}", name, assignment.size(), assignment);
        }
        return assignment;
    }

    private static void validateName(final String name) {
        try {
            TopicPartition.validateTopic(name);
        } catch (final IllegalArgumentException e) {
            throw new TopicError(Errors.INVALID_TOPIC_EXCEPTION, "Topic name is invalid: " + e.getMessage());
        }
    }

    /** Kafka's collision rule: '.' and '_' collide in metric names, so two topics may not differ only by them. */
    private static void checkCollision(final String name, final Set<String> existing) {
        if (name.indexOf('.') < 0 && name.indexOf('_') < 0) {
            return;
        }
        final String unified = name.replace('.', '_');
        final List<String> colliding = existing.stream().filter(t -> !t.equals(name)
            && t.replace('.', '_').equals(unified)).sorted().toList();
        if (!colliding.isEmpty()) {
            throw new TopicError(Errors.INVALID_TOPIC_EXCEPTION, "Topic '" + name
                + "' collides with existing topics: " + String.join(", ", colliding));
        }
    }

    /** Kafka's {@code AdminUtils.assignReplicasToBrokers}, with its errors and messages. */
    private Map<Integer, List<Integer>> assign(final Map<Integer, Optional<String>> brokers, final int partitions,
                                               final int rf, final int startIndex, final int firstPartition) {
        if (partitions <= 0) {
            throw new TopicError(Errors.INVALID_PARTITIONS, "Number of partitions must be larger than 0.");
        }
        if (rf <= 0) {
            throw new TopicError(Errors.INVALID_REPLICATION_FACTOR, "Replication factor must be larger than 0.");
        }
        if (rf > brokers.size()) {
            throw new TopicError(Errors.INVALID_REPLICATION_FACTOR, "Replication factor: " + rf
                + " larger than available brokers: " + brokers.size() + ".");
        }
        try {
            return ReplicaAssignment.assign(brokers, partitions, rf, startIndex, firstPartition, random.split());
        } catch (final IllegalArgumentException e) {
            throw new TopicError(Errors.INVALID_REPLICA_ASSIGNMENT, e.getMessage());
        }
    }

    /** Kafka's {@code AdminZkClient.validateTopicCreate} checks of a manual assignment, and Seglog's known brokers. */
    private static void validateManualAssignment(final Map<Integer, List<Integer>> assignment,
                                                 final Set<Integer> brokers) {
        final Set<Integer> sizes = new HashSet<>();
        assignment.values().forEach(r -> sizes.add(r.size()));
        if (sizes.size() != 1) {
            throw new TopicError(Errors.INVALID_REPLICA_ASSIGNMENT,
                "All partitions should have the same number of replicas");
        }
        for (final List<Integer> replicas : assignment.values()) {
            if (replicas.isEmpty() || new HashSet<>(replicas).size() != replicas.size()) {
                throw new TopicError(Errors.INVALID_REPLICA_ASSIGNMENT, replicas.isEmpty()
                    ? "Replication factor must be larger than 0: " + assignment
                    : "Duplicate replica assignment found: " + assignment);
            }
        }
        for (int p = 0; p < assignment.size(); p++) {
            if (!assignment.containsKey(p)) {
                throw new TopicError(Errors.INVALID_REPLICA_ASSIGNMENT,
                    "partitions should be a consecutive 0-based integer sequence");
            }
        }
        checkKnownBrokers(assignment.values(), brokers);
    }

    private static void checkKnownBrokers(final Iterable<List<Integer>> replicaLists, final Set<Integer> brokers) {
        final Set<Integer> unknown = new TreeSet<>();
        replicaLists.forEach(r -> r.stream().filter(b -> !brokers.contains(b)).forEach(unknown::add));
        if (!unknown.isEmpty()) {
            throw new TopicError(Errors.INVALID_REPLICA_ASSIGNMENT, "Unknown broker(s) in replica assignment: "
                + String.join(", ", unknown.stream().map(String::valueOf).toList()) + ".");
        }
    }

    // ------------------------------------------------------------------------------------------ DeleteTopics

    CompletionStage<ApiMessage> deleteTopics(final KafkaRequest request) {
        final DeleteTopicsRequestData req = (DeleteTopicsRequestData) request.body();
        final long deadlineMs = clockMs.getAsLong() + Math.max(0, req.timeoutMs());
        final short version = request.version();
        return onAdminThread(() -> {
            final DeleteTopicsResponseData resp = new DeleteTopicsResponseData();
            final List<DeleteTopicsResponseData.DeletableTopicResult> results = new ArrayList<>();
            if (version < 6) {
                req.topicNames().forEach(n -> results.add(new DeleteTopicsResponseData.DeletableTopicResult()
                    .setName(n)));
            } else {
                for (final DeleteTopicsRequestData.DeleteTopicState t : req.topics()) {
                    final DeleteTopicsResponseData.DeletableTopicResult r =
                        new DeleteTopicsResponseData.DeletableTopicResult().setName(t.name()).setTopicId(t.topicId());
                    if (t.name() != null && !Uuid.ZERO_UUID.equals(t.topicId())) {
                        r.setErrorCode(Errors.INVALID_REQUEST.code())
                            .setErrorMessage("Topic name and topic ID can not both be specified.");
                    } else if (t.name() == null) {
                        final Optional<String> name = Uuid.ZERO_UUID.equals(t.topicId()) ? Optional.empty()
                            : store.topicNameById(t.topicId().toString());
                        r.setName(name.orElse(null));
                        if (name.isEmpty()) {
                            r.setErrorCode(Errors.UNKNOWN_TOPIC_ID.code());
                        }
                    }
                    results.add(r);
                }
            }
            final Set<String> cached = topicsInCache();
            final Set<String> deleting = new TreeSet<>();
            for (final DeleteTopicsResponseData.DeletableTopicResult r : results) {
                if (r.errorCode() != Errors.NONE.code()) {
                    continue;
                }
                if (!cached.contains(r.name())) {
                    r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                    continue;
                }
                try {
                    if (!store.topicsMarkedForDeletion().contains(r.name())) {
                        store.deleteTopic(r.name());
                        LOG.info("requested the deletion of topic {}", r.name());
                    }
                    deleting.add(r.name());
                } catch (final UnknownTopicException e) {
                    r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                } catch (final RuntimeException e) {
                    LOG.error("deleting topic {} failed", r.name(), e);
                    r.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code());
                    if (version >= 5) {
                        r.setErrorMessage(e.toString());
                    }
                }
            }
            results.forEach(r -> resp.responses().add(r));
            if (deleting.isEmpty()) {
                return CompletableFuture.completedFuture((ApiMessage) resp);
            }
            return (req.timeoutMs() <= 0 ? CompletableFuture.<Set<String>>completedFuture(deleting)
                : await(deadlineMs, () -> {
                final Set<String> left = new TreeSet<>(deleting);
                left.retainAll(topicsInCache());
                return left;
            })).thenApply(left -> {
                resp.responses().forEach(r -> {
                    if (left.contains(r.name()) && r.errorCode() == Errors.NONE.code()) {
                        r.setErrorCode(Errors.REQUEST_TIMED_OUT.code());
                    }
                });
                return (ApiMessage) resp;
            });
        });
    }

    private Set<String> topicsInCache() {
        final Set<String> topics = new HashSet<>();
        cluster.partitions().keySet().forEach(tp -> topics.add(tp.topic()));
        return topics;
    }

    // -------------------------------------------------------------------------------------- CreatePartitions

    CompletionStage<ApiMessage> createPartitions(final KafkaRequest request) {
        final CreatePartitionsRequestData req = (CreatePartitionsRequestData) request.body();
        final long deadlineMs = clockMs.getAsLong() + Math.max(0, req.timeoutMs());
        return onAdminThread(() -> {
            final CreatePartitionsResponseData resp = new CreatePartitionsResponseData();
            final Map<String, Integer> counts = new HashMap<>();
            req.topics().forEach(t -> counts.merge(t.name(), 1, Integer::sum));
            final Map<Integer, Optional<String>> brokers = store.brokers();
            final Map<String, Integer> grown = new LinkedHashMap<>();
            for (final CreatePartitionsRequestData.CreatePartitionsTopic topic : req.topics()) {
                final CreatePartitionsResponseData.CreatePartitionsTopicResult result =
                    new CreatePartitionsResponseData.CreatePartitionsTopicResult().setName(topic.name());
                try {
                    if (counts.get(topic.name()) > 1) {
                        throw new TopicError(Errors.INVALID_REQUEST, "Duplicate topic in request.");
                    }
                    addPartitions(topic, brokers, req.validateOnly());
                    if (!req.validateOnly()) {
                        grown.put(topic.name(), topic.count());
                    }
                } catch (final TopicError e) {
                    result.setErrorCode(e.error.code()).setErrorMessage(e.getMessage());
                } catch (final RuntimeException e) {
                    LOG.error("adding partitions to topic {} failed", topic.name(), e);
                    result.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code()).setErrorMessage(e.toString());
                }
                resp.results().add(result);
            }
            if (grown.isEmpty()) {
                return CompletableFuture.completedFuture((ApiMessage) resp);
            }
            return awaitLeaders(grown, deadlineMs, req.timeoutMs()).thenApply(leaderless -> {
                resp.results().forEach(r -> {
                    if (leaderless.contains(r.name())) {
                        r.setErrorCode(Errors.REQUEST_TIMED_OUT.code()).setErrorMessage(null);
                    }
                });
                return (ApiMessage) resp;
            });
        });
    }

    /** Kafka's {@code ZkAdminManager.createPartitions} for one topic. */
    private void addPartitions(final CreatePartitionsRequestData.CreatePartitionsTopic topic,
                               final Map<Integer, Optional<String>> brokers, final boolean validateOnly) {
        final String name = topic.name();
        for (int attempt = 0; ; attempt++) {
            final AdminStore.TopicState state = store.topic(name).orElseThrow(() ->
                new TopicError(Errors.UNKNOWN_TOPIC_OR_PARTITION, "The topic '" + name + "' does not exist."));
            if (state.reassigning()) {
                throw new TopicError(Errors.REASSIGNMENT_IN_PROGRESS, "A partition reassignment is in progress for"
                    + " the topic '" + name + "'.");
            }
            final int current = state.partitions().size();
            final int increment = topic.count() - current;
            if (increment < 0) {
                throw new TopicError(Errors.INVALID_PARTITIONS, "Topic currently has " + current + " partitions, which"
                    + " is higher than the requested " + topic.count() + ".");
            }
            if (increment == 0) {
                throw new TopicError(Errors.INVALID_PARTITIONS, "Topic already has " + current + " partitions.");
            }
            final List<Integer> partition0 = state.partitions().get(0);
            final Map<Integer, List<Integer>> added;
            if (topic.assignments() == null) {
                int start = 0;
                final List<Integer> ids = new ArrayList<>(new TreeMap<>(brokers).keySet());
                for (int i = 0; i < ids.size(); i++) {
                    if (ids.get(i) >= partition0.get(0)) {
                        start = i;
                        break;
                    }
                }
                added = assign(brokers, increment, partition0.size(), start, current);
            } else {
                added = new TreeMap<>();
                final List<List<Integer>> lists = new ArrayList<>();
                topic.assignments().forEach(a -> lists.add(List.copyOf(a.brokerIds())));
                checkKnownBrokers(lists, brokers.keySet());
                if (lists.size() != increment) {
                    throw new TopicError(Errors.INVALID_REPLICA_ASSIGNMENT, "Increasing the number of partitions by "
                        + increment + " but " + lists.size() + " assignments provided.");
                }
                for (int i = 0; i < lists.size(); i++) {
                    added.put(current + i, lists.get(i));
                }
                validateAddedAssignment(added, partition0.size());
            }
            if (validateOnly || store.addPartitions(name, state, added)) {
                if (!validateOnly) {
                    LOG.info("added partitions {} to topic {}", added, name);
                }
                return;
            }
            if (attempt >= 3) {
                throw new TopicError(Errors.UNKNOWN_SERVER_ERROR, "The topic '" + name + "' kept changing while"
                    + " partitions were added; try again.");
            }
        }
    }

    /** Kafka's {@code AdminZkClient.validateReplicaAssignment}. */
    private static void validateAddedAssignment(final Map<Integer, List<Integer>> added, final int rf) {
        final Map<Integer, Integer> bad = new TreeMap<>();
        added.forEach((p, replicas) -> {
            if (replicas.isEmpty()) {
                throw new TopicError(Errors.INVALID_REPLICA_ASSIGNMENT, "Cannot have replication factor of 0 for"
                    + " partition id " + p + ".");
            }
            if (new HashSet<>(replicas).size() != replicas.size()) {
                throw new TopicError(Errors.INVALID_REPLICA_ASSIGNMENT, "Duplicate brokers not allowed in replica"
                    + " assignment: " + String.join(", ", replicas.stream().map(String::valueOf).toList())
                    + " for partition id " + p + ".");
            }
            if (replicas.size() != rf) {
                bad.put(p, replicas.size());
            }
        });
        if (!bad.isEmpty()) {
            throw new TopicError(Errors.INVALID_REPLICA_ASSIGNMENT, "Inconsistent replication factor between"
                + " partitions, partition 0 has " + rf + " while partitions " + bad.keySet() + " have replication"
                + " factors " + bad.values() + ", respectively.");
        }
    }

    // ------------------------------------------------------------------------------------------------ waits

    /**
     * Runs a step on the admin thread (ZooKeeper calls block) and flattens the stage it returns.
     */
    private CompletionStage<ApiMessage> onAdminThread(final Supplier<CompletionStage<ApiMessage>> step) {
        return CompletableFuture.supplyAsync(step, executor).thenCompose(s -> s);
    }

    /**
     * Kafka's {@code DelayedCreatePartitions}: completes with the topics (of those given, with their partition
     * counts) that still have a partition without a leader in the metadata cache when all are led or the deadline
     * passes.
     */
    private CompletableFuture<Set<String>> awaitLeaders(final Map<String, Integer> topics, final long deadlineMs,
                                                        final int timeoutMs) {
        if (timeoutMs <= 0) {
            return CompletableFuture.completedFuture(new TreeSet<>(topics.keySet())); // Kafka's rule: no wait at all
        }
        return await(deadlineMs, () -> {
            final Map<TopicPartition, PartitionStateInfo> states = cluster.partitions();
            final Set<String> leaderless = new TreeSet<>();
            topics.forEach((topic, count) -> {
                for (int p = 0; p < count; p++) {
                    final PartitionStateInfo s = states.get(new TopicPartition(topic, p));
                    if (s == null || !s.leaderAndIsr().hasLeader()) {
                        leaderless.add(topic);
                        return;
                    }
                }
            });
            return leaderless;
        });
    }

    /**
     * Completes with {@code remaining}'s answer once it is empty or the deadline has passed, re-reading every
     * {@value #POLL_MS} ms on the admin executor.
     */
    private CompletableFuture<Set<String>> await(final long deadlineMs, final Supplier<Set<String>> remaining) {
        final CompletableFuture<Set<String>> done = new CompletableFuture<>();
        final Runnable[] check = new Runnable[1];
        check[0] = () -> {
            if (done.isDone()) {
                return; // answered, or the connection went away
            }
            try {
                final Set<String> left = remaining.get();
                if (left.isEmpty() || clockMs.getAsLong() >= deadlineMs) {
                    done.complete(left);
                } else {
                    executor.schedule(check[0], POLL_MS, TimeUnit.MILLISECONDS);
                }
            } catch (final RuntimeException e) {
                done.completeExceptionally(e);
            }
        };
        check[0].run();
        return done;
    }
}
