package io.seglog.storage.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.seglog.storage.io.FileIO;
import io.seglog.storage.mapping.SharedMapping;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * close() racing with lock-free lookups: it must never unmap a mapping a reader is still searching (touching an
 * unmapped page kills the JVM); lookups that start after close fail with IllegalStateException.
 */
class IndexCloseUnderReadersTest {
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(10);

    @TempDir
    Path dir;

    private static long mappingsOf(final Path file) throws IOException {
        final String name = file.toAbsolutePath().toString();
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(line -> line.contains(name)).count();
    }

    private static Thread closeInBackground(final MappedIndex index) {
        final Thread closer = new Thread(() -> {
            try {
                index.close();
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
        }, "index-closer");
        closer.setDaemon(true);
        closer.start();
        return closer;
    }

    @Test
    @Timeout(30)
    void closeKeepsTheMappingUntilALookupInProgressEnds() throws Exception {
        final Path file = dir.resolve("00000000000000000000.index");
        final OffsetIndex index = OffsetIndex.open(FileIO.system(), file, 0, 4096);
        index.append(7, 70);
        // A reader between reading the buffer and its last get, as inside lookupPosition.
        final SharedMapping read = index.beginRead();
        final UnsafeBuffer inFlight = read.view();
        final Thread closer = closeInBackground(index);

        // close unpublishes the buffer at once: a lookup that starts now fails cleanly ...
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (true) {
            try {
                index.lastOffset();
            } catch (final IllegalStateException closed) {
                break;
            }
            if (System.nanoTime() > deadline) {
                fail("close never unpublished the buffer");
            }
            Thread.onSpinWait();
        }
        // ... but does not unmap while the reader is inside. (Close may return: its trim replaced the mapping, and
        // the replaced one is the reader's to unmap.)
        assertTrue(mappingsOf(file) > 0, "mapping released under a reader");
        assertEquals(7, inFlight.getInt(0, ByteOrder.BIG_ENDIAN), "the reader still sees its entry");
        assertEquals(70, inFlight.getInt(4, ByteOrder.BIG_ENDIAN));

        read.release();
        closer.join(TimeUnit.NANOSECONDS.toMillis(DEADLINE_NS));
        assertFalse(closer.isAlive(), "close must finish once the reader is out");
        assertEquals(0, mappingsOf(file), "unmapped once no reader is inside");
        assertThrows(IllegalStateException.class, () -> index.lookupPosition(7));
    }

    @Test
    @Timeout(60)
    void readersRacingWithCloseGetAnswersOrIllegalStateExceptionNeverACrash() throws Exception {
        for (int round = 0; round < 20; round++) {
            final Path offsetFile = dir.resolve(String.format("%020d.index", round));
            final Path timeFile = dir.resolve(String.format("%020d.timeindex", round));
            final OffsetIndex offsets = OffsetIndex.open(FileIO.system(), offsetFile, 0, 1 << 16);
            final TimeIndex times = TimeIndex.open(FileIO.system(), timeFile, 0, 1 << 16);
            for (int i = 1; i <= 2_000; i++) {
                offsets.append(i * 2L, i * 100);
                times.maybeAppend(1_000L + i, i * 2L, false);
            }
            final int readers = 3;
            final CountDownLatch started = new CountDownLatch(readers);
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final List<Thread> threads = new ArrayList<>();
            for (int r = 0; r < readers; r++) {
                final int seed = r;
                final Thread reader = new Thread(() -> {
                    started.countDown();
                    long target = seed;
                    try {
                        while (true) {
                            target = (target * 31 + 7) % 4_000;
                            final int position = offsets.lookupPosition(target);
                            final long expected = target < 2 ? 0 : (target / 2) * 100;
                            if (position != expected) {
                                throw new AssertionError("target=" + target + " position=" + position);
                            }
                            times.lookupOffset(1_000 + target / 2);
                        }
                    } catch (final IllegalStateException closed) {
                        // the index was closed: the only acceptable way out
                    } catch (final Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }, "index-reader-" + r);
                reader.setDaemon(true);
                threads.add(reader);
                reader.start();
            }
            assertTrue(started.await(10, TimeUnit.SECONDS));
            offsets.close();
            times.close();
            for (final Thread reader : threads) {
                reader.join(TimeUnit.NANOSECONDS.toMillis(DEADLINE_NS));
                assertFalse(reader.isAlive(), reader.getName() + " still running after close");
            }
            if (failure.get() != null) {
                throw new AssertionError("round " + round, failure.get());
            }
            assertEquals(0, mappingsOf(offsetFile) + mappingsOf(timeFile));
        }
    }
}
