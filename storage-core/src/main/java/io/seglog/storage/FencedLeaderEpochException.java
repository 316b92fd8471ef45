package io.seglog.storage;

/**
 * A leader append refused because its leader epoch is below the log's latest: a newer leader's records (or its
 * epoch) reached this log, so this leader is fenced (thrown by {@link PartitionLog#appendAsLeader(java.nio.ByteBuffer,
 * int)}; the overload with a {@link LeaderAppendResult.Handler} answers {@link AppendOutcome#FENCED_LEADER_EPOCH}
 * instead). Names both epochs; nothing was appended. Not a caller mistake: it is an expected outcome of leadership
 * moving, which is why it is not an {@link IllegalArgumentException}.
 */
public final class FencedLeaderEpochException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int leaderEpoch;
    private final int latestLeaderEpoch;

    FencedLeaderEpochException(final LeaderAppendResult result) {
        super(result.message());
        this.leaderEpoch = result.leaderEpoch();
        this.latestLeaderEpoch = result.latestLeaderEpoch();
    }

    /**
     * The refused append's leader epoch.
     *
     * @return the epoch
     */
    public int leaderEpoch() {
        return leaderEpoch;
    }

    /**
     * The log's latest leader epoch, above {@link #leaderEpoch()}.
     *
     * @return the epoch
     */
    public int latestLeaderEpoch() {
        return latestLeaderEpoch;
    }
}
