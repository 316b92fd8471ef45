package io.seglog.storage;

/**
 * One entry of a log's leader-epoch history (its {@code leader-epoch-checkpoint}): from {@code startOffset} on,
 * batches were written in leader epoch {@code epoch}, until the next entry's start offset.
 *
 * @param epoch       the leader epoch
 * @param startOffset the first offset written in it
 */
public record LeaderEpochEntry(int epoch, long startOffset) {
}
