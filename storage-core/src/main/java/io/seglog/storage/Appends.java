package io.seglog.storage;

import io.seglog.storage.log.Appender;
import io.seglog.storage.log.LogWriteException;
import io.seglog.storage.log.Watermarks;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The append entry points of one {@link PartitionLog} (leader and follower): it owns the answer to the leader append
 * in progress, one {@link LeaderAppendResult} reused under the append lock, so that no outcome costs an allocation.
 * The append itself (validation, stamping, roll, write, publish) is {@link Appender}'s; the lock is the log's, lent
 * here; what follows an append (the {@code flush.messages} rule, the flush of a rolled segment) is
 * {@link Flushing}'s, after the lock is released.
 *
 * <p>Threads: the answer is written and read only under the append lock.
 */
final class Appends {
    /** The directory's name (topic-partition), for producer-state messages; kept so an append allocates none. */
    private final String name;
    private final ReentrantLock appendLock;
    private final Appender appender;
    private final Watermarks watermarks;
    private final LogHealth health;
    private final Flushing flushing;
    /** The answer to the leader append in progress: written and read only under {@link #appendLock}. */
    private final LeaderAppendResult leaderAnswer = new LeaderAppendResult();

    Appends(final String name, final ReentrantLock appendLock, final Appender appender, final Watermarks watermarks,
            final LogHealth health, final Flushing flushing) {
        this.name = name;
        this.appendLock = appendLock;
        this.appender = appender;
        this.watermarks = watermarks;
        this.health = health;
        this.flushing = flushing;
    }

    /** {@link PartitionLog#appendAsLeader(ByteBuffer, int)}: a refusal as its exception. */
    long appendAsLeader(final ByteBuffer batches, final int leaderEpoch) {
        final long lastOffset;
        appendLock.lock();
        try {
            appendLocked(batches, leaderEpoch);
            lastOffset = lastOffsetOrRefusal();
        } finally {
            appendLock.unlock();
        }
        flushing.afterAppend();
        return lastOffset;
    }

    /** {@link PartitionLog#appendAsLeader(ByteBuffer, int, LeaderAppendResult.Handler)}: the answer to a handler. */
    <T> T appendAsLeader(final ByteBuffer batches, final int leaderEpoch, final LeaderAppendResult.Handler<T> handler) {
        final T answer;
        final boolean appended;
        appendLock.lock();
        try {
            appendLocked(batches, leaderEpoch);
            appended = leaderAnswer.outcome() == AppendOutcome.APPENDED;
            answer = handler.onLeaderAppend(leaderAnswer);
        } finally {
            appendLock.unlock();
        }
        if (appended) {
            flushing.afterAppend();
        }
        return answer;
    }

    /** The answer's last offset, or its refusal as the exception the exception-style entry points throw. */
    private long lastOffsetOrRefusal() {
        switch (leaderAnswer.outcome()) {
            case OUT_OF_ORDER_SEQUENCE:
                throw new OutOfOrderSequenceException(leaderAnswer);
            case INVALID_PRODUCER_EPOCH:
                throw new InvalidProducerEpochException(leaderAnswer);
            case TRANSACTION_COORDINATOR_FENCED:
                throw new TransactionCoordinatorFencedException(leaderAnswer);
            case FENCED_LEADER_EPOCH:
                throw new FencedLeaderEpochException(leaderAnswer);
            default:
                return leaderAnswer.lastOffset();
        }
    }

    /** The append under the lock: fills {@link #leaderAnswer}, valid until the lock is released. */
    private void appendLocked(final ByteBuffer batches, final int leaderEpoch) {
        if (leaderEpoch < 0) {
            throw new IllegalArgumentException("leaderEpoch=" + leaderEpoch + " must be >= 0");
        }
        try {
            health.ensureWritable();
            leaderAnswer.begin(name, leaderEpoch, batches.remaining(), appender.logAppendTime());
            appender.appendAsLeader(batches, leaderEpoch, leaderAnswer.sink());
            leaderAnswer.end(watermarks.logStartOffset());
        } catch (final LogWriteException e) {
            throw health.goOffline(e.what(), e.getCause());
        }
    }

    /** {@link PartitionLog#appendTransactionMarker}: a refusal as its exception. */
    long appendTransactionMarker(final long producerId, final short producerEpoch, final int coordinatorEpoch,
                                 final boolean commit, final int leaderEpoch) {
        if (leaderEpoch < 0) {
            throw new IllegalArgumentException("leaderEpoch=" + leaderEpoch + " must be >= 0");
        }
        final long offset;
        appendLock.lock();
        try {
            health.ensureWritable();
            leaderAnswer.begin(name, leaderEpoch, 0, appender.logAppendTime());
            appender.appendMarkerAsLeader(producerId, producerEpoch, coordinatorEpoch, commit, leaderEpoch,
                leaderAnswer.sink());
            leaderAnswer.end(watermarks.logStartOffset());
            offset = lastOffsetOrRefusal();
        } catch (final LogWriteException e) {
            throw health.goOffline(e.what(), e.getCause());
        } finally {
            appendLock.unlock();
        }
        flushing.afterAppend();
        return offset;
    }

    /** {@link PartitionLog#appendAsFollower}. */
    long appendAsFollower(final ByteBuffer batches) {
        final long lastOffset;
        appendLock.lock();
        try {
            health.ensureWritable();
            lastOffset = appender.appendAsFollower(batches);
        } catch (final LogWriteException e) {
            throw health.goOffline(e.what(), e.getCause());
        } finally {
            appendLock.unlock();
        }
        flushing.afterAppend();
        return lastOffset;
    }

    /** {@link PartitionLog#beginLeaderEpoch}. */
    long beginLeaderEpoch(final int leaderEpoch) {
        if (leaderEpoch < 0) {
            throw new IllegalArgumentException("leaderEpoch=" + leaderEpoch + " must be >= 0");
        }
        appendLock.lock();
        try {
            health.ensureWritable();
            return appender.beginEpoch(leaderEpoch);
        } catch (final LogWriteException e) {
            throw health.goOffline(e.what(), e.getCause());
        } finally {
            appendLock.unlock();
        }
    }
}
