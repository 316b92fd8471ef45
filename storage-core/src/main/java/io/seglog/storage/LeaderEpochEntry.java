package io.seglog.storage;

import io.seglog.storage.checkpoint.EpochEntry;
import java.util.ArrayList;
import java.util.List;

/**
 * One entry of a log's leader-epoch history (its {@code leader-epoch-checkpoint}): from {@code startOffset} on,
 * batches were written in leader epoch {@code epoch}, until the next entry's start offset.
 *
 * @param epoch       the leader epoch
 * @param startOffset the first offset written in it
 */
public record LeaderEpochEntry(int epoch, long startOffset) {
    /** The API's view of a leader-epoch cache's entries, oldest first: an unmodifiable copy. */
    static List<LeaderEpochEntry> listOf(final List<EpochEntry> entries) {
        final List<LeaderEpochEntry> view = new ArrayList<>(entries.size());
        for (final EpochEntry entry : entries) {
            view.add(new LeaderEpochEntry(entry.epoch(), entry.startOffset()));
        }
        return List.copyOf(view);
    }
}
