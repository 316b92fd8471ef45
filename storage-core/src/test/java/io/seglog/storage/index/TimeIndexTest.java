package io.seglog.storage.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimeIndexTest {
    private static final long BASE = 500L;

    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve("00000000000000000500.timeindex");
    }

    private TimeIndex open(final int maxIndexBytes) throws IOException {
        return TimeIndex.open(FileIO.system(), file(), BASE, maxIndexBytes);
    }

    @Test
    void newFileIsPreallocatedToWholeEntriesAndEmpty() throws IOException {
        try (TimeIndex index = open(12 * 10 + 11)) {
            assertEquals(120, Files.size(file()));
            assertEquals(0, index.entries());
            assertEquals(10, index.maxEntries());
            assertEquals(IndexDescriptor.NO_TIMESTAMP, index.lastTimestamp());
            assertEquals(BASE, index.lastEntryOffset());
            assertEquals(BASE, index.lookupOffset(Long.MAX_VALUE));
            assertEquals(-1, index.lookupSlot(Long.MAX_VALUE));
        }
    }

    @Test
    void looksUpGreatestTimestampAtOrBelowTarget() throws IOException {
        try (TimeIndex index = open(1200)) {
            index.maybeAppend(1_000, BASE + 3, false);
            index.maybeAppend(2_000, BASE + 7, false);
            index.maybeAppend(3_000, BASE + 7, false);   // same offset, larger timestamp: kept (Kafka allows it)
            index.maybeAppend(4_000, BASE + 20, false);
            assertEquals(4, index.entries());
            assertEquals(BASE, index.lookupOffset(999));
            assertEquals(BASE + 3, index.lookupOffset(1_000));
            assertEquals(BASE + 3, index.lookupOffset(1_999));
            assertEquals(BASE + 7, index.lookupOffset(2_500));
            assertEquals(BASE + 7, index.lookupOffset(3_000));
            assertEquals(BASE + 20, index.lookupOffset(Long.MAX_VALUE));
            assertEquals(3, index.lookupSlot(4_000));
            assertEquals(4_000, index.lastTimestamp());
            assertEquals(BASE + 20, index.lastEntryOffset());
            assertEquals(2_000, index.entryTimestamp(1));
            assertEquals(BASE + 7, index.entryOffset(1));
        }
    }

    @Test
    void equalTimestampIsIgnoredAndSmallerRejected() throws IOException {
        try (TimeIndex index = open(1200)) {
            index.maybeAppend(1_000, BASE + 3, false);
            index.maybeAppend(1_000, BASE + 9, false);
            assertEquals(1, index.entries());
            assertEquals(BASE + 3, index.lastEntryOffset());
            final IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> index.maybeAppend(999, BASE + 10, false));
            assertTrue(e.getMessage().contains("timestamp=999"), e.getMessage());
            assertTrue(e.getMessage().contains("lastTimestamp=1000"), e.getMessage());
            assertTrue(e.getMessage().contains(file().toString()), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> index.maybeAppend(999, BASE + 10, true));
            assertEquals(1, index.entries());
        }
    }

    @Test
    void offsetBelowLastEntryIsRejected() throws IOException {
        try (TimeIndex index = open(1200)) {
            index.maybeAppend(1_000, BASE + 3, false);
            final IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> index.maybeAppend(2_000, BASE + 2, false));
            assertTrue(e.getMessage().contains("offset=502"), e.getMessage());
            assertTrue(e.getMessage().contains("lastEntryOffset=503"), e.getMessage());
            assertTrue(e.getMessage().contains(file().toString()), e.getMessage());
            assertEquals(1, index.entries());
        }
    }

    @Test
    void relativeOffsetMustFit() throws IOException {
        try (TimeIndex index = open(1200)) {
            final IllegalArgumentException below =
                assertThrows(IllegalArgumentException.class, () -> index.maybeAppend(1, BASE - 1, false));
            assertTrue(below.getMessage().contains("offset=499"), below.getMessage());
            assertTrue(below.getMessage().contains("baseOffset=500"), below.getMessage());
            assertThrows(IllegalArgumentException.class,
                () -> index.maybeAppend(1, BASE + Integer.MAX_VALUE + 1L, false));
            index.maybeAppend(1, BASE + Integer.MAX_VALUE, false);
            assertEquals(BASE + Integer.MAX_VALUE, index.lookupOffset(1));
        }
    }

    @Test
    void noTimestampIsNotIndexedInEmptyIndex() throws IOException {
        try (TimeIndex index = open(1200)) {
            index.maybeAppend(IndexDescriptor.NO_TIMESTAMP, BASE + 1, false);
            index.maybeAppend(-5, BASE + 1, false);
            assertEquals(0, index.entries());
            index.maybeAppend(0, BASE + 1, false);
            assertEquals(1, index.entries());
        }
    }

    @Test
    void lastSlotIsReservedForRollAndClose() throws IOException {
        try (TimeIndex index = open(36)) {
            assertEquals(3, index.maxEntries());
            index.maybeAppend(10, BASE + 1, false);
            assertFalse(index.isFull());
            index.maybeAppend(20, BASE + 2, false);
            assertTrue(index.isFull(), "entries >= maxEntries - 1");
            final IllegalArgumentException full =
                assertThrows(IllegalArgumentException.class, () -> index.maybeAppend(30, BASE + 3, false));
            assertTrue(full.getMessage().contains("entries=2"), full.getMessage());
            assertTrue(full.getMessage().contains("maxEntries=3"), full.getMessage());
            index.maybeAppend(30, BASE + 3, true);
            assertEquals(3, index.entries());
            index.maybeAppend(30, BASE + 3, true);   // repeating the last entry is ignored even when full
            final IllegalStateException none =
                assertThrows(IllegalStateException.class, () -> index.maybeAppend(40, BASE + 4, true));
            assertTrue(none.getMessage().contains("maxEntries=3"), none.getMessage());
            assertEquals(3, index.entries());
        }
    }

    @Test
    void truncateToRemovesEntriesWithOffsetAtOrAbove() throws IOException {
        try (TimeIndex index = open(1200)) {
            index.maybeAppend(100, BASE + 10, false);
            index.maybeAppend(200, BASE + 20, false);
            index.maybeAppend(300, BASE + 20, false);
            index.maybeAppend(400, BASE + 30, false);
            index.truncateTo(BASE + 31);
            assertEquals(4, index.entries());
            index.truncateTo(BASE + 30);
            assertEquals(3, index.entries());
            index.truncateTo(BASE + 20);   // both entries at offset 20 go
            assertEquals(1, index.entries());
            assertEquals(100, index.lastTimestamp());
            index.maybeAppend(150, BASE + 15, false);
            assertEquals(BASE + 15, index.lookupOffset(160));
            index.truncateTo(BASE);
            assertEquals(0, index.entries());
            assertEquals(IndexDescriptor.NO_TIMESTAMP, index.lastTimestamp());
            index.maybeAppend(5, BASE, false);
            index.truncate();
            assertEquals(0, index.entries());
            assertEquals(1200, index.lengthBytes());
        }
    }

    @Test
    void closeTrimsAndReopenGivesSameAnswers() throws IOException {
        try (TimeIndex index = open(12 * 100)) {
            for (int i = 0; i < 40; i++) {
                index.maybeAppend(1_000L * (i + 1), BASE + 5L * i, false);
            }
        }
        assertEquals(40 * 12, Files.size(file()));
        try (TimeIndex reopened = open(12 * 100)) {
            assertEquals(40, reopened.entries());
            reopened.sanityCheck();
            assertEquals(40_000, reopened.lastTimestamp());
            assertEquals(BASE + 195, reopened.lastEntryOffset());
            for (long ts = 0; ts < 42_000; ts += 250) {
                final long expected = ts < 1_000 ? BASE : BASE + 5L * (Math.min(ts / 1_000, 40) - 1);
                assertEquals(expected, reopened.lookupOffset(ts), "ts=" + ts);
            }
            assertTrue(reopened.isFull());
            reopened.resize(12 * 100);
            assertFalse(reopened.isFull());
            reopened.maybeAppend(50_000, BASE + 300, false);
            assertEquals(BASE + 300, reopened.lookupOffset(50_000));
        }
    }

    @Test
    void trimResizeAndResetKeepOrDropEntries() throws IOException {
        try (TimeIndex index = open(1200)) {
            index.maybeAppend(10, BASE + 1, false);
            index.trimToValidSize();
            assertEquals(12, Files.size(file()));
            assertEquals(1, index.maxEntries());
            assertEquals(BASE + 1, index.lookupOffset(11));
            assertTrue(index.resize(240));
            assertEquals(10, index.lastTimestamp(), "resize keeps the last entry");
            index.reset();
            assertEquals(0, index.entries());
            assertEquals(1200, Files.size(file()));
        }
    }

    @Test
    void sanityCheckRejectsLastTimestampBelowFirst() throws IOException {
        // An untrimmed file after a crash: the zero slots read as entries with timestamp 0.
        final ByteBuffer bytes = ByteBuffer.allocate(36);
        bytes.putLong(0, 1_000).putInt(8, 3);
        Files.write(file(), bytes.array());
        try (TimeIndex index = open(1200)) {
            assertEquals(3, index.entries());
            final CorruptIndexException e = assertThrows(CorruptIndexException.class, index::sanityCheck);
            assertEquals("lastTimestamp", e.field());
            assertEquals(0, e.found());
            assertTrue(e.getMessage().contains(file().toString()), e.getMessage());
            assertTrue(e.getMessage().contains("first timestamp 1000"), e.getMessage());
        }
    }

    @Test
    void sanityCheckRejectsLastOffsetBelowBaseAndPartialEntry() throws IOException {
        final ByteBuffer bytes = ByteBuffer.allocate(24);
        bytes.putLong(0, 1_000).putInt(8, 3).putLong(12, 2_000).putInt(20, -1);
        Files.write(file(), bytes.array());
        try (TimeIndex index = open(1200)) {
            final CorruptIndexException e = assertThrows(CorruptIndexException.class, index::sanityCheck);
            assertEquals("lastOffset", e.field());
            assertEquals(BASE - 1, e.found());
        }
        Files.write(file(), new byte[13]);
        try (TimeIndex index = open(1200)) {
            final CorruptIndexException e = assertThrows(CorruptIndexException.class, index::sanityCheck);
            assertEquals("lengthBytes", e.field());
            assertEquals(13, e.found());
        }
    }

    @Test
    void closeAndDeleteAndRename() throws IOException {
        final Path renamed = dir.resolve("00000000000000000500.timeindex.deleted");
        final TimeIndex index = open(120);
        index.maybeAppend(1, BASE, false);
        index.renameTo(renamed);
        assertTrue(Files.exists(renamed));
        assertFalse(Files.exists(file()));
        index.closeAndDelete();
        assertFalse(Files.exists(renamed));
        final IllegalStateException e = assertThrows(IllegalStateException.class, () -> index.lookupOffset(1));
        assertTrue(e.getMessage().contains("time index is closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> index.maybeAppend(2, BASE + 1, false));
        index.close();
    }

    @Test
    void rejectsTooSmallMaxIndexBytes() {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> open(11));
        assertTrue(e.getMessage().contains("maxIndexBytes=11"), e.getMessage());
        assertTrue(e.getMessage().contains("12"), e.getMessage());
        assertFalse(Files.exists(file()));
    }
}
