package io.seglog.storage.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FileIO;
import io.seglog.storage.io.ForwardingFileIO;
import io.seglog.storage.mapping.SharedMapping;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mappings are released explicitly (checked in /proc/self/maps, so Linux only, with no JVM flags), the hot
 * path allocates nothing, and flush makes the file and its directory durable without ever retrying a failure.
 */
class IndexResourceTest {
    @TempDir
    Path dir;

    /** Where the allocation control stores its array, so that it escapes. */
    private long[] escape;

    private static long mappingsOf(final Path file) throws IOException {
        final String name = file.toAbsolutePath().toString();
        // A mapping of a deleted file is listed with a " (deleted)" suffix.
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(line -> line.contains(name)).count();
    }

    @Test
    void closeUnmapsEveryMappingWithoutJvmFlags() throws IOException {
        final List<String> jvmArguments = ManagementFactory.getRuntimeMXBean().getInputArguments();
        assertTrue(jvmArguments.stream().noneMatch(a -> a.startsWith("--add-opens") || a.startsWith("--add-exports")),
            "unmapping must work without module flags: " + jvmArguments);
        final Path file = dir.resolve("00000000000000000000.index");
        final OffsetIndex index = OffsetIndex.open(FileIO.system(), file, 0, 4096 * 4);
        index.append(1, 1);
        assertEquals(1, mappingsOf(file), "mapped while open");
        index.resize(4096 * 8);
        assertEquals(1, mappingsOf(file), "a replaced mapping no reader holds is unmapped at once");
        final SharedMapping held = index.beginRead();
        index.resize(4096 * 4);
        assertEquals(2, mappingsOf(file), "a replaced mapping a reader holds stays mapped");
        held.release();
        assertEquals(1, mappingsOf(file), "its last reader unmaps it");
        index.close();
        assertEquals(0, mappingsOf(file), "close unmaps explicitly instead of waiting for the GC");

        final Path time = dir.resolve("00000000000000000000.timeindex");
        final TimeIndex timeIndex = TimeIndex.open(FileIO.system(), time, 0, 4096 * 3);
        timeIndex.maybeAppend(5, 1, false);
        assertEquals(1, mappingsOf(time));
        timeIndex.closeAndDelete();
        assertEquals(0, mappingsOf(time));
        assertFalse(Files.exists(time));
    }

    @Test
    void appendsAndLookupsAllocateNothing() throws IOException {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        final int rounds = 200_000;
        try (OffsetIndex offsets = OffsetIndex.open(FileIO.system(), dir.resolve("a.index"), 0, 8 * 2 * rounds);
             TimeIndex times = TimeIndex.open(FileIO.system(), dir.resolve("a.timeindex"), 0, 12 * 2 * rounds)) {
            long sink = 0;
            // Warm-up: let the JIT compile the paths measured below.
            for (int i = 0; i < rounds; i++) {
                offsets.append(2L * i + 1, i);
                times.maybeAppend(10L * i, 2L * i + 1, false);
                sink += offsets.lookupPosition(i) + offsets.lookupOffset(i) + times.lookupOffset(5L * i);
            }
            final long before = threads.getThreadAllocatedBytes(thread);
            for (int i = rounds; i < 2 * rounds - 1; i++) {
                offsets.append(2L * i + 1, i);
                times.maybeAppend(10L * i, 2L * i + 1, false);
                sink += offsets.lookupPosition(i) + offsets.lookupOffset(2L * i) + offsets.lookupSlot(i)
                    + times.lookupOffset(5L * i) + times.lookupSlot(i) + offsets.lastOffset() + times.lastTimestamp()
                    + offsets.entryPosition(i / 2) + times.entryOffset(i / 3)
                    + offsets.upperBoundOffsetForPosition(i / 2);
            }
            final long allocated = threads.getThreadAllocatedBytes(thread) - before;
            assertTrue(sink != 0);
            // Control: the measurement does see an allocation of 8 KB.
            final long controlBefore = threads.getThreadAllocatedBytes(thread);
            escape = new long[1_000];
            assertTrue(threads.getThreadAllocatedBytes(thread) - controlBefore >= 8_000, "allocation counter works");
            // A little slack for the measurement itself; one allocation per call would be megabytes.
            assertTrue(allocated < 4_096, "allocated " + allocated + " bytes over " + (rounds - 1) + " rounds");
        }
    }

    /** The platform's file I/O, counting fsyncs of directories and failing them on demand. */
    private static final class CountingFileIO extends ForwardingFileIO {
        final AtomicInteger directorySyncs = new AtomicInteger();
        volatile boolean failDirectorySync;

        @Override
        public void fsyncDirectory(final Path directory) throws IOException {
            directorySyncs.incrementAndGet();
            if (failDirectorySync) {
                throw new IOException("injected fsync failure: " + directory);
            }
            FileIO.system().fsyncDirectory(directory);
        }
    }

    @Test
    void firstFlushOfNewFileSyncsItsDirectoryOnce() throws IOException {
        final CountingFileIO io = new CountingFileIO();
        final Path file = dir.resolve("00000000000000000000.index");
        final Path renamed = dir.resolve("00000000000000000000.index.deleted");
        try (OffsetIndex index = OffsetIndex.open(io, file, 0, 80)) {
            index.append(1, 1);
            index.flush();
            assertEquals(1, io.directorySyncs.get(), "the new file's directory entry made durable");
            index.append(2, 2);
            index.flush();
            assertEquals(1, io.directorySyncs.get(), "only once");
            index.renameTo(renamed);
            assertEquals(2, io.directorySyncs.get(), "a rename syncs the directory");
        }
        try (OffsetIndex reopened = OffsetIndex.open(io, renamed, 0, 80)) {
            assertEquals(2, reopened.entries());
            reopened.flush();
            assertEquals(2, io.directorySyncs.get(), "an existing file's directory entry is already durable");
        }
    }

    @Test
    void failedFlushIsNeverRetried() throws IOException {
        final CountingFileIO io = new CountingFileIO();
        io.failDirectorySync = true;
        final Path file = dir.resolve("00000000000000000000.index");
        final OffsetIndex index = OffsetIndex.open(io, file, 0, 800);
        index.append(1, 1);
        final IOException first = assertThrows(IOException.class, index::flush);
        assertTrue(first.getMessage().contains("injected"), first.getMessage());
        io.failDirectorySync = false;
        final IOException second = assertThrows(IOException.class, index::flush);
        assertTrue(second.getMessage().contains("not retried"), second.getMessage());
        assertTrue(second.getMessage().contains(file.toString()), second.getMessage());
        assertEquals(1, io.directorySyncs.get());
        index.close();   // releases the mapping without trimming or syncing again
        assertEquals(1, io.directorySyncs.get());
        assertEquals(0, mappingsOf(file));
        assertEquals(800, Files.size(file), "not trimmed after a failed flush: recovery rebuilds it");
    }

    @Test
    void closeThatCannotTrimStillUnmapsAndStaysClosed() throws IOException {
        final Path file = dir.resolve("00000000000000000000.timeindex");
        final TimeIndex index = TimeIndex.open(FileIO.system(), file, 0, 4096 * 3);
        index.maybeAppend(5, 1, false);
        Files.delete(file);   // the mapping survives the unlink; the trim on close cannot reopen the file
        assertEquals(1, mappingsOf(file));
        final IOException e = assertThrows(IOException.class, index::close);
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertEquals(0, mappingsOf(file), "the mapping is released even though the trim failed");
        index.close();   // idempotent: nothing left to do, nothing thrown
        assertThrows(IllegalStateException.class, () -> index.lookupOffset(5));
    }
}
