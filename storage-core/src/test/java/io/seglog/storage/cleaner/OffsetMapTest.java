package io.seglog.storage.cleaner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * The cleaner's offset map beside a {@link HashMap} oracle: the last offset put for each key, -1 for a key never
 * put, a full table that refuses a new key but still answers the known ones (a probe walk of a full table ends),
 * and a key hashed alike wherever its bytes sit (heap array or direct memory, any offset).
 */
class OffsetMapTest {
    private static final long SEED = 20_261_202L;

    @Test
    void keepsTheLastOffsetOfEveryKeyAsAHashMapDoes() {
        System.out.println("OffsetMapTest seed=" + SEED);
        final SplittableRandom random = new SplittableRandom(SEED);
        final OffsetMap map = new OffsetMap(1_000 * OffsetMap.BYTES_PER_ENTRY);
        final Map<String, Long> oracle = new HashMap<>();
        for (long offset = 0; offset < 5_000; offset++) {
            final String key = "key-" + random.nextInt(600);
            map.put(heap(key), 0, key.length(), offset);
            oracle.put(key, offset);
        }
        assertEquals(oracle.size(), map.size());
        assertEquals(4_999, map.latestOffset());
        for (final Map.Entry<String, Long> e : oracle.entrySet()) {
            assertEquals(e.getValue(), map.get(heap(e.getKey()), 0, e.getKey().length()), e.getKey());
        }
        assertEquals(-1, map.get(heap("never-put"), 0, 9));
        map.clear();
        assertEquals(0, map.size());
        assertEquals(-1, map.latestOffset());
        assertEquals(-1, map.get(heap("key-1"), 0, 5));
    }

    @Test
    void aFullTableRefusesANewKeyButStillAnswersTheOnesItHolds() {
        final OffsetMap map = new OffsetMap(8 * OffsetMap.BYTES_PER_ENTRY);
        assertEquals(8, map.slots());
        for (int i = 0; i < 8; i++) {
            final String key = "k" + i;
            map.put(heap(key), 0, key.length(), 100 + i);
        }
        // A key already held is updated in place, even in a full table.
        map.put(heap("k3"), 0, 2, 999);
        final IllegalStateException full = assertThrows(IllegalStateException.class,
            () -> map.put(heap("k8"), 0, 2, 108));
        assertTrue(full.getMessage().contains("full"), full.getMessage());
        for (int i = 0; i < 8; i++) {
            assertEquals(i == 3 ? 999 : 100 + i, map.get(heap("k" + i), 0, 2), "k" + i);
        }
        assertEquals(-1, map.get(heap("k8"), 0, 2), "the walk of a full table ends");
        assertEquals(1.0, map.utilization());
    }

    @Test
    void aKeyHashesAlikeInHeapAndDirectMemoryAtAnyOffset() {
        final OffsetMap map = new OffsetMap(64 * OffsetMap.BYTES_PER_ENTRY);
        final byte[] key = "customer-42".getBytes(StandardCharsets.UTF_8);
        map.put(new UnsafeBuffer(key), 0, key.length, 7);
        final ByteBuffer direct = ByteBuffer.allocateDirect(key.length + 13);
        direct.position(13);
        direct.put(key);
        assertEquals(7, map.get(new UnsafeBuffer(direct), 13, key.length));
        final byte[] padded = new byte[key.length + 5];
        System.arraycopy(key, 0, padded, 5, key.length);
        assertEquals(7, map.get(new UnsafeBuffer(padded), 5, key.length));
        assertEquals(-1, map.get(new UnsafeBuffer(padded), 4, key.length), "other bytes, another key");
    }

    @Test
    void refusesAMemoryTooSmallForOneEntry() {
        assertThrows(IllegalArgumentException.class, () -> new OffsetMap(OffsetMap.BYTES_PER_ENTRY - 1));
    }

    private static UnsafeBuffer heap(final String key) {
        return new UnsafeBuffer(key.getBytes(StandardCharsets.UTF_8));
    }
}
