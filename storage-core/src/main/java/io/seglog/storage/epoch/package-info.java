/**
 * The leader-epoch cache of a partition: which leader epoch wrote which offsets, used by a follower to find
 * where its log diverges from the leader's (KIP-101, KIP-279) and persisted in the partition's
 * {@code leader-epoch-checkpoint}.
 */
package io.seglog.storage.epoch;
