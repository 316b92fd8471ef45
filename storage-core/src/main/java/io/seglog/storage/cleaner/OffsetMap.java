package io.seglog.storage.cleaner;

import java.nio.ByteBuffer;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.agrona.DirectBuffer;

/**
 * A bounded map from a key's hash to the last offset seen for it (Kafka's {@code SkimpyOffsetMap}): open addressing
 * over one heap buffer of {@code slots} entries, each a 16-byte MD5 digest of the key followed by an 8-byte offset.
 * Two keys with the same digest are one key (probability negligible with 128 bits; Kafka accepts the same risk).
 * The all-zero digest marks an empty slot, so a key whose digest is all zeros would be lost: Kafka's behaviour too.
 *
 * <p>A probe starts at the int read at byte {@code attempt} of the digest (while that fits), then walks linearly,
 * as Kafka's {@code positionOf}. {@link #put} and {@link #get} allocate nothing: the key is copied into a reused
 * scratch array for the digest when it does not sit in a heap array already.
 *
 * <p>Not thread-safe: one map per cleaner thread.
 */
final class OffsetMap {
    /** MD5's digest size: the bytes stored per key. */
    static final int HASH_SIZE = 16;
    /** A digest and an offset. */
    static final int BYTES_PER_ENTRY = HASH_SIZE + Long.BYTES;

    private final ByteBuffer bytes;
    private final int slots;
    private final MessageDigest digest;
    private final byte[] hash1 = new byte[HASH_SIZE];
    private final byte[] hash2 = new byte[HASH_SIZE];
    private byte[] keyScratch = new byte[64];
    private int entries;
    private long latestOffset = -1;
    private long lookups;
    private long probes;

    /**
     * Creates a map that uses {@code memoryBytes} of heap.
     *
     * @param memoryBytes the memory for entries ({@code log.cleaner.dedupe.buffer.size} / threads)
     * @throws IllegalArgumentException if it does not hold at least one entry
     */
    OffsetMap(final int memoryBytes) {
        if (memoryBytes < BYTES_PER_ENTRY) {
            throw new IllegalArgumentException("memoryBytes=" + memoryBytes + " must hold one entry of "
                + BYTES_PER_ENTRY + " bytes");
        }
        this.slots = memoryBytes / BYTES_PER_ENTRY;
        this.bytes = ByteBuffer.allocate(slots * BYTES_PER_ENTRY);
        try {
            this.digest = MessageDigest.getInstance("MD5");
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is required of every Java platform", e);
        }
    }

    /**
     * The number of slots.
     *
     * @return slots
     */
    int slots() {
        return slots;
    }

    /**
     * The number of keys held.
     *
     * @return entries
     */
    int size() {
        return entries;
    }

    /**
     * The share of slots in use.
     *
     * @return a fraction in [0, 1]
     */
    double utilization() {
        return (double) entries / slots;
    }

    /**
     * Records {@code offset} as the last offset of the key in {@code key[keyOffset, keyOffset + keyLength)}.
     *
     * @param key       the buffer holding the key
     * @param keyOffset its index
     * @param keyLength its length, 0 or more
     * @param offset    the record's offset
     * @throws IllegalStateException if the map is full (callers stop at a load factor below 1)
     */
    void put(final DirectBuffer key, final int keyOffset, final int keyLength, final long offset) {
        hashInto(key, keyOffset, keyLength, hash1);
        int attempt = 0;
        int pos = positionOf(hash1, attempt);
        while (!isEmpty(pos)) {
            if (sameHash(pos, hash1)) {
                bytes.putLong(pos + HASH_SIZE, offset);
                latestOffset = offset;
                return;
            }
            // Kafka checks fullness before looking for the key, refusing an update of a held key in a full map;
            // only a new key needs a free slot (and a full table's walk must stop).
            if (entries >= slots) {
                throw new IllegalStateException("offset map is full: slots=" + slots);
            }
            attempt++;
            pos = positionOf(hash1, attempt);
        }
        bytes.put(pos, hash1, 0, HASH_SIZE);
        bytes.putLong(pos + HASH_SIZE, offset);
        entries++;
        latestOffset = offset;
    }

    /**
     * The last offset recorded for the key, or -1.
     *
     * @param key       the buffer holding the key
     * @param keyOffset its index
     * @param keyLength its length
     * @return the offset or -1
     */
    long get(final DirectBuffer key, final int keyOffset, final int keyLength) {
        hashInto(key, keyOffset, keyLength, hash2);
        lookups++;
        int attempt = 0;
        int pos = positionOf(hash2, attempt);
        while (!isEmpty(pos)) {
            probes++;
            if (sameHash(pos, hash2)) {
                return bytes.getLong(pos + HASH_SIZE);
            }
            if (++attempt > slots + HASH_SIZE) {
                return -1; // full table without the key: the linear walk has visited every slot
            }
            pos = positionOf(hash2, attempt);
        }
        return -1;
    }

    /**
     * Raises the latest offset the map covers (offsets past the last key: batches without keys, gaps).
     *
     * @param offset the offset
     */
    void updateLatestOffset(final long offset) {
        latestOffset = offset;
    }

    /**
     * The largest offset the map covers, -1 when empty.
     *
     * @return the offset
     */
    long latestOffset() {
        return latestOffset;
    }

    /**
     * Empties the map for the next log.
     */
    void clear() {
        java.util.Arrays.fill(bytes.array(), (byte) 0);
        entries = 0;
        latestOffset = -1;
        lookups = 0;
        probes = 0;
    }

    /**
     * Mean probes per lookup so far (collision cost), for the cleaner's log line.
     *
     * @return probes per lookup, 0 with no lookup
     */
    double collisionRate() {
        return lookups == 0 ? 0 : (double) (probes - lookups) / lookups;
    }

    private void hashInto(final DirectBuffer key, final int keyOffset, final int keyLength, final byte[] into) {
        digest.reset();
        final byte[] array = key.byteArray();
        if (array != null) {
            digest.update(array, key.wrapAdjustment() + keyOffset,
                keyLength);
        } else {
            if (keyScratch.length < keyLength) {
                keyScratch = new byte[Math.max(keyLength, keyScratch.length * 2)];
            }
            key.getBytes(keyOffset, keyScratch, 0, keyLength);
            digest.update(keyScratch, 0, keyLength);
        }
        try {
            digest.digest(into, 0, HASH_SIZE);
        } catch (final DigestException e) {
            throw new IllegalStateException("MD5 digest of " + HASH_SIZE + " bytes", e);
        }
    }

    private int positionOf(final byte[] hash, final int attempt) {
        final int at = Math.min(attempt, HASH_SIZE - 4);
        final int probe = ((hash[at] & 0xFF) << 24 | (hash[at + 1] & 0xFF) << 16 | (hash[at + 2] & 0xFF) << 8
            | hash[at + 3] & 0xFF) + Math.max(0, attempt - HASH_SIZE + 4);
        return ((probe & 0x7fffffff) % slots) * BYTES_PER_ENTRY;
    }

    private boolean isEmpty(final int pos) {
        return bytes.getLong(pos) == 0 && bytes.getLong(pos + 8) == 0;
    }

    private boolean sameHash(final int pos, final byte[] hash) {
        for (int i = 0; i < HASH_SIZE; i++) {
            if (bytes.get(pos + i) != hash[i]) {
                return false;
            }
        }
        return true;
    }
}
