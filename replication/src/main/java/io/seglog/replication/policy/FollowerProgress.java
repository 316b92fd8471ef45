package io.seglog.replication.policy;

/**
 * What a leader knows of one follower of one partition (Kafka's {@code Replica} state): the follower's log end and
 * start offsets as its last fetch reported them, the durable offset it reported (Seglog's durable acks), and when it
 * was last caught up. The leader updates it on every fetch from that follower ({@link #onFetch}); the high-watermark
 * and ISR rules read it ({@link IsrRules}).
 *
 * <p>The caught-up rule is Kafka's: a fetch at or past the leader's log end at the time of the fetch proves the
 * follower caught up at that moment; a fetch at or past the leader's log end <em>of the previous fetch</em> proves it
 * was caught up when it sent the previous one. The second half keeps a follower that always trails a busy leader by
 * one round trip in sync.
 *
 * <p>Not thread-safe: the leader guards it.
 */
public final class FollowerProgress {
    /** Kafka's {@code UnifiedLog.UnknownOffset}: no fetch seen since this replica became leader. */
    public static final long UNKNOWN_OFFSET = -1L;
    /**
     * "Never", on a monotonic clock whose zero may be recent (Kafka's wall-clock 0 is 1970, ours is the broker's
     * start): far enough in the past that no lag limit counts it as caught up, near enough that {@code now - NEVER}
     * cannot overflow.
     */
    public static final long NEVER = Long.MIN_VALUE / 4;

    private final int brokerId;
    private long logEndOffset = UNKNOWN_OFFSET;
    private long logStartOffset = UNKNOWN_OFFSET;
    private long durableOffset = UNKNOWN_OFFSET;
    private long lastCaughtUpTimeMs = NEVER;
    private long lastFetchLeaderLogEndOffset = UNKNOWN_OFFSET;
    private long lastFetchTimeMs = NEVER;
    private long brokerEpoch = -1;

    /**
     * A follower the leader knows nothing of yet.
     *
     * @param brokerId the follower's broker id
     */
    public FollowerProgress(final int brokerId) {
        this.brokerId = brokerId;
    }

    /**
     * Forgets the follower's offsets when this replica becomes leader (Kafka's {@code resetReplicaState} for a new
     * leader): a follower in the ISR is taken as caught up now, so that it is not shrunk out before its first fetch;
     * one outside it as never caught up.
     *
     * @param nowMs    the leader's clock
     * @param inSync   whether the follower is in the ISR the leader starts with
     */
    public void resetForNewLeader(final long nowMs, final boolean inSync) {
        logEndOffset = UNKNOWN_OFFSET;
        logStartOffset = UNKNOWN_OFFSET;
        durableOffset = UNKNOWN_OFFSET;
        lastFetchLeaderLogEndOffset = UNKNOWN_OFFSET;
        lastFetchTimeMs = NEVER;
        lastCaughtUpTimeMs = inSync ? nowMs : NEVER;
    }

    /**
     * Keeps the follower's offsets when this replica is leader again in a newer epoch (Kafka's
     * {@code resetReplicaState} for a re-elected leader): an ISR member is taken as caught up and as having fetched
     * now; one outside the ISR as never, so that it does not join before it fetches again.
     *
     * @param nowMs              the leader's clock
     * @param leaderLogEndOffset the leader's log end offset
     * @param inSync             whether the follower is in the new ISR
     */
    public void resetForReelectedLeader(final long nowMs, final long leaderLogEndOffset, final boolean inSync) {
        lastFetchLeaderLogEndOffset = leaderLogEndOffset;
        lastFetchTimeMs = inSync ? nowMs : NEVER;
        lastCaughtUpTimeMs = inSync ? nowMs : NEVER;
    }

