package io.seglog.replication.broker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a broker's properties hold beyond the keys Seglog reads, judged as Kafka's {@code AbstractConfig.logUnused}
 * judges it, and stricter where a key would promise what Seglog does not do:
 * <ul>
 *   <li>a key of a feature Seglog does not have yet (TLS, SASL, ACLs and the authorizer, delegation tokens, client
 *       quotas, KRaft, tiered storage) is refused at start, naming the key: a broker that started with
 *       {@code authorizer.class.name} set would be believed to check ACLs;</li>
 *   <li>a key Kafka 4.4 knows and Seglog does not read (its I/O threads, socket buffers, ...) has no effect: said
 *       once, at INFO, so a whole Kafka {@code server.properties} can be carried over;</li>
 *   <li>any other key is unknown: a WARN as Kafka's ("was supplied but isn't a known config"), with the nearest
 *       known key when one is a small edit away ({@code num.partitons}: did you mean {@code num.partitions}?).</li>
 * </ul>
 * Which keys Seglog reads is what the components' configuration tables define (ConfigReference), as Kafka's
 * {@code ConfigDef}s define its keys.
 *
 * <p>Stateless; Kafka's list is read once from a resource.
 */
final class BrokerProperties {
    private static final Logger LOG = LoggerFactory.getLogger(SeglogBroker.class);
    private static final String KAFKA_CONFIGS = "kafka-broker-configs.txt";

    /** Keys of features Seglog does not have, and what to say of each family. */
    private static final List<Family> UNSUPPORTED = List.of(
        new Family("TLS and SASL are not served yet (only PLAINTEXT listeners)", "ssl.", "sasl.", "listener.name.",
            "security.providers", "principal.builder.class", "connections.max.reauth.ms", "zookeeper.ssl.",
            "ssl.principal.mapping.rules"),
        new Family("Seglog has no ACLs and no authorizer yet: nothing would be authorized or denied",
            "authorizer.class.name", "allow.everyone.if.no.acl.found", "super.users"),
        new Family("delegation tokens are not served yet", "delegation.token."),
        new Family("client quotas are not enforced yet", "client.quota.callback.class", "quota.producer.default",
            "quota.consumer.default"),
        new Family("Seglog brokers run under a ZooKeeper controller (zookeeper.connect), not KRaft",
            "process.roles", "node.id", "controller.quorum.", "controller.listener.names"),
        new Family("tiered storage is not implemented", "remote.log.storage.system.enable"));

    private BrokerProperties() {
    }

    /** A family of keys and why Seglog refuses them. */
    private record Family(String why, String... keys) {
        boolean covers(final String key) {
            for (final String k : keys) {
                if (k.endsWith(".") ? key.startsWith(k) : key.equals(k)) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * An unknown key, with the known key it may have meant.
     *
     * @param key        as supplied
     * @param didYouMean the nearest key Seglog or Kafka knows, when a small edit away
     */
    record Unknown(String key, Optional<String> didYouMean) {
        String message() {
            return "The configuration '" + key + "' was supplied but isn't a known config"
                + didYouMean.map(k -> ". Did you mean '" + k + "'?").orElse(".");
        }
    }

    /**
     * The verdict on a broker's properties.
     *
     * @param unknown   keys neither Seglog nor Kafka knows, sorted
     * @param kafkaOnly keys Kafka knows and Seglog does not read (no effect), sorted
     */
    record Check(List<Unknown> unknown, SortedSet<String> kafkaOnly) {
    }

    /**
     * Judges the supplied keys against those the configuration tables define.
     *
     * @param supplied the properties as given
     * @param known    every key a component reads
     * @return the unknown and the Kafka-only keys
     * @throws IllegalArgumentException naming the first key of a feature Seglog does not have, and why
     */
    static Check check(final Map<String, ?> supplied, final Set<String> known) {
        final List<Unknown> unknown = new ArrayList<>();
        final SortedSet<String> kafkaOnly = new TreeSet<>();
        for (final String key : new TreeSet<>(supplied.keySet())) {
            if (known.contains(key)) {
                continue;
            }
            refuseUnsupported(key, supplied.get(key));
            if (KafkaConfigs.NAMES.contains(key)) {
                kafkaOnly.add(key);
            } else {
                unknown.add(new Unknown(key, nearest(key, known)));
            }
        }
        return new Check(List.copyOf(unknown), Collections.unmodifiableSortedSet(kafkaOnly));
    }

    /** Logs the verdict: a WARN per unknown key, one INFO line for the keys that have no effect. */
    static void log(final Check check) {
        for (final Unknown u : check.unknown()) {
            LOG.warn(u.message());
        }
        if (!check.kafkaOnly().isEmpty()) {
            LOG.info("Kafka settings that have no effect on a Seglog broker: {}", String.join(", ", check.kafkaOnly()));
        }
    }

    private static void refuseUnsupported(final String key, final Object value) {
        for (final Family family : UNSUPPORTED) {
            if (!family.covers(key)) {
                continue;
            }
            // An empty authorizer is Kafka's default (none): it promises nothing.
            if ("authorizer.class.name".equals(key) && String.valueOf(value).isBlank()) {
                return;
            }
            throw new IllegalArgumentException(key + "=" + value + ": " + family.why() + "; remove the key to start"
                + " (docs/configuration.md lists what a Seglog broker reads)");
        }
    }

    /** The known key (Seglog's or Kafka's) nearest to {@code key}, when a small edit away. */
    static Optional<String> nearest(final String key, final Set<String> known) {
        final String lower = key.toLowerCase(Locale.ROOT);
        final int allowed = Math.max(2, key.length() / 8);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (final Set<String> names : List.of(known, KafkaConfigs.NAMES)) {
            for (final String candidate : new TreeSet<>(names)) {
                final int d = distance(lower, candidate.toLowerCase(Locale.ROOT), allowed);
                if (d < bestDistance) {
                    bestDistance = d;
                    best = candidate;
                }
            }
        }
        return bestDistance <= allowed ? Optional.of(best) : Optional.empty();
    }

    /** Levenshtein distance, or {@code limit + 1} as soon as it must exceed {@code limit}. */
    private static int distance(final String a, final String b, final int limit) {
        if (Math.abs(a.length() - b.length()) > limit) {
            return limit + 1;
        }
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            int rowMin = current[0];
            for (int j = 1; j <= b.length(); j++) {
                final int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
                rowMin = Math.min(rowMin, current[j]);
            }
            if (rowMin > limit) {
                return limit + 1;
            }
            final int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    /** Kafka 4.4's broker configuration names, read once from {@value #KAFKA_CONFIGS}. */
    static final class KafkaConfigs {
        static final Set<String> NAMES = load();

        private KafkaConfigs() {
        }

        private static Set<String> load() {
            try (InputStream in = BrokerProperties.class.getResourceAsStream(KAFKA_CONFIGS)) {
                if (in == null) {
                    throw new IllegalStateException("resource " + KAFKA_CONFIGS + " missing from the class path");
                }
                final Set<String> names = new HashSet<>();
                final BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    if (!line.isBlank() && !line.startsWith("#")) {
                        names.add(line.trim());
                    }
                }
                return Set.copyOf(names);
            } catch (final IOException e) {
                throw new UncheckedIOException("cannot read " + KAFKA_CONFIGS, e);
            }
        }
    }
}
