package io.seglog.replication.group;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link GroupLog} for tests: it records every entry appended and holds each write's future until the test
 * completes it ({@link #auto} completes them at once).
 */
final class RecordingGroupLog implements GroupLog {
    final List<byte[]> keys = new ArrayList<>();
    final List<byte[]> values = new ArrayList<>();
    final List<CompletableFuture<Void>> writes = new ArrayList<>();
    /** For each entry, the index of the write it came in. */
    private final List<Integer> writeOf = new ArrayList<>();
    boolean auto = true;

    @Override
    public CompletableFuture<Void> append(final List<GroupLog.Entry> entries) {
        for (final GroupLog.Entry e : entries) {
            keys.add(e.key());
            values.add(e.value());
            writeOf.add(writes.size());
        }
        final CompletableFuture<Void> f = new CompletableFuture<>();
        writes.add(f);
        if (auto) {
            f.complete(null);
        }
        return f;
    }

    CompletableFuture<Void> lastWrite() {
        return writes.get(writes.size() - 1);
    }

    /** The last value appended, read as a group's metadata. */
    GroupRecords.GroupValue last() {
        return GroupRecords.decodeGroupValue(ByteBuffer.wrap(values.get(values.size() - 1)));
    }

    /** The record keys appended from index {@code from} on, decoded. */
    List<GroupRecords.Key> keysFrom(final int from) {
        final List<GroupRecords.Key> out = new ArrayList<>();
        for (int i = from; i < keys.size(); i++) {
            out.add(GroupRecords.decodeKey(ByteBuffer.wrap(keys.get(i))));
        }
        return out;
    }

    /**
     * Replays everything appended into another manager, as a new coordinator loading the partition; the entries of a
     * write that failed are not in the log.
     */
    void replayInto(final GroupManager manager) {
        for (int i = 0; i < keys.size(); i++) {
            if (writes.get(writeOf.get(i)).isCompletedExceptionally()) {
                continue;
            }
            manager.replay(ByteBuffer.wrap(keys.get(i)), values.get(i) == null ? null : ByteBuffer.wrap(values.get(i)));
        }
    }
}
