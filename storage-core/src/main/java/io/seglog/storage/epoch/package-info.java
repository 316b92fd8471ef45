/**
 * The leader-epoch cache of a partition: which leader epoch wrote which offsets, used by a follower to find
 * where its log diverges from the leader's (KIP-101, KIP-279) and persisted in the partition's
 * {@code leader-epoch-checkpoint}.
 *
 * <p>Owns: the epoch entries and their checkpoint file; the partition log's append and truncation paths are its
 * only writers, and the API shows the entries as a read-only copy ({@code PartitionLog.leaderEpochs()}). Internal;
 * not exported.
 */
package io.seglog.storage.epoch;
