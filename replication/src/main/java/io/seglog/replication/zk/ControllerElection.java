package io.seglog.replication.zk;

/**
 * A won controller election.
 *
 * @param epoch          the new controller epoch (stored in {@code /controller_epoch})
 * @param epochZkVersion the version of {@code /controller_epoch} after the win: the fencing token of every write
 */
public record ControllerElection(int epoch, int epochZkVersion) {
}
