package io.seglog.replication.records;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads a coordinator record's key or value in Kafka's primitive encodings, trusting no length: every string, byte
 * array, array and tagged-field count is compared with the bytes left before anything is read or allocated, and a
 * malformed record is refused with the caller's exception naming the part, the field and the position. Not
 * thread-safe; one per record.
 */
public final class SchemaReader {
    /** Makes the exception a malformed record is refused with. */
    @FunctionalInterface
    public interface Malformed {
        /**
         * @param what     the part read (a key, a value of some kind)
         * @param field    the field being read
         * @param position its position from the start of that part
         * @param problem  what is wrong
         * @return the exception to throw
         */
        RuntimeException of(String what, String field, int position, String problem);
    }

    private final ByteBuffer buf;
    private final int start;
    private final String what;
    private final Malformed malformed;

    /**
     * Reads {@code source} from its position; the buffer itself is not moved.
     *
     * @param source    the bytes
     * @param what      the part read, for messages
     * @param malformed makes the exception for a malformed record
     */
    public SchemaReader(final ByteBuffer source, final String what, final Malformed malformed) {
        this.buf = source.duplicate();
        this.start = source.position();
        this.what = what;
        this.malformed = malformed;
    }

    /**
     * The exception for a malformed record at the current position.
     *
     * @param field   the field
     * @param problem what is wrong
     * @return the exception, to throw
     */
    public RuntimeException malformed(final String field, final String problem) {
        return malformed.of(what, field, buf.position() - start, problem);
    }

    /**
     * @return the bytes left
     */
    public int remaining() {
        return buf.remaining();
    }

    private void need(final int n, final String field) {
        if (n > buf.remaining()) {
            throw malformed(field, n + " bytes needed, " + buf.remaining() + " left");
        }
    }

    /**
     * @param field the field, for messages
     * @return the value
     */
    public byte int8(final String field) {
        need(Byte.BYTES, field);
        return buf.get();
    }

    /**
     * @param field the field, for messages
     * @return the value
     */
    public short int16(final String field) {
        need(Short.BYTES, field);
        return buf.getShort();
    }

    /**
     * @param field the field, for messages
     * @return the value
     */
    public int int32(final String field) {
        need(Integer.BYTES, field);
        return buf.getInt();
    }

    /**
     * @param field the field, for messages
     * @return the value
     */
    public long int64(final String field) {
        need(Long.BYTES, field);
        return buf.getLong();
    }

    /**
     * @param field the field, for messages
     * @return the unsigned varint's value
     */
    public int uvarint(final String field) {
        int value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            need(1, field);
            final byte b = buf.get();
            value |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                if (shift == 28 && (b & 0xf0) != 0) {
                    break;
                }
                return value;
            }
        }
        throw malformed(field, "an unsigned varint longer than 5 bytes or above 2^32-1");
    }

    /**
     * A size that must fit in what is left.
     *
     * @param field the field, for messages
     * @return the size
     */
    public int size(final String field) {
        final int n = uvarint(field);
        if (n < 0) {
            throw malformed(field, "a size of " + Integer.toUnsignedString(n));
        }
        need(n, field);
        return n;
    }

    /**
     * A count of tagged fields (each takes at least 2 bytes).
     *
     * @param field the field, for messages
     * @return the count
     */
    public int count(final String field) {
        final int n = uvarint(field);
        if (n < 0 || n > buf.remaining() / 2) {
            throw malformed(field, Integer.toUnsignedString(n) + " entries cannot fit in " + buf.remaining()
                + " bytes");
        }
        return n;
    }

    /**
     * An int32 array count, each entry at least a byte.
     *
     * @param field the field, for messages
     * @return the count
     */
    public int int32Count(final String field) {
        final int n = int32(field);
        if (n < 0 || n > buf.remaining()) {
            throw malformed(field, n + " entries cannot fit in " + buf.remaining() + " bytes");
        }
        return n;
    }

    /**
     * A compact (varint + 1) array count, each entry at least a byte; a null array is refused.
     *
     * @param field the field, for messages
     * @return the count
     */
    public int compactCount(final String field) {
        final int n = uvarint(field) - 1;
        if (n < 0 || n > buf.remaining()) {
            throw malformed(field, n < 0 ? "a null array" : n + " entries cannot fit in " + buf.remaining()
                + " bytes");
        }
        return n;
    }

    /**
     * @param field    the field, for messages
     * @param compact  a varint length + 1, else an int16 length
     * @param nullable whether null is allowed
     * @return the string (UTF-8 checked), or null
     */
    public String string(final String field, final boolean compact, final boolean nullable) {
        final int length = compact ? uvarint(field) - 1 : int16(field);
        if (length < 0) {
            if (nullable && length == -1) {
                return null;
            }
            throw malformed(field, length == -1 ? "null where a string is required" : "a length of " + length);
        }
        need(length, field);
        final ByteBuffer slice = buf.slice(buf.position(), length);
        buf.position(buf.position() + length);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(slice).toString();
        } catch (final CharacterCodingException e) {
            throw malformed(field, "bytes that are not UTF-8");
        }
    }

    /**
     * @param field   the field, for messages
     * @param compact a varint length + 1, else an int32 length
     * @return the bytes
     */
    public byte[] bytes(final String field, final boolean compact) {
        final int length = compact ? uvarint(field) - 1 : int32(field);
        if (length < 0) {
            throw malformed(field, "a length of " + length);
        }
        need(length, field);
        final byte[] out = new byte[length];
        buf.get(out);
        return out;
    }

    /**
     * @param n     bytes to skip
     * @param field the field, for messages
     */
    public void skip(final int n, final String field) {
        need(n, field);
        buf.position(buf.position() + n);
    }

    /**
     * Skips a tagged-field section.
     *
     * @param field the structure, for messages
     */
    public void skipTaggedFields(final String field) {
        final int tags = count(field + ".taggedFields");
        for (int i = 0; i < tags; i++) {
            uvarint(field + ".tag");
            skip(size(field + ".tagSize"), field + ".taggedField");
        }
    }

    /** Refuses bytes after the last field. */
    public void end() {
        if (buf.hasRemaining()) {
            throw malformed("end", buf.remaining() + " bytes left after the last field");
        }
    }
}
