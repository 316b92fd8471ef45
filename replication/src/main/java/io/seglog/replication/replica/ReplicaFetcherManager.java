package io.seglog.replication.replica;

import io.seglog.replication.transport.LiveBroker;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fetchers of one broker (Kafka's {@code ReplicaFetcherManager}): {@code num.replica.fetchers} threads at most per
 * source broker, a partition always on the same one ({@code hash(partition) % num.replica.fetchers}), a fetcher
 * closed when its last partition leaves. A fetcher's connection is to one address of its leader: when a leader comes
 * back at another address, its fetchers are replaced. Partitions whose leader's address is not known yet wait for
 * one ({@link #onLiveBrokers}).
 *
 * <p>Thread-safe (one lock; fetchers are started and closed outside it).
 */
final class ReplicaFetcherManager implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaFetcherManager.class);

    private record Key(int leaderId, int fetcherId) {
    }

    private record Pending(Partition partition, int leaderId, int epoch) {
    }

    private final int brokerId;
    private final ReplicaManagerConfig config;
    private final LongSupplier clockMs;
    private final LongSupplier brokerEpoch;
    private final LeaderEndpoint.Factory endpoints;
    private final Function<String, FetcherDriver> drivers;
    private final Map<Key, ReplicaFetcher> fetchers = new HashMap<>();
    private final Map<Key, String> fetcherAddress = new HashMap<>();
    private final Map<TopicPartition, Key> assigned = new HashMap<>();
    private final Map<TopicPartition, Pending> fetched = new HashMap<>();
    private final Map<TopicPartition, Pending> waitingForAddress = new HashMap<>();
    private final Map<Integer, LiveBroker> addresses = new HashMap<>();
    /** Fetchers told to stop but not waited for; joined at close, so no thread outlives the manager. */
    private final List<ReplicaFetcher> retired = new ArrayList<>();
    private boolean closed;

    ReplicaFetcherManager(final int brokerId, final ReplicaManagerConfig config, final LongSupplier clockMs,
                          final LongSupplier brokerEpoch, final LeaderEndpoint.Factory endpoints,
                          final ThreadFactory threadFactory) {
        this(brokerId, config, clockMs, brokerEpoch, endpoints,
            (Function<String, FetcherDriver>) name -> FetcherDriver.onThread(threadFactory, name));
    }

    /**
     * A manager whose fetchers run on drivers it is given (a simulation's scheduler) instead of threads.
     *
     * @param drivers makes a fetcher's driver, given the fetcher's name
     */
    ReplicaFetcherManager(final int brokerId, final ReplicaManagerConfig config, final LongSupplier clockMs,
                          final LongSupplier brokerEpoch, final LeaderEndpoint.Factory endpoints,
                          final Function<String, FetcherDriver> drivers) {
        this.brokerId = brokerId;
        this.config = config;
        this.clockMs = clockMs;
        this.brokerEpoch = brokerEpoch;
        this.endpoints = endpoints;
        this.drivers = drivers;
    }

    private int fetcherId(final TopicPartition tp) {
        // Kafka's getFetcherId: Utils.abs(31 * topic.hashCode() + partition) % numFetchers.
        return ((31 * tp.topic().hashCode() + tp.partition()) & 0x7fffffff) % config.numReplicaFetchers();
    }

    /**
     * Starts fetching a partition from its leader.
     *
     * @param partition the partition (as follower)
     * @param leaderId  its leader
     * @param epoch     the leader epoch
     * @param address   the leader's address, or null to use the last one known
     */
    synchronized void add(final Partition partition, final int leaderId, final int epoch, final LiveBroker address) {
        if (closed) {
            return;
        }
        if (address != null) {
            addresses.put(address.id(), address);
        }
        final TopicPartition tp = partition.topicPartition();
        removeLocked(tp);
        final LiveBroker leader = addresses.get(leaderId);
        if (leader == null) {
            LOG.info("broker.id={}: the address of {}'s leader {} is not known yet", brokerId, tp, leaderId);
            waitingForAddress.put(tp, new Pending(partition, leaderId, epoch));
            return;
        }
        final Key key = new Key(leaderId, fetcherId(tp));
        final String where = leader.host() + ":" + leader.port();
        ReplicaFetcher fetcher = fetchers.get(key);
        final List<Pending> moved = new ArrayList<>();
        if (fetcher != null && !where.equals(fetcherAddress.get(key))) {
            // The leader is at another address now: a new connection, and the old fetcher's partitions move over.
            for (final Map.Entry<TopicPartition, Key> e : assigned.entrySet()) {
                if (e.getValue().equals(key)) {
                    moved.add(fetched.get(e.getKey()));
                }
            }
            moved.forEach(m -> {
                assigned.remove(m.partition().topicPartition());
                fetched.remove(m.partition().topicPartition());
            });
            fetchers.remove(key);
            fetcherAddress.remove(key);
            fetcher.shutdown(); // not joined: the caller holds the control lock
            retire(fetcher);
            LOG.info("broker.id={}: leader {} is now at {}; {} partitions move to a new connection", brokerId, leaderId,
                where, moved.size());
            fetcher = null;
        }
        if (fetcher == null) {
            fetcher = new ReplicaFetcher(brokerId, leaderId, key.fetcherId(),
                endpoints.open(leaderId, leader.host(), leader.port()), config, clockMs, brokerEpoch, drivers);
            fetchers.put(key, fetcher);
            fetcherAddress.put(key, where);
            fetcher.start();
        }
        moved.add(new Pending(partition, leaderId, epoch));
        for (final Pending m : moved) {
            fetcher.add(m.partition(), m.epoch());
            assigned.put(m.partition().topicPartition(), key);
            fetched.put(m.partition().topicPartition(), m);
        }
    }

    /**
     * Stops fetching a partition.
     *
     * @param tp the partition
     */
    synchronized void remove(final TopicPartition tp) {
        removeLocked(tp);
    }

    private void removeLocked(final TopicPartition tp) {
        waitingForAddress.remove(tp);
        fetched.remove(tp);
        final Key key = assigned.remove(tp);
        if (key == null) {
            return;
        }
        final ReplicaFetcher fetcher = fetchers.get(key);
        if (fetcher != null) {
            fetcher.remove(tp);
            if (fetcher.partitionCount() == 0) {
                fetchers.remove(key);
                fetcherAddress.remove(key);
                // Not joined: a LeaderAndIsr is being applied under locks the fetcher may need on its way out; it
                // ends by itself once its request in flight fails.
                fetcher.shutdown();
                retire(fetcher);
            }
        }
    }

    /** Remembers a stopped fetcher until close; forgets the ones whose thread has ended. */
    private void retire(final ReplicaFetcher fetcher) {
        retired.removeIf(ReplicaFetcher::ended);
        retired.add(fetcher);
    }

    /**
     * New addresses of live brokers: partitions waiting for their leader's address start fetching.
     *
     * @param live the live brokers
     */
    synchronized void onLiveBrokers(final Map<Integer, LiveBroker> live) {
        addresses.putAll(live);
        if (waitingForAddress.isEmpty()) {
            return;
        }
        final List<Pending> ready = new ArrayList<>();
        for (final Iterator<Pending> it = waitingForAddress.values().iterator(); it.hasNext(); ) {
            final Pending p = it.next();
            if (addresses.containsKey(p.leaderId())) {
                ready.add(p);
                it.remove();
            }
        }
        ready.forEach(p -> add(p.partition(), p.leaderId(), p.epoch(), null));
    }

    /**
     * Running fetchers.
     *
     * @return the count
     */
    synchronized int fetcherCount() {
        return fetchers.size();
    }

    /** Stops every fetcher. Idempotent. */
    @Override
    public void close() {
        final List<ReplicaFetcher> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(fetchers.values());
            all.addAll(retired);
            retired.clear();
            fetchers.clear();
            assigned.clear();
            fetched.clear();
            waitingForAddress.clear();
        }
        for (final ReplicaFetcher f : all) {
            f.close();
        }
    }
}
