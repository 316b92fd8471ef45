package io.seglog.replication.wire;

import static io.seglog.replication.wire.ControlCodec.INT16_LENGTH;
import static io.seglog.replication.wire.ControlCodec.INT32_LENGTH;
import static io.seglog.replication.wire.ControlCodec.INT64_LENGTH;
import static io.seglog.replication.wire.ControlCodec.INT8_LENGTH;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Where a control message's writer puts the body ({@link ControlCodec}'s primitives, big-endian): a size counter with
 * no buffer in the first pass, the buffer in the second. It owns the buffer being filled and the count of bytes
 * written; one instance per pass, on the encoding thread.
 */
final class ControlWriter {
    private final ByteBuffer buffer;
    private long size;

    private ControlWriter(final ByteBuffer buffer) {
        this.buffer = buffer;
    }

    /**
     * Runs a writer twice: once to size the body, once to fill a buffer of exactly that size, so nothing is resized
     * or copied. Strings are UTF-8-encoded in both passes; control messages are rare enough for that to cost nothing
     * that matters, and it keeps one writer per message instead of a writer and a sizer that could disagree.
     */
    static ByteBuffer encode(final Consumer<ControlWriter> writer) {
        final ControlWriter sizing = new ControlWriter(null);
        writer.accept(sizing);
        if (sizing.size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("message size=" + sizing.size + " bytes exceeds what a frame can carry");
        }
        final ByteBuffer buffer = ByteBuffer.allocate((int) sizing.size);
        writer.accept(new ControlWriter(buffer));
        if (buffer.hasRemaining()) {
            throw new IllegalStateException("sized " + sizing.size + " bytes but wrote " + buffer.position());
        }
        return buffer.flip();
    }

    void int8(final int value) {
        size += INT8_LENGTH;
        if (buffer != null) {
            buffer.put((byte) value);
        }
    }

    void bool(final boolean value) {
        int8(value ? 1 : 0);
    }

    void int16(final int value) {
        size += INT16_LENGTH;
        if (buffer != null) {
            buffer.putShort((short) value);
        }
    }

    void int32(final int value) {
        size += INT32_LENGTH;
        if (buffer != null) {
            buffer.putInt(value);
        }
    }

    void int64(final long value) {
        size += INT64_LENGTH;
        if (buffer != null) {
            buffer.putLong(value);
        }
    }

    void string(final String field, final String value, final boolean nullable) {
        if (value == null) {
            if (!nullable) {
                throw new IllegalArgumentException(field + "=null is not nullable");
            }
            int16(-1);
            return;
        }
        final ByteBuffer utf8;
        try {
            // A strict encoder: String.getBytes would write '?' for a lone surrogate, which decodes differently.
            utf8 = StandardCharsets.UTF_8.newEncoder().encode(CharBuffer.wrap(value));
        } catch (final CharacterCodingException e) {
            throw new IllegalArgumentException(field + "=" + value + " is not valid Unicode", e);
        }
        if (utf8.remaining() > Short.MAX_VALUE) {
            throw new IllegalArgumentException(field + " length=" + utf8.remaining() + " bytes exceeds "
                + Short.MAX_VALUE);
        }
        int16(utf8.remaining());
        size += utf8.remaining();
        if (buffer != null) {
            buffer.put(utf8);
        }
    }
}
