package io.seglog.replication.zk;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker registrations ({@code /brokers/ids/<id>}, ephemeral, in Kafka's JSON): this broker's registration (Kafka's
 * {@code checkedEphemeralCreate}, with the wait for an expired session's znode), and the reads of the live brokers.
 * Each method is documented where it is public, on {@link KafkaZkStore}; this class owns nothing but its view of the
 * connection.
 *
 * <p>Thread-safe (stateless apart from the client).
 */
final class BrokerZnodes {
    /** Logs under the store's name, as before the split: operators' log settings name it. */
    private static final Logger LOG = LoggerFactory.getLogger(KafkaZkStore.class);
    private static final byte[] EMPTY = new byte[0];

    private final ZkConnection zk;
    private final FencedWrites fencing;

    BrokerZnodes(final ZkConnection zk, final FencedWrites fencing) {
        this.zk = zk;
        this.fencing = fencing;
    }

    long registerBroker(final BrokerRegistration registration, final long previousSessionId, final long waitMs,
                               final LongSupplier nanoClock) {
        final String path = ZkPaths.brokerPath(registration.id());
        final byte[] json = registration.toJson();
        final long deadlineNs = nanoClock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        long toldOwner = 0;
        while (true) {
            try {
                // create + setData in one multi: the setData result carries the stat, hence the czxid.
                final List<ZkStat> stats = zk.multi(List.of(new ZkOp.Create(path, EMPTY, true),
                    new ZkOp.SetData(path, json, 0)));
                return stats.get(1).czxid();
            } catch (final ZkException e) {
                if (e.error() != ZkError.NODE_EXISTS) {
                    throw e;
                }
            }
            final Optional<ZkNode> existing = zk.getData(path, null);
            if (existing.isEmpty()) {
                continue;
            }
            final ZkStat stat = existing.get().stat();
            final long owner = stat.ephemeralOwner();
            if (owner == zk.sessionId()) {
                // A retry after CONNECTIONLOSS: our own create had landed.
                if (!java.util.Arrays.equals(existing.get().data(), json)) {
                    zk.setData(path, json, stat.version());
                }
                return stat.czxid();
            }
            if (owner != 0 && owner == previousSessionId) {
                LOG.info("Deleting {} left by this broker's expired session 0x{}", path, Long.toHexString(owner));
                try {
                    zk.delete(path, stat.version());
                } catch (final ZkException e) {
                    if (e.error() != ZkError.NO_NODE && e.error() != ZkError.BAD_VERSION) {
                        throw e;
                    }
                }
                continue;
            }
            final long remainingNs = deadlineNs - nanoClock.getAsLong();
            if (remainingNs <= 0) {
                throw new ZkException(ZkError.NODE_EXISTS, path, new IllegalStateException("broker.id="
                    + registration.id() + " is registered by another live session 0x" + Long.toHexString(owner)));
            }
            if (owner != toldOwner) {
                // Once per holder, not per wait: a previous process of this broker whose session has not expired yet,
                // or another live broker with this id (then this one never registers).
                LOG.info("{} is held by session 0x{} (this broker's previous process, or another broker with broker.id="
                    + "{}); waiting up to {} ms for it to go", path, Long.toHexString(owner), registration.id(),
                    TimeUnit.NANOSECONDS.toMillis(remainingNs));
                toldOwner = owner;
            }
            awaitDeletion(path, remainingNs);
        }
    }

    void awaitDeletion(final String path, final long timeoutNs) {
        final CountDownLatch changed = new CountDownLatch(1);
        if (zk.exists(path, p -> changed.countDown()).isEmpty()) {
            return;
        }
        try {
            changed.await(Math.min(timeoutNs, TimeUnit.MILLISECONDS.toNanos(zk.requestTimeoutMs())),
                TimeUnit.NANOSECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ZkException(ZkError.OTHER, path, e);
        }
    }

    Map<Integer, BrokerInfo> brokers(final ZkWatch watch) {
        final List<String> children = zk.children(ZkPaths.BROKER_IDS, watch).orElse(List.of());
        final Map<Integer, CompletableFuture<Optional<ZkNode>>> pending = new LinkedHashMap<>();
        for (final String child : children) {
            final int id;
            try {
                id = ZkPaths.brokerIdFromChild(child);
            } catch (final MalformedZnodeException e) {
                KafkaZkStore.logMalformed(e);
                continue;
            }
            pending.put(id, zk.getDataAsync(ZkPaths.brokerPath(id), null));
        }
        final Map<Integer, BrokerInfo> brokers = new HashMap<>();
        final long deadlineNs = fencing.deadlineNs();
        for (final Map.Entry<Integer, CompletableFuture<Optional<ZkNode>>> e : pending.entrySet()) {
            final Optional<ZkNode> node = fencing.awaitBy(e.getValue(), ZkPaths.brokerPath(e.getKey()), deadlineNs);
            if (node.isEmpty()) {
                continue;
            }
            try {
                brokers.put(e.getKey(), new BrokerInfo(BrokerRegistration.fromJson(e.getKey(), node.get().data()),
                    node.get().stat().czxid()));
            } catch (final MalformedZnodeException ex) {
                KafkaZkStore.logMalformed(ex);
            }
        }
        return brokers;
    }

    Optional<BrokerInfo> broker(final int id) {
        final Optional<ZkNode> node = zk.getData(ZkPaths.brokerPath(id), null);
        if (node.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new BrokerInfo(BrokerRegistration.fromJson(id, node.get().data()),
                node.get().stat().czxid()));
        } catch (final MalformedZnodeException e) {
            KafkaZkStore.logMalformed(e);
            return Optional.empty();
        }
    }

    long registrationsUpTo() {
        return zk.exists(ZkPaths.BROKER_IDS, null).map(ZkStat::pzxid).orElse(0L);
    }
}
