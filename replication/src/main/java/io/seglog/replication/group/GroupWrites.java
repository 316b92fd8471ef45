package io.seglog.replication.group;

import io.seglog.replication.group.GroupRecords.GroupKey;
import io.seglog.replication.group.GroupRecords.GroupValue;
import io.seglog.replication.group.GroupRecords.MemberValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A {@link GroupManager}'s writes to its offsets partition: it owns the {@link GroupLog} and the write sequence.
 * Every write (a group's metadata, offset commits, tombstones) takes the next sequence number, in the order the
 * writes go to the log. Writes can complete in another order (two acks=all writes wait on different followers), so
 * {@link CommittedOffsets} applies a write's outcome for a partition only if no later write's is already shown, and
 * offset expiry deletes an emptied group only if its metadata was not written after the tombstone.
 *
 * <p>Only this class advances the sequence ({@link #nextSequence}, and {@link #writeMetadata}, which also tells the
 * group its metadata's number). Touched only on the coordinator's thread.
 */
final class GroupWrites {
    private static final byte[] EMPTY = new byte[0];

    private final GroupLog log;
    private long writeSequence;

    GroupWrites(final GroupLog log) {
        this.log = log;
    }

    /**
     * The sequence number of a write about to go to the log.
     *
     * @return the number, greater than every number taken before
     */
    long nextSequence() {
        return ++writeSequence;
    }

    /** Writes the group's metadata with these assignments, numbering the write in the group. */
    CompletableFuture<Void> writeMetadata(final ClassicGroup group, final Map<String, byte[]> assignment) {
        group.metadataSequence(nextSequence());
        final List<MemberValue> members = new ArrayList<>(group.size());
        for (final GroupMember m : group.members()) {
            final byte[] subscription = group.protocolName() == null ? null : m.metadata(group.protocolName());
            members.add(new MemberValue(m.memberId(), m.groupInstanceId(), m.clientId(), m.clientHost(),
                m.rebalanceTimeoutMs(), m.sessionTimeoutMs(), subscription == null ? EMPTY : subscription,
                assignment.getOrDefault(m.memberId(), EMPTY)));
        }
        final GroupValue value = new GroupValue(group.protocolType() == null ? "" : group.protocolType(),
            group.generationId(), group.protocolName(), group.leaderId(), group.stateTimestampMs(), members);
        return append(List.of(new GroupLog.Entry(GroupRecords.encode(new GroupKey(group.groupId())),
            GroupRecords.encode(value))), group.toString());
    }

    /**
     * Appends records; a log that throws gives a failed future instead.
     *
     * @param entries the records
     * @param what    names the write in the failure
     * @return completes once the records are committed
     */
    CompletableFuture<Void> append(final List<GroupLog.Entry> entries, final String what) {
        try {
            return log.append(entries);
        } catch (final RuntimeException e) {
            return CompletableFuture.failedFuture(new GroupWriteException(GroupError.UNKNOWN_SERVER_ERROR,
                "writing " + what + " failed: " + e));
        }
    }

    /** The error the requests waiting on a failed write answer. */
    static GroupError errorOf(final Throwable failure) {
        final Throwable cause = failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause() : failure;
        return cause instanceof GroupWriteException w ? w.error() : GroupError.UNKNOWN_SERVER_ERROR;
    }
}
