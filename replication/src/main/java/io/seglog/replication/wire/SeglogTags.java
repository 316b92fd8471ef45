package io.seglog.replication.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * Seglog's tagged fields inside Kafka's messages (flexible versions carry unknown tags through, and Kafka's brokers
 * ignore them).
 *
 * <pre>
 * FetchRequest v12+, per partition:
 *   tag 10000  DurableOffset  int64 big-endian  the follower's durable (fsynced) log end offset, for durable acks
 * </pre>
 *
 * <p>A value of the wrong size is ignored (read as absent), so a stray tag cannot make the leader count bytes that are
 * not on disk.
 */
final class SeglogTags {
    /** The follower's durable offset in a fetch partition. */
    static final int DURABLE_OFFSET = 10_000;

    private SeglogTags() {
    }

    /** The durable offset a fetch partition carries, or -1. */
    static long readDurableOffset(final List<RawTaggedField> fields) {
        if (fields == null) {
            return -1;
        }
        for (final RawTaggedField f : fields) {
            if (f.tag() == DURABLE_OFFSET && f.size() == Long.BYTES) {
                return Math.max(-1, ByteBuffer.wrap(f.data()).getLong());
            }
        }
        return -1;
    }

    /** A tagged-field list carrying a durable offset (none when it is -1). */
    static List<RawTaggedField> durableOffset(final long offset) {
        final List<RawTaggedField> fields = new ArrayList<>(1);
        if (offset >= 0) {
            fields.add(new RawTaggedField(DURABLE_OFFSET, ByteBuffer.allocate(Long.BYTES).putLong(offset).array()));
        }
        return fields;
    }
}
