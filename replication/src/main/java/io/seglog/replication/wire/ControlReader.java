package io.seglog.replication.wire;

import static io.seglog.replication.wire.ControlCodec.FIRST_VERSION;
import static io.seglog.replication.wire.ControlCodec.INT16_LENGTH;
import static io.seglog.replication.wire.ControlCodec.INT32_LENGTH;
import static io.seglog.replication.wire.ControlCodec.INT64_LENGTH;
import static io.seglog.replication.wire.ControlCodec.INT8_LENGTH;
import static io.seglog.replication.wire.ControlCodec.PARTITION_ORDER;

import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads one body, checking every field before it is used: nothing is read past the limit, and a count is
 * compared with the bytes left before anything is allocated for it. Reads a duplicate, so the caller's buffer
 * keeps its position (and a little-endian order set on it does not matter).
 *
 * <p>It owns the duplicate's position, the UTF-8 decoder and the array entry being read (named in errors); one
 * instance per body, on the decoding thread. What it refuses is a {@link MalformedControlMessageException} naming the
 * message, field, position and value.
 */
final class ControlReader {
    private final String messageType;
    private final ByteBuffer buffer;
    private final int start;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder();
    /** The array being read and the entry's index, named in errors; null outside arrays. */
    private String array;
    private int index;

    ControlReader(final String messageType, final ByteBuffer body) {
        this.messageType = messageType;
        this.buffer = body.duplicate(); // a duplicate is big-endian whatever the original's order
        this.start = buffer.position();
    }

    void checkVersion(final short version, final short latest) {
        if (version < FIRST_VERSION || version > latest) {
            throw new MalformedControlMessageException(messageType, "version",
                MalformedControlMessageException.IN_HEADER, String.valueOf(version), "only " + FIRST_VERSION
                + " to " + latest + " are known", null);
        }
    }

    int offset() {
        return buffer.position() - start;
    }

    void element(final String arrayName, final int entry) {
        this.array = arrayName;
        this.index = entry;
    }

    MalformedControlMessageException malformed(final String field, final int at, final String found,
                                           final String rule) {
        return malformed(field, at, found, rule, null);
    }

    MalformedControlMessageException malformed(final String field, final int at, final String found,
                                           final String rule, final Throwable cause) {
        final String path = array == null ? field : array + "[" + index + "]." + field;
        return new MalformedControlMessageException(messageType, path, at, found, rule, cause);
    }

    /** Fails unless {@code bytes} are left; the field's name is {@code field + suffix}, built only then. */
    private void need(final String field, final String suffix, final int bytes) {
        if (buffer.remaining() < bytes) {
            throw malformed(field + suffix, offset(), buffer.remaining() + " bytes left", "needs " + bytes);
        }
    }

    int int32(final String field) {
        need(field, "", INT32_LENGTH);
        return buffer.getInt();
    }

    long int64(final String field) {
        need(field, "", INT64_LENGTH);
        return buffer.getLong();
    }

    boolean bool(final String field) {
        final int at = offset();
        need(field, "", INT8_LENGTH);
        final byte value = buffer.get();
        if (value != 0 && value != 1) {
            throw malformed(field, at, String.valueOf(value), "a boolean is 0 or 1");
        }
        return value == 1;
    }

    int int32AtLeast(final String field, final int min) {
        final int at = offset();
        final int value = int32(field);
        if (value < min) {
            throw malformed(field, at, String.valueOf(value), "must be at least " + min);
        }
        return value;
    }

    int brokerId(final String field) {
        return int32AtLeast(field, 0);
    }

    short errorCode(final String field, final short... allowed) {
        final int at = offset();
        need(field, "", INT16_LENGTH);
        final short code = buffer.getShort();
        for (final short ok : allowed) {
            if (code == ok) {
                return code;
            }
        }
        throw malformed(field, at, String.valueOf(code), "must be one of " + Arrays.toString(allowed));
    }

    /** An array's count, bounded by the bytes left: each entry takes at least {@code minEntryBytes}. */
    int count(final String field, final int minEntryBytes) {
        final int at = offset();
        need(field, " count", INT32_LENGTH);
        final int count = buffer.getInt();
        if (count < 0) {
            throw malformed(field + " count", at, String.valueOf(count), "must be 0 or more");
        }
        if ((long) count * minEntryBytes > buffer.remaining()) {
            throw malformed(field + " count", at, String.valueOf(count), "needs at least "
                + (long) count * minEntryBytes + " bytes, " + buffer.remaining() + " left");
        }
        return count;
    }

    List<Integer> brokerIds(final String field) {
        final int count = count(field, INT32_LENGTH);
        final List<Integer> ids = new ArrayList<>(count);
        final Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < count; i++) {
            final int at = offset();
            final int id = buffer.getInt(); // count() has checked that all of them are there
            if (id < 0 || !seen.add(id)) {
                throw malformed(field + "[" + i + "]", at, String.valueOf(id), id < 0 ? "must be at least 0"
                    : "broker ids must be distinct");
            }
            ids.add(id);
        }
        return ids;
    }

    String string(final String field, final boolean nullable) {
        final int at = offset();
        need(field, " length", INT16_LENGTH);
        final short length = buffer.getShort();
        if (length == -1 && nullable) {
            return null;
        }
        if (length < 0) {
            throw malformed(field + " length", at, String.valueOf(length), nullable
                ? "must be -1 (null) or 0 to 32767" : "must be 0 to 32767 (not nullable)");
        }
        need(field, "", length);
        final ByteBuffer bytes = buffer.slice(buffer.position(), length);
        try {
            final String value = utf8.decode(bytes).toString();
            buffer.position(buffer.position() + length);
            return value;
        } catch (final CharacterCodingException e) {
            throw malformed(field, at, length + " bytes that are not UTF-8", "strict UTF-8", e);
        }
    }

    /** A TopicPartition, which must come after {@code previous} in {@link ControlCodec#PARTITION_ORDER}. */
    TopicPartition topicPartition(final TopicPartition previous) {
        final int at = offset();
        final String topic = string("topic", false);
        try {
            TopicPartition.validateTopic(topic);
        } catch (final IllegalArgumentException e) {
            throw malformed("topic", at, topic, e.getMessage(), e);
        }
        final int partition = int32AtLeast("partition", 0);
        final TopicPartition tp = new TopicPartition(topic, partition);
        if (previous != null && PARTITION_ORDER.compare(previous, tp) >= 0) {
            throw malformed("(topic, partition)", at, tp.toString(), "partitions must ascend by topic then "
                + "number, after " + previous);
        }
        return tp;
    }

    void end() {
        if (buffer.hasRemaining()) {
            throw malformed("end of body", offset(), buffer.remaining() + " more bytes", "nothing follows the body");
        }
    }
}
