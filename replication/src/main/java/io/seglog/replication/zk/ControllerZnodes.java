package io.seglog.replication.zk;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's seat ({@code /controller}, ephemeral) and epoch ({@code /controller_epoch}): reading who holds the
 * seat, the election (one atomic {@code multi} that takes the seat and bumps the epoch, whose new version is the
 * fencing token of the term), and the seat's release. Each method is documented where it is public, on
 * {@link KafkaZkStore}; this class owns nothing but its view of the connection.
 *
 * <p>Thread-safe (stateless apart from the client).
 */
final class ControllerZnodes {
    /** Logs under the store's name, as before the split: operators' log settings name it. */
    private static final Logger LOG = LoggerFactory.getLogger(KafkaZkStore.class);

    private final ZkConnection zk;
    private final FencedWrites fencing;

    ControllerZnodes(final ZkConnection zk, final FencedWrites fencing) {
        this.zk = zk;
        this.fencing = fencing;
    }

    OptionalInt controllerId(final ZkWatch watch) {
        final Optional<ZkNode> node = zk.getData(ZkPaths.CONTROLLER, watch);
        if (node.isEmpty()) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(ControllerZnode.fromJson(node.get().data()).brokerId());
        } catch (final MalformedZnodeException e) {
            KafkaZkStore.logMalformed(e);
            return OptionalInt.of(-1);
        }
    }

    Optional<ControllerElection> tryElectController(final int brokerId, final long timestampMs) {
        Optional<ZkNode> epochNode = zk.getData(ZkPaths.CONTROLLER_EPOCH, null);
        if (epochNode.isEmpty()) {
            try {
                zk.create(ZkPaths.CONTROLLER_EPOCH, ControllerEpochZnode.toBytes(ControllerEpochZnode.INITIAL_EPOCH),
                    false);
            } catch (final ZkException e) {
                if (e.error() != ZkError.NODE_EXISTS) {
                    throw e;
                }
            }
            epochNode = zk.getData(ZkPaths.CONTROLLER_EPOCH, null);
            if (epochNode.isEmpty()) {
                return Optional.empty();
            }
        }
        final int epoch = parseEpoch(epochNode.get());
        final int newEpoch = epoch + 1;
        try {
            final List<ZkStat> stats = zk.multi(List.of(
                new ZkOp.Create(ZkPaths.CONTROLLER, new ControllerZnode(brokerId, timestampMs).toJson(), true),
                new ZkOp.SetData(ZkPaths.CONTROLLER_EPOCH, ControllerEpochZnode.toBytes(newEpoch),
                    epochNode.get().stat().version())));
            return Optional.of(new ControllerElection(newEpoch, stats.get(1).version()));
        } catch (final ZkException e) {
            if (e.error() != ZkError.NODE_EXISTS && e.error() != ZkError.BAD_VERSION
                && e.error() != ZkError.CONNECTION_LOSS && e.error() != ZkError.TIMEOUT) {
                throw e;
            }
            // A retried multi may have landed the first time: if /controller is ours at newEpoch, we won.
            final OptionalInt current = controllerId(null);
            final Optional<ZkNode> after = zk.getData(ZkPaths.CONTROLLER_EPOCH, null);
            if (current.isPresent() && current.getAsInt() == brokerId && after.isPresent()
                && parseEpoch(after.get()) == newEpoch) {
                return Optional.of(new ControllerElection(newEpoch, after.get().stat().version()));
            }
            return Optional.empty();
        }
    }

    static int parseEpoch(final ZkNode node) {
        try {
            return ControllerEpochZnode.fromBytes(node.data());
        } catch (final MalformedZnodeException e) {
            KafkaZkStore.logMalformed(e);
            throw new ZkException(ZkError.OTHER, ZkPaths.CONTROLLER_EPOCH, e);
        }
    }

    Optional<Versioned<Integer>> controllerEpoch() {
        final Optional<ZkNode> node = zk.getData(ZkPaths.CONTROLLER_EPOCH, null);
        if (node.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Versioned<>(ControllerEpochZnode.fromBytes(node.get().data()),
                node.get().stat().version()));
        } catch (final MalformedZnodeException e) {
            KafkaZkStore.logMalformed(e);
            return Optional.empty();
        }
    }

    void deleteController(final int epochZkVersion) {
        try {
            fencing.fencedMulti(epochZkVersion, List.of(new ZkOp.Delete(ZkPaths.CONTROLLER, -1)));
        } catch (final ControllerMovedException e) {
            LOG.info("Not deleting {}: {}", ZkPaths.CONTROLLER, e.getMessage());
        } catch (final ZkException e) {
            if (e.error() != ZkError.NO_NODE) {
                throw e;
            }
        }
    }

    boolean deleteControllerIfOwnedBy(final long sessionId) {
        final Optional<ZkNode> node = zk.getData(ZkPaths.CONTROLLER, null);
        if (node.isEmpty() || node.get().stat().ephemeralOwner() != sessionId) {
            return false;
        }
        try {
            LOG.info("Deleting {} held by this broker's session 0x{} after it gave up the controllership",
                ZkPaths.CONTROLLER, Long.toHexString(sessionId));
            zk.delete(ZkPaths.CONTROLLER, node.get().stat().version());
            return true;
        } catch (final ZkException e) {
            if (e.error() == ZkError.NO_NODE || e.error() == ZkError.BAD_VERSION) {
                return false;
            }
            throw e;
        }
    }
}
