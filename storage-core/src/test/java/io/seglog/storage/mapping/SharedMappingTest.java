package io.seglog.storage.mapping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SharedMapping}'s reference count on a real mapped file: a retired mapping refuses new users and is unmapped
 * exactly when its last user leaves, also while many threads acquire and release it.
 */
class SharedMappingTest {
    private static final int FILE_BYTES = 8192;

    @TempDir
    Path dir;

    private SharedMapping mapFile(final String name) throws IOException {
        try (FileChannel channel = FileChannel.open(dir.resolve(name), StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final ByteBuffer bytes = ByteBuffer.allocate(FILE_BYTES);
            for (int i = 0; i < FILE_BYTES; i++) {
                bytes.put(i, (byte) i);
            }
            channel.write(bytes, 0);
            // The mapping outlives the channel, as a segment's would outlive nothing: only the map matters here.
            return new SharedMapping(channel.map(FileChannel.MapMode.READ_ONLY, 0, FILE_BYTES));
        }
    }

    @Test
    void copiesMappedBytesAsAPositionalReadWould() throws IOException {
        final SharedMapping map = mapFile("copy");
        assertTrue(map.acquire());
        final ByteBuffer scratch = ByteBuffer.allocate(64);
        map.copyTo(1000, scratch, 20);
        assertEquals(20, scratch.position());
        assertEquals(20, scratch.limit());
        for (int i = 0; i < 20; i++) {
            assertEquals((byte) (1000 + i), scratch.get(i));
        }
        assertTrue(map.covers(FILE_BYTES - 12, 12));
        assertFalse(map.covers(FILE_BYTES - 11, 12));
        assertFalse(map.covers(-1, 1));
        map.release();
        map.retire();
        assertTrue(map.isUnmapped());
    }

    @Test
    void retiredWhileInUseIsUnmappedByTheLastUser() throws IOException {
        final SharedMapping map = mapFile("last");
        assertTrue(map.acquire());
        assertTrue(map.acquire());
        map.retire();
        assertFalse(map.acquire(), "a retired mapping takes no new user");
        assertFalse(map.isUnmapped(), "two users left");
        map.release();
        assertFalse(map.isUnmapped(), "one user left");
        assertEquals((byte) 7, map.view().getByte(7), "still readable by its remaining user");
        map.release();
        assertTrue(map.isUnmapped());
        map.retire(); // idempotent
        assertTrue(map.isUnmapped());
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void concurrentUsersNeverReadAnUnmappedMapping() throws Exception {
        for (int round = 0; round < 20; round++) {
            final SharedMapping map = mapFile("round-" + round);
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final AtomicLong uses = new AtomicLong();
            final Thread[] users = new Thread[3];
            for (int t = 0; t < users.length; t++) {
                users[t] = new Thread(() -> {
                    try {
                        while (!stop.get()) {
                            if (map.acquire()) {
                                try {
                                    // Reading an unmapped page would crash the JVM, not fail this assertion.
                                    final int at = (int) (uses.incrementAndGet() % FILE_BYTES);
                                    if (map.view().getByte(at) != (byte) at) {
                                        throw new AssertionError("byte " + at);
                                    }
                                } finally {
                                    map.release();
                                }
                            } else {
                                return; // retired: no further use
                            }
                        }
                    } catch (final Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "map-user-" + t);
                users[t].start();
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (uses.get() < 1_000 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            map.retire();
            stop.set(true);
            for (final Thread user : users) {
                user.join(TimeUnit.SECONDS.toMillis(10));
                assertFalse(user.isAlive(), user.getName() + " did not stop");
            }
            if (failure.get() != null) {
                throw new AssertionError("round " + round, failure.get());
            }
            assertTrue(map.isUnmapped(), "round " + round + ": retired and no user left, so unmapped");
            assertTrue(uses.get() >= 1_000, "round " + round + " uses=" + uses.get());
        }
    }
}