    /**
     * Records a fetch from the follower (Kafka's {@code Replica.updateFetchStateOrThrow}).
     *
     * @param fetchOffset       the offset the follower fetches from: its log end offset
     * @param followerStartOffset the follower's log start offset
     * @param durable           the follower's durable (fsynced) end offset, or {@link #UNKNOWN_OFFSET} when it did
     *                          not say
     * @param leaderLogEndOffset the leader's log end offset when the fetch arrived (before it read)
     * @param nowMs             when the fetch arrived, on the leader's monotonic clock
     * @param followerBrokerEpoch the follower's broker epoch, or -1 when the request did not carry it
     */
    public void onFetch(final long fetchOffset, final long followerStartOffset, final long durable,
                        final long leaderLogEndOffset, final long nowMs, final long followerBrokerEpoch) {
        if (fetchOffset >= leaderLogEndOffset) {
            lastCaughtUpTimeMs = Math.max(lastCaughtUpTimeMs, nowMs);
        } else if (fetchOffset >= lastFetchLeaderLogEndOffset && lastFetchLeaderLogEndOffset != UNKNOWN_OFFSET) {
            lastCaughtUpTimeMs = Math.max(lastCaughtUpTimeMs, lastFetchTimeMs);
        }
        logEndOffset = fetchOffset;
        logStartOffset = followerStartOffset;
        // A durable offset never passes what the follower holds: it may report a stale one from before a truncation.
        durableOffset = durable == UNKNOWN_OFFSET ? UNKNOWN_OFFSET : Math.min(durable, fetchOffset);
        lastFetchLeaderLogEndOffset = leaderLogEndOffset;
        lastFetchTimeMs = nowMs;
        brokerEpoch = followerBrokerEpoch;
    }

    /**
     * Kafka's {@code isCaughtUp}: the follower holds everything the leader does, or was caught up within the lag.
     *
     * @param leaderLogEndOffset the leader's log end offset now
     * @param nowMs              the leader's clock
     * @param maxLagMs           {@code replica.lag.time.max.ms}
     * @return whether the follower counts as caught up
     */
    public boolean isCaughtUp(final long leaderLogEndOffset, final long nowMs, final long maxLagMs) {
        return leaderLogEndOffset == logEndOffset || nowMs - lastCaughtUpTimeMs <= maxLagMs;
    }

    /**
     * The follower's broker id.
     *
     * @return the id
     */
    public int brokerId() {
        return brokerId;
    }

    /**
     * The follower's log end offset as its last fetch reported it.
     *
     * @return the offset, or {@link #UNKNOWN_OFFSET} before its first fetch to this leader
     */
    public long logEndOffset() {
        return logEndOffset;
    }

    /**
     * The follower's log start offset as its last fetch reported it.
     *
     * @return the offset, or {@link #UNKNOWN_OFFSET}
     */
    public long logStartOffset() {
        return logStartOffset;
    }

    /**
     * The follower's durable end offset as its last fetch reported it (never above its log end offset).
     *
     * @return the offset, or {@link #UNKNOWN_OFFSET} when it did not report one
     */
    public long durableOffset() {
        return durableOffset;
    }

    /**
     * When the follower was last known caught up, on the leader's clock.
     *
     * @return milliseconds, {@link #NEVER} when never
     */
    public long lastCaughtUpTimeMs() {
        return lastCaughtUpTimeMs;
    }

    /**
     * When the follower last fetched, on the leader's clock.
     *
     * @return milliseconds, {@link #NEVER} when never
     */
    public long lastFetchTimeMs() {
        return lastFetchTimeMs;
    }

    /**
     * The broker epoch the follower's last fetch carried.
     *
     * @return the epoch, or -1
     */
    public long brokerEpoch() {
        return brokerEpoch;
    }

    @Override
    public String toString() {
        return "FollowerProgress[brokerId=" + brokerId + ", logEndOffset=" + logEndOffset + ", durableOffset="
            + durableOffset + ", lastCaughtUpTimeMs=" + lastCaughtUpTimeMs + ", lastFetchTimeMs=" + lastFetchTimeMs
            + "]";
    }
}
