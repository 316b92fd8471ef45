package io.seglog.replication.replica;

import io.seglog.storage.TopicPartition;

/**
 * Told when this broker's role for a partition changes, after the change took effect (a custom broker starts or stops
 * its own work per partition here: a cache, a consumer, an index). Called on the broker's control thread, one change
 * at a time, in the order the controller sent them; must not block for long (the next control message waits).
 */
public interface LeadershipListener {
    /** A listener that does nothing. */
    LeadershipListener NONE = new LeadershipListener() {
    };

    /**
     * A listener that tells each of several, in order; one that throws does not keep the others from being told
     * (the first failure is rethrown after all were told).
     *
     * @param listeners the listeners
     * @return their composition
     */
    static LeadershipListener all(final java.util.List<LeadershipListener> listeners) {
        final java.util.List<LeadershipListener> each = java.util.List.copyOf(listeners);
        return new LeadershipListener() {
            @Override
            public void onBecomeLeader(final TopicPartition tp, final int leaderEpoch) {
                tellAll(each, l -> l.onBecomeLeader(tp, leaderEpoch));
            }

            @Override
            public void onBecomeFollower(final TopicPartition tp, final int leaderId, final int leaderEpoch) {
                tellAll(each, l -> l.onBecomeFollower(tp, leaderId, leaderEpoch));
            }

            @Override
            public void onStopped(final TopicPartition tp, final boolean deleted) {
                tellAll(each, l -> l.onStopped(tp, deleted));
            }
        };
    }

    private static void tellAll(final java.util.List<LeadershipListener> listeners,
                                final java.util.function.Consumer<LeadershipListener> call) {
        RuntimeException first = null;
        for (final LeadershipListener l : listeners) {
            try {
                call.accept(l);
            } catch (final RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * This broker now leads the partition: it accepts produces and serves fetches.
     *
     * @param tp          the partition
     * @param leaderEpoch the leader epoch
     */
    default void onBecomeLeader(TopicPartition tp, int leaderEpoch) {
    }

    /**
     * This broker now follows the partition's leader (or waits for one when {@code leaderId} is -1).
     *
     * @param tp          the partition
     * @param leaderId    the leader, or -1 when there is none
     * @param leaderEpoch the leader epoch
     */
    default void onBecomeFollower(TopicPartition tp, int leaderId, int leaderEpoch) {
    }

    /**
     * This broker no longer hosts a replica of the partition (StopReplica).
     *
     * @param tp      the partition
     * @param deleted whether its log was deleted
     */
    default void onStopped(TopicPartition tp, boolean deleted) {
    }
}
