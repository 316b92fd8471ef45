package io.seglog.bench.legacy;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Zig-zag variable-length integers as Kafka's records use them (protobuf's encoding): 7 bits per byte, least
 * significant group first, the high bit set on every byte but the last; a signed value {@code v} is first
 * mapped to {@code (v << 1) ^ (v >> 31)} (or {@code >> 63}) so that small negative numbers stay short.
 *
 * <p>Reads are bounded: a varint may not run past the caller's limit nor beyond 5 bytes (10 for a varlong).
 * Errors are reported as negative return values, not exceptions, because the validator runs them over
 * untrusted bytes on the append path. Like Kafka's {@code ByteUtils}, the bits of the last allowed byte that
 * do not fit the type are ignored rather than rejected, so exactly the inputs Kafka accepts are accepted.
 *
 * <p>Stateless; thread-safe.
 */
final class Varint {
    /** Maximum encoded size of a 32-bit varint. */
    static final int MAX_VARINT_LENGTH = 5;
    /** Maximum encoded size of a 64-bit varlong. */
    static final int MAX_VARLONG_LENGTH = 10;
    /** The limit was reached before the last byte of the varint. */
    static final int TRUNCATED = -1;
    /** The varint still had its continuation bit set on its 5th (varlong: 10th) byte. */
    static final int TOO_LONG = -2;

    private Varint() {
    }

    /**
     * Reads a zig-zag varint from {@code [index, limit)}.
     *
     * @param buffer the bytes.
     * @param index  position of the first byte.
     * @param limit  first position that may not be read.
     * @return on success {@code (size << 32) | (value & 0xffffffffL)} with size in 1..5 (decode it with
     *     {@link #size(long)} and {@link #value(long)}); otherwise {@link #TRUNCATED} or {@link #TOO_LONG}.
     */
    static long readVarint(final DirectBuffer buffer, final int index, final int limit) {
        if (index < limit) {
            // Most record fields (attributes aside) are one-byte varints: small deltas, short lengths.
            final int first = buffer.getByte(index);
            if (first >= 0) {
                return (1L << 32) | (((first >>> 1) ^ -(first & 1)) & 0xffffffffL);
            }
        }
        int raw = 0;
        int shift = 0;
        int position = index;
        while (true) {
            if (position >= limit) {
                return TRUNCATED;
            }
            final int b = buffer.getByte(position++);
            raw |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
            shift += 7;
            if (shift >= 7 * MAX_VARINT_LENGTH) {
                return TOO_LONG;
            }
        }
        final int value = (raw >>> 1) ^ -(raw & 1);
        return ((long) (position - index) << 32) | (value & 0xffffffffL);
    }

    /**
     * Size part of a successful {@link #readVarint} result.
     *
     * @param packed the result.
     * @return the number of bytes the varint occupied.
     */
    static int size(final long packed) {
        return (int) (packed >>> 32);
    }

    /**
     * Value part of a successful {@link #readVarint} result.
     *
     * @param packed the result.
     * @return the decoded value.
     */
    static int value(final long packed) {
        return (int) packed;
    }

    /**
     * Measures a varlong in {@code [index, limit)} without decoding it.
     *
     * @param buffer the bytes.
     * @param index  position of the first byte.
     * @param limit  first position that may not be read.
     * @return the size (1..10), or {@link #TRUNCATED} or {@link #TOO_LONG}.
     */
    static int varlongSize(final DirectBuffer buffer, final int index, final int limit) {
        int position = index;
        while (true) {
            if (position >= limit) {
                return TRUNCATED;
            }
            if ((buffer.getByte(position++) & 0x80) == 0) {
                return position - index;
            }
            if (position - index >= MAX_VARLONG_LENGTH) {
                return TOO_LONG;
            }
        }
    }

    /**
     * Decodes a varlong whose extent {@link #varlongSize} has already checked.
     *
     * @param buffer the bytes.
     * @param index  position of the first byte.
     * @return the decoded value.
     */
    static long readVarlongUnchecked(final DirectBuffer buffer, final int index) {
        long raw = 0;
        int shift = 0;
        int position = index;
        while (true) {
            final long b = buffer.getByte(position++);
            raw |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
            shift += 7;
        }
        return (raw >>> 1) ^ -(raw & 1);
    }

    /**
     * Writes a zig-zag varint.
     *
     * @param buffer destination.
     * @param index  position of the first byte.
     * @param value  the value.
     * @return the number of bytes written (1..5).
     */
    static int writeVarint(final MutableDirectBuffer buffer, final int index, final int value) {
        int raw = (value << 1) ^ (value >> 31);
        int position = index;
        while ((raw & 0xffffff80) != 0) {
            buffer.putByte(position++, (byte) ((raw & 0x7f) | 0x80));
            raw >>>= 7;
        }
        buffer.putByte(position++, (byte) raw);
        return position - index;
    }

    /**
     * Writes a zig-zag varlong.
     *
     * @param buffer destination.
     * @param index  position of the first byte.
     * @param value  the value.
     * @return the number of bytes written (1..10).
     */
    static int writeVarlong(final MutableDirectBuffer buffer, final int index, final long value) {
        long raw = (value << 1) ^ (value >> 63);
        int position = index;
        while ((raw & 0xffffffffffffff80L) != 0) {
            buffer.putByte(position++, (byte) ((raw & 0x7f) | 0x80));
            raw >>>= 7;
        }
        buffer.putByte(position++, (byte) raw);
        return position - index;
    }

    /**
     * Encoded size of a zig-zag varint.
     *
     * @param value the value.
     * @return its size in bytes (1..5).
     */
    static int sizeOfVarint(final int value) {
        final int raw = (value << 1) ^ (value >> 31);
        // 7 payload bits per byte; zero still takes one byte.
        return Math.max(1, (32 - Integer.numberOfLeadingZeros(raw) + 6) / 7);
    }

    /**
     * Encoded size of a zig-zag varlong.
     *
     * @param value the value.
     * @return its size in bytes (1..10).
     */
    static int sizeOfVarlong(final long value) {
        final long raw = (value << 1) ^ (value >> 63);
        return Math.max(1, (64 - Long.numberOfLeadingZeros(raw) + 6) / 7);
    }
}
