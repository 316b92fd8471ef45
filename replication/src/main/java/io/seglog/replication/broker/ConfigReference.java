package io.seglog.replication.broker;

import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.group.GroupConfig;
import io.seglog.replication.replica.ReplicaManagerConfig;
import io.seglog.replication.wire.WireServerConfig;
import io.seglog.storage.CleanerConfig;
import io.seglog.storage.LogConfig;
import io.seglog.storage.LogManagerConfig;
import io.seglog.storage.config.ConfigDocs;
import io.seglog.storage.config.ConfigKey;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Every component's configuration table in one list: the broker's reference {@code docs/configuration.md} is
 * generated from it ({@link #markdown()}; ConfigReferenceTest fails when the committed file differs), and the broker's
 * unknown-key report knows the keys it defines ({@link #brokerKeys}). Each key is defined once, in the table of the
 * component that reads it; a component that reads another's key (the replication layer's cluster-wide
 * {@code min.insync.replicas}) reads it through that table.
 *
 * <p>Thread-safety: stateless.
 */
final class ConfigReference {
    private ConfigReference() {
    }

    /**
     * The tables in the reference's order: the broker's own, the control plane, the wire, replicas, groups, then the
     * storage core's (log manager, cleaner, and the topic-level keys).
     *
     * @return the sections
     */
    static List<ConfigDocs.Section> sections() {
        return List.of(
            new ConfigDocs.Section(SeglogBrokerConfig.configDef(), "The broker's own keys, and Kafka's broker-level"
                + " names of topic settings (each the broker-wide default of the topic-level key in LogConfig)."),
            new ConfigDocs.Section(ReplicationConfig.configDef(), "The broker's identity, its ZooKeeper session and the"
                + " controller's policies. It also reads unclean.leader.election.enable and min.insync.replicas"
                + " (LogConfig) as the cluster's defaults, and replica.lag.time.max.ms (ReplicaManagerConfig)."),
            new ConfigDocs.Section(WireServerConfig.configDef(), "The Kafka-protocol server."),
            new ConfigDocs.Section(ReplicaManagerConfig.configDef(), "How the broker's replicas replicate."),
            new ConfigDocs.Section(GroupCoordinatorConfig.configDef(), "The group coordinator's offsets topic."),
            new ConfigDocs.Section(GroupConfig.configDef(), "The classic group protocol's rules."),
            new ConfigDocs.Section(LogManagerConfig.configDef(), "The log manager's background work."),
            new ConfigDocs.Section(CleanerConfig.configDef(), "The log cleaner (compaction)."),
            new ConfigDocs.Section(LogConfig.configDef(), "A partition log's settings: topic-level keys, set per topic"
                + " (kafka-configs.sh, AlterConfigs) or as the broker's default under the same name or the"
                + " broker-level synonym above. Dynamic keys apply to a running log (PartitionLog.updateConfig says"
                + " when); internal.segment.bytes, Kafka's test-only override of segment.bytes without its 1 MiB"
                + " minimum, is read too."));
    }

    /**
     * The reference text, as committed in {@code docs/configuration.md}.
     *
     * @return the Markdown
     */
    static String markdown() {
        return ConfigDocs.markdown("Configuration reference", "Generated from the configuration tables by"
            + " `ConfigReferenceTest` (do not edit by hand): every key Seglog reads, with Kafka's name where Kafka has"
            + " the key, its type, default, valid values, the component that reads it, and whether a running broker"
            + " takes a new value over (a topic-level setting changed through AlterConfigs or kafka-configs.sh)."
            + " A broker reads a whole Kafka `server.properties`: keys of features Seglog lacks are refused by name,"
            + " Kafka keys it does not read are listed once at INFO, any other key is warned about with the nearest"
            + " known one.", sections());
    }

    /**
     * The keys a broker's properties may hold that a component reads: every broker-side table's, with the topic-level
     * keys the broker takes as its topic defaults.
     *
     * @param topicDefaults the topic-level keys read as broker-wide defaults
     * @return the names
     */
    static Set<String> brokerKeys(final Set<String> topicDefaults) {
        final Set<String> names = new HashSet<>(topicDefaults);
        for (final ConfigDocs.Section section : sections()) {
            if (section.table() != LogConfig.configDef()) {
                for (final ConfigKey<?> key : section.table().keys()) {
                    names.add(key.name());
                }
            }
        }
        return Set.copyOf(names);
    }
}
