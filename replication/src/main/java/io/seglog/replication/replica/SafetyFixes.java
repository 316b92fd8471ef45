package io.seglog.replication.replica;

/**
 * Switches for replication fixes Kafka needed after losing or diverging data, all on ({@link #ALL}). Nothing in a
 * broker turns one off, and no property reaches them: only the deterministic cluster simulation does, one at a time,
 * to prove that it finds the loss or divergence each fix prevents.
 *
 * @param truncateByLeaderEpoch  KIP-101 and KIP-595: a follower settles with its leader by leader epoch; off, it
 *                               truncates to its own high watermark when it starts following, and fetches without
 *                               its last epoch (Kafka before 0.11)
 * @param leaderEpochAtElection  KAFKA-7415: a new leader records its epoch at its log end when elected; off, the
 *                               epoch is recorded only when the first batch of it is appended
 * @param currentEpochToJoinIsr  KAFKA-7128: a follower joins the ISR only once it has caught up to the start of the
 *                               leader's current epoch; off, reaching the high watermark is enough
 */
public record SafetyFixes(boolean truncateByLeaderEpoch, boolean leaderEpochAtElection,
                          boolean currentEpochToJoinIsr) {
    /** Every fix on: what a broker runs. */
    public static final SafetyFixes ALL = new SafetyFixes(true, true, true);
}
