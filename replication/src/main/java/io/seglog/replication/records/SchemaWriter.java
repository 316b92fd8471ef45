package io.seglog.replication.records;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes a coordinator record's key or value in Kafka's primitive encodings (big-endian ints, unsigned varints,
 * int16- or varint-prefixed strings and bytes), as Kafka's generated message classes write them. Not thread-safe; one
 * per record.
 */
public final class SchemaWriter {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(64);

    /**
     * @param v the low 8 bits are written
     */
    public void int8(final int v) {
        out.write(v);
    }

    /**
     * @param v the low 16 bits are written
     */
    public void int16(final int v) {
        out.write(v >>> 8);
        out.write(v);
    }

    /**
     * @param v the value
     */
    public void int32(final int v) {
        int16(v >>> 16);
        int16(v);
    }

    /**
     * @param v the value
     */
    public void int64(final long v) {
        int32((int) (v >>> 32));
        int32((int) v);
    }

    /**
     * @param v the value, as an unsigned varint
     */
    public void uvarint(final int v) {
        int value = v;
        while ((value & 0xffffff80) != 0) {
            out.write((value & 0x7f) | 0x80);
            value >>>= 7;
        }
        out.write(value);
    }

    /**
     * @param s       the string, or null
     * @param compact a varint length + 1 (flexible versions), else an int16 length
     */
    public void string(final String s, final boolean compact) {
        if (s == null) {
            if (compact) {
                uvarint(0);
            } else {
                int16(-1);
            }
            return;
        }
        final byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        if (!compact && utf8.length > Short.MAX_VALUE) {
            throw new IllegalArgumentException("a string of " + utf8.length + " bytes is longer than an int16"
                + " length allows (" + Short.MAX_VALUE + ")");
        }
        if (compact) {
            uvarint(utf8.length + 1);
        } else {
            int16(utf8.length);
        }
        out.writeBytes(utf8);
    }

    /**
     * @param b       the bytes
     * @param compact a varint length + 1 (flexible versions), else an int32 length
     */
    public void bytes(final byte[] b, final boolean compact) {
        if (compact) {
            uvarint(b.length + 1);
        } else {
            int32(b.length);
        }
        out.writeBytes(b);
    }

    /**
     * @return what was written
     */
    public byte[] bytes() {
        return out.toByteArray();
    }
}
