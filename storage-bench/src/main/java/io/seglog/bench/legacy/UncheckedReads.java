package io.seglog.bench.legacy;

import org.agrona.DirectBuffer;
import org.agrona.UnsafeAccess;

/**
 * Byte and varint reads without a per-read bounds check, for the record walk that every append and every
 * iteration runs. Agrona's getters check each index against the capacity (unless the
 * {@code agrona.disable.bounds.checks} property switches that off JVM-wide, which Seglog never relies on);
 * here the caller checks the whole range once, through {@link #rangeInside}, and then reads any index inside it
 * with {@link #getByte}. The fast varint readers take the common short encodings and return {@link #SLOW}
 * for anything else, so the caller falls back to the checked {@link Varint} code with its exact error rules.
 *
 * <p>Addressing follows Agrona's convention for every {@link DirectBuffer}: byte {@code i} lives at
 * {@code addressOffset() + i} inside {@code byteArray()} (a heap buffer) or at that absolute address (direct
 * or mapped memory, {@code byteArray() == null}).
 *
 * <p>Stateless; thread-safe.
 */
final class UncheckedReads {
    /** Returned by the fast varint readers for an encoding they leave to the checked path. */
    static final long SLOW = -1L;

    private UncheckedReads() {
    }

    /**
     * Whether {@code [from, to)} lies inside the buffer, so that {@link #getByte} may read any index in it.
     *
     * @param buffer the buffer.
     * @param from   first index.
     * @param to     first index past the range.
     * @return true when {@code 0 <= from <= to <= capacity}.
     */
    static boolean rangeInside(final DirectBuffer buffer, final int from, final int to) {
        return from >= 0 && from <= to && to <= buffer.capacity();
    }

    /**
     * Reads one byte; the index must lie inside a range accepted by {@link #rangeInside}.
     *
     * @param array   {@code buffer.byteArray()}.
     * @param address {@code buffer.addressOffset()}.
     * @param index   the index.
     * @return the byte.
     */
    static byte getByte(final byte[] array, final long address, final int index) {
        return UnsafeAccess.UNSAFE.getByte(array, address + index);
    }

    /**
     * Reads a zig-zag varint of one to three bytes from {@code [index, end)}; {@code end} must lie inside a
     * checked range. Three bytes carry 21 bits: every length up to 1 MiB and every small delta.
     *
     * @param array   {@code buffer.byteArray()}.
     * @param address {@code buffer.addressOffset()}.
     * @param index   position of the first byte.
     * @param end     first position that may not be read.
     * @return {@code (size << 32) | (value & 0xffffffffL)} as {@link Varint#readVarint} returns it, or
     *     {@link #SLOW} when the varint is longer than three bytes or runs past {@code end}.
     */
    static long varint(final byte[] array, final long address, final int index, final int end) {
        final long raw = raw21(array, address, index, end);
        if (raw < 0) {
            return SLOW;
        }
        final int bits = (int) raw;
        return (raw & 0xffffffff00000000L) | (((bits >>> 1) ^ -(bits & 1)) & 0xffffffffL);
    }

    /**
     * Reads a zig-zag varlong of one to three bytes, like {@link #varint}.
     *
     * @param array   {@code buffer.byteArray()}.
     * @param address {@code buffer.addressOffset()}.
     * @param index   position of the first byte.
     * @param end     first position that may not be read.
     * @return {@code (size << 32) | raw} where the zig-zag-encoded {@code raw} fits 21 bits (decode it with
     *     {@link #zigZag}), or {@link #SLOW}.
     */
    static long varlongRaw(final byte[] array, final long address, final int index, final int end) {
        return raw21(array, address, index, end);
    }

    /**
     * Decodes the zig-zag value of a {@link #varlongRaw} result.
     *
     * @param packed the result.
     * @return the signed value.
     */
    static long zigZag(final long packed) {
        final long raw = packed & 0xffffffffL;
        return (raw >>> 1) ^ -(raw & 1);
    }

    // Unrolled: records are dominated by one- and two-byte varints, and a loop costs a branch misprediction
    // at its exit on almost every field.
    private static long raw21(final byte[] array, final long address, final int index, final int end) {
        if (index >= end) {
            return SLOW;
        }
        final int b0 = getByte(array, address, index);
        if (b0 >= 0) {
            return (1L << 32) | b0;
        }
        if (index + 1 >= end) {
            return SLOW;
        }
        final int b1 = getByte(array, address, index + 1);
        if (b1 >= 0) {
            return (2L << 32) | (b0 & 0x7f) | (b1 << 7);
        }
        if (index + 2 >= end) {
            return SLOW;
        }
        final int b2 = getByte(array, address, index + 2);
        if (b2 >= 0) {
            return (3L << 32) | (b0 & 0x7f) | ((b1 & 0x7f) << 7) | (b2 << 14);
        }
        return SLOW;
    }
}
