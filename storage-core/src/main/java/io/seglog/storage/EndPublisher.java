package io.seglog.storage;

import io.seglog.storage.segment.LogSegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The writer side of the sequence lock over a {@link PartitionLog}'s published end (offset, segment, position),
 * with release stores instead of volatile ones: on x86 a volatile store is a full fence, five per append here, a
 * release store is a plain store. No reader sees a torn triple: each release store orders every earlier store
 * before it, so the odd sequence is visible before any field of the new triple and the fields before the even
 * sequence; readers ({@code ReadPath}) load the sequence, the fields and the sequence again with volatile (acquire)
 * loads, so a field of a newer triple makes the second sequence load see that triple's odd (or a later) value, and
 * the reader retries.
 *
 * <p>Thread-safety: stateless; {@link #publish} is called by the log's appender only (under the append lock, or
 * while the log is not yet shared).
 */
final class EndPublisher {
    private static final VarHandle END_SEQ;
    private static final VarHandle END_OFFSET;
    private static final VarHandle END_SEGMENT;
    private static final VarHandle END_POSITION;

    static {
        try {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            END_SEQ = lookup.findVarHandle(PartitionLog.class, "endSeq", int.class);
            END_OFFSET = lookup.findVarHandle(PartitionLog.class, "endOffset", long.class);
            END_SEGMENT = lookup.findVarHandle(PartitionLog.class, "endSegment", LogSegment.class);
            END_POSITION = lookup.findVarHandle(PartitionLog.class, "endPosition", int.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private EndPublisher() {
    }

    static void publish(final PartitionLog log, final long offset, final LogSegment segment, final int position) {
        final int seq = log.endSeq;
        END_SEQ.setRelease(log, seq + 1);
        END_OFFSET.setRelease(log, offset);
        END_SEGMENT.setRelease(log, segment);
        END_POSITION.setRelease(log, position);
        END_SEQ.setRelease(log, seq + 2);
    }
}
