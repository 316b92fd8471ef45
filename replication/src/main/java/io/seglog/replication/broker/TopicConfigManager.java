package io.seglog.replication.broker;

import io.seglog.replication.zk.ConfigChangeNotificationZnode;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.TopicConfigZnode;
import io.seglog.storage.LogConfig;
import io.seglog.storage.LogManager;
import io.seglog.storage.TopicPartition;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeSet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's topic configurations, as Kafka's ZooKeeper-mode broker keeps them (its {@code ZkConfigManager} with a
 * {@code TopicConfigHandler}): a topic's log configuration is the broker's defaults with the overrides of
 * {@code /config/topics/<topic>} laid over them ({@link LogConfig#withProperties}); a change is announced by a
 * persistent-sequential {@code /config/changes/config_change_<seq>} naming {@code topics/<topic>}, and every broker
 * watches {@code /config/changes}, re-reads the topics named by notifications newer than the last it processed, and
 * gives every local log of the topic the new configuration ({@link LogManager#updateTopicConfig}).
 *
 * <p>{@link #configFor} is the log manager's topic configuration source: it reads ZooKeeper on the caller's thread
 * (the threads that open logs, and the control-request thread that creates them; never a network event loop). Logs
 * loaded at start get their topic's configuration as in Kafka (which fetches the overrides of the topics found in its
 * log directories before loading them): the broker's ZooKeeper session is opened before its logs, and this manager
 * reads through it from its construction; {@link #start} then re-applies every local topic's configuration (covering a
 * change made while the logs loaded) and starts watching.
 * Notifications are processed on a thread of this manager's own. Overrides that Seglog refuses (written by another
 * tool) are logged and the defaults are used.
 *
 * <p>A new ZooKeeper session (the old one expired, and its watch with it) makes this manager re-apply every local
 * topic's configuration and re-arm its watch ({@link #onNewSession}), so a change made meanwhile is not missed.
 * Kafka's brokers also delete notifications older than 15 minutes (by their creation time); Seglog's brokers leave
 * them (the znodes are small; an operator may delete them).
 *
 * <p>Thread-safe.
 */
final class TopicConfigManager implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TopicConfigManager.class);
    /** Delay before a failed read of the notifications is retried (ZooKeeper unreachable for the moment). */
    private static final long RETRY_MS = 1_000;

    private final int brokerId;
    private final LogConfig defaults;
    private final ScheduledExecutorService thread;
    private final KafkaZkStore store;
    private volatile LogManager logs;
    /** The newest notification processed (its child name; sequence numbers are zero-padded); thread-confined. */
    private String lastProcessed = "";
    private volatile boolean closed;
    /** One watch object, so re-arming never piles up watchers for the same path. */
    private final io.seglog.replication.zk.ZkWatch changes = this::onChange;

    /**
     * @param brokerId this broker, for messages
     * @param defaults the broker's topic defaults ({@code log.*} settings)
     * @param store    the broker's store
     * @param thread   runs the notifications' processing; owned by this manager (shut down at close)
     */
    TopicConfigManager(final int brokerId, final LogConfig defaults, final KafkaZkStore store,
                       final ScheduledExecutorService thread) {
        this.brokerId = brokerId;
        this.defaults = Objects.requireNonNull(defaults, "defaults");
        this.store = Objects.requireNonNull(store, "store");
        this.thread = Objects.requireNonNull(thread, "thread");
    }

    /**
     * A topic's log configuration: the defaults with the overrides in ZooKeeper. Reads ZooKeeper on the caller's thread. When ZooKeeper cannot be
     * read, the log is not left uncreated (its replica would stop): the defaults are answered, the failure logged,
     * and once started this manager re-reads the topic's overrides on its own thread until it succeeds, then applies
     * them.
     *
     * @param topic the topic
     * @return its configuration
     */
    LogConfig configFor(final String topic) {
        try {
            return read(topic);
        } catch (final io.seglog.replication.zk.ZkException e) {
            LOG.warn("broker.id={}: cannot read the overrides of topic {} ({}); its new logs start with the broker's"
                + " defaults until they are read", brokerId, topic, e.toString());
            if (logs != null) {
                submit(() -> apply(topic), RETRY_MS);
            }
            return defaults;
        }
    }

    /** The topic's configuration; throws when ZooKeeper cannot be read. */
    private LogConfig read(final String topic) {
        final Map<String, String> overrides = store.admin().topicConfig(topic).map(TopicConfigZnode::config)
            .orElse(Map.of());
        if (overrides.isEmpty()) {
            return defaults;
        }
        try {
            return defaults.withProperties(overrides);
        } catch (final IllegalArgumentException e) {
            LOG.warn("broker.id={}: the overrides of topic {} are refused ({}); its logs use the broker's defaults",
                brokerId, topic, e.getMessage());
            return defaults;
        }
    }

    /**
     * Gives every local log its topic's configuration again (a change may have been made while the logs loaded) and
     * starts watching {@code /config/changes}. Runs on this manager's thread; returns at once.
     *
     * @param logs the broker's logs
     */
    void start(final LogManager logs) {
        this.logs = Objects.requireNonNull(logs, "logs");
        submit(this::initialise, 0);
    }

    private void initialise() {
        // Notifications already present are older than what the read below finds: skip them, as Kafka's listener
        // re-applies them at start to the same effect.
        final SortedMap<String, ConfigChangeNotificationZnode> existing =
            store.admin().configChangeNotifications(changes);
        if (!existing.isEmpty()) {
            lastProcessed = existing.lastKey();
        }
        final Set<String> topics = new TreeSet<>();
        for (final TopicPartition tp : logs.partitions()) {
            topics.add(tp.topic());
        }
        for (final String topic : topics) {
            apply(topic);
        }
        LOG.info("broker.id={}: topic configurations applied to the logs of {} topic(s); watching {}", brokerId,
            topics.size(), io.seglog.replication.zk.ZkPaths.CONFIG_CHANGES);
    }

    /**
     * After a new ZooKeeper session: the watch on {@code /config/changes} was lost with the old session, and changes
     * may have been made meanwhile; everything is read again, as at start. Runs on ZooKeeper's event thread, so it
     * only enqueues.
     */
    void onNewSession() {
        if (logs != null) {
            submit(this::initialise, 0);
        }
    }

    /** The children watch: runs on ZooKeeper's event thread, so it only enqueues. */
    private void onChange(final String path) {
        submit(this::processNotifications, 0);
    }

    private void processNotifications() {
        final SortedMap<String, ConfigChangeNotificationZnode> all =
            store.admin().configChangeNotifications(changes);
        for (final Map.Entry<String, ConfigChangeNotificationZnode> e : all.tailMap(lastProcessed).entrySet()) {
            if (e.getKey().equals(lastProcessed)) {
                continue;
            }
            final ConfigChangeNotificationZnode change = e.getValue();
            if (ConfigChangeNotificationZnode.TOPICS.equals(change.entityType())) {
                apply(change.entityName());
            } else {
                LOG.debug("broker.id={}: config change of {} ignored (not a topic)", brokerId, change.entityPath());
            }
            lastProcessed = e.getKey();
        }
    }

    private void apply(final String topic) {
        final boolean local = logs.partitions().stream().anyMatch(tp -> tp.topic().equals(topic));
        if (!local) {
            return; // no log here: a log created later reads the configuration then
        }
        final int updated = logs.updateTopicConfig(topic, read(topic));
        LOG.info("broker.id={}: configuration of topic {} applied to {} log(s)", brokerId, topic, updated);
    }

    private void submit(final Runnable task, final long delayMs) {
        if (closed) {
            return;
        }
        try {
            thread.schedule(() -> {
                if (closed) {
                    return;
                }
                try {
                    task.run();
                } catch (final RuntimeException e) {
                    LOG.warn("broker.id={}: processing topic configuration changes failed ({}); retrying in {} ms",
                        brokerId, e.toString(), RETRY_MS);
                    submit(task, RETRY_MS);
                }
            }, delayMs, TimeUnit.MILLISECONDS);
        } catch (final RejectedExecutionException e) {
            // closing
        }
    }

    /** Stops the notification thread (a task under way finishes). Idempotent. */
    @Override
    public void close() {
        closed = true;
        thread.shutdownNow();
    }
}
