package io.seglog.storage.format;

import java.nio.charset.StandardCharsets;
import org.agrona.DirectBuffer;

/**
 * Flyweight over one record header, filled by {@link RecordView#nextHeader(RecordHeader)}. The key is UTF-8 and
 * never null; the value may be null (length -1).
 *
 * <p>Not thread-safe; a flyweight belongs to one thread.
 */
public final class RecordHeader {
    private DirectBuffer buffer;
    private int keyOffset;
    private int keyLength;
    private int valueOffset;
    private int valueLength;

    /**
     * Creates an empty flyweight; fill it with {@link RecordView#nextHeader(RecordHeader)}.
     */
    public RecordHeader() {
    }

    void set(final DirectBuffer buffer, final int keyOffset, final int keyLength, final int valueOffset,
        final int valueLength) {
        this.buffer = buffer;
        this.keyOffset = keyOffset;
        this.keyLength = keyLength;
        this.valueOffset = valueOffset;
        this.valueLength = valueLength;
    }

    /**
     * The buffer the positions of this header refer to.
     *
     * @return the buffer holding the batch.
     */
    public DirectBuffer buffer() {
        return buffer;
    }

    /**
     * Position of the key's first byte.
     *
     * @return the key's index in {@link #buffer()}.
     */
    public int keyOffset() {
        return keyOffset;
    }

    /**
     * Length of the UTF-8 key.
     *
     * @return the key length in bytes (never negative).
     */
    public int keyLength() {
        return keyLength;
    }

    /**
     * Position of the value's first byte.
     *
     * @return the value's index in {@link #buffer()} (meaningless for a null value).
     */
    public int valueOffset() {
        return valueOffset;
    }

    /**
     * Length of the value.
     *
     * @return the value length in bytes, or -1 for a null value.
     */
    public int valueLength() {
        return valueLength;
    }

    /**
     * Decodes the key; convenience for tests and cold paths (allocates).
     *
     * @return the key as a string.
     */
    public String key() {
        return buffer.getStringWithoutLengthUtf8(keyOffset, keyLength);
    }

    /**
     * Copies the value; convenience for tests and cold paths (allocates).
     *
     * @return the value bytes, or null for a null value.
     */
    public byte[] valueBytes() {
        if (valueLength < 0) {
            return null;
        }
        final byte[] bytes = new byte[valueLength];
        buffer.getBytes(valueOffset, bytes);
        return bytes;
    }

    /**
     * Compares the key with a string without decoding it; allocates only for non-ASCII keys.
     *
     * @param key the expected key.
     * @return true when the key's bytes are the UTF-8 encoding of {@code key}.
     */
    public boolean keyEquals(final String key) {
        final int length = key.length();
        boolean ascii = true;
        for (int i = 0; i < length && ascii; i++) {
            ascii = key.charAt(i) < 0x80;
        }
        if (!ascii) {
            final byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
            if (utf8.length != keyLength) {
                return false;
            }
            for (int i = 0; i < keyLength; i++) {
                if (buffer.getByte(keyOffset + i) != utf8[i]) {
                    return false;
                }
            }
            return true;
        }
        if (length != keyLength) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (buffer.getByte(keyOffset + i) != key.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
