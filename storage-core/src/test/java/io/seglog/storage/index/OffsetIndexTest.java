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

class OffsetIndexTest {
    private static final long BASE = 1000L;

    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve("00000000000000001000.index");
    }

    private OffsetIndex open(final int maxIndexBytes) throws IOException {
        return OffsetIndex.open(FileIO.system(), file(), BASE, maxIndexBytes);
    }

    @Test
    void newFileIsPreallocatedToWholeEntriesAndEmpty() throws IOException {
        try (OffsetIndex index = open(8 * 10 + 5)) {
            assertEquals(80, Files.size(file()));
            assertEquals(80, index.lengthBytes());
            assertEquals(0, index.entries());
            assertEquals(10, index.maxEntries());
            assertEquals(BASE, index.baseOffset());
            assertEquals(BASE, index.lastOffset());
            assertEquals(85, index.maxIndexBytes());
            assertEquals(file(), index.file());
            assertFalse(index.isFull());
        }
    }

    @Test
    void emptyIndexLooksUpNothing() throws IOException {
        try (OffsetIndex index = open(80)) {
            assertEquals(-1, index.lookupSlot(BASE + 5));
            assertEquals(0, index.lookupPosition(BASE + 5));
            assertEquals(BASE, index.lookupOffset(BASE + 5));
            assertEquals(BASE, index.lookupOffset(Long.MAX_VALUE));
            assertEquals(-1, index.upperBoundOffsetForPosition(0));
        }
    }

    @Test
    void looksUpGreatestEntryAtOrBelowTarget() throws IOException {
        try (OffsetIndex index = open(800)) {
            index.append(BASE + 10, 100);
            index.append(BASE + 20, 200);
            index.append(BASE + 30, 300);
            assertEquals(3, index.entries());
            assertEquals(BASE + 30, index.lastOffset());
            assertEquals(0, index.lookupPosition(BASE + 9));
            assertEquals(BASE, index.lookupOffset(BASE + 9));
            assertEquals(100, index.lookupPosition(BASE + 10));
            assertEquals(100, index.lookupPosition(BASE + 19));
            assertEquals(BASE + 10, index.lookupOffset(BASE + 19));
            assertEquals(200, index.lookupPosition(BASE + 20));
            assertEquals(300, index.lookupPosition(Long.MAX_VALUE));
            assertEquals(2, index.lookupSlot(BASE + 31));
            assertEquals(BASE + 20, index.entryOffset(1));
            assertEquals(200, index.entryPosition(1));
            assertEquals(BASE + 10, index.upperBoundOffsetForPosition(0));
            assertEquals(BASE + 20, index.upperBoundOffsetForPosition(150));
            assertEquals(BASE + 30, index.upperBoundOffsetForPosition(300));
            assertEquals(-1, index.upperBoundOffsetForPosition(301));
        }
    }

    @Test
    void acceptsBaseOffsetAndLargestRelativeOffset() throws IOException {
        try (OffsetIndex index = open(80)) {
            index.append(BASE, 0);
            index.append(BASE + Integer.MAX_VALUE, 7);
            assertEquals(BASE + Integer.MAX_VALUE, index.lastOffset());
            assertEquals(7, index.lookupPosition(Long.MAX_VALUE));
            assertTrue(index.canAppendOffset(BASE));
            assertTrue(index.canAppendOffset(BASE + Integer.MAX_VALUE));
            assertFalse(index.canAppendOffset(BASE - 1));
            assertFalse(index.canAppendOffset(BASE + Integer.MAX_VALUE + 1L));
        }
    }

    @Test
    void rejectsOffsetNotAboveLastWithBothValuesAndFile() throws IOException {
        try (OffsetIndex index = open(80)) {
            index.append(BASE + 5, 10);
            final IllegalArgumentException equal =
                assertThrows(IllegalArgumentException.class, () -> index.append(BASE + 5, 20));
            assertTrue(equal.getMessage().contains("offset=1005"), equal.getMessage());
            assertTrue(equal.getMessage().contains("lastOffset=1005"), equal.getMessage());
            assertTrue(equal.getMessage().contains(file().toString()), equal.getMessage());
            assertThrows(IllegalArgumentException.class, () -> index.append(BASE + 4, 20));
            assertEquals(1, index.entries());
        }
    }

    @Test
    void rejectsRelativeOffsetOutOfRange() throws IOException {
        try (OffsetIndex index = open(80)) {
            final IllegalArgumentException below =
                assertThrows(IllegalArgumentException.class, () -> index.append(BASE - 1, 0));
            assertTrue(below.getMessage().contains("offset=999"), below.getMessage());
            assertTrue(below.getMessage().contains("baseOffset=1000"), below.getMessage());
            assertTrue(below.getMessage().contains(file().toString()), below.getMessage());
            final IllegalArgumentException above = assertThrows(IllegalArgumentException.class,
                () -> index.append(BASE + Integer.MAX_VALUE + 1L, 0));
            assertTrue(above.getMessage().contains("offset=" + (BASE + Integer.MAX_VALUE + 1L)), above.getMessage());
            assertEquals(0, index.entries());
        }
    }

    @Test
    void rejectsNegativePosition() throws IOException {
        try (OffsetIndex index = open(80)) {
            final IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> index.append(BASE + 1, -1));
            assertTrue(e.getMessage().contains("position=-1"), e.getMessage());
            assertEquals(0, index.entries());
        }
    }

    @Test
    void fullIndexRejectsAppend() throws IOException {
        try (OffsetIndex index = open(16)) {
            index.append(BASE + 1, 1);
            assertFalse(index.isFull());
            index.append(BASE + 2, 2);
            assertTrue(index.isFull());
            final IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> index.append(BASE + 3, 3));
            assertTrue(e.getMessage().contains("entries=2"), e.getMessage());
            assertTrue(e.getMessage().contains("maxEntries=2"), e.getMessage());
            assertTrue(e.getMessage().contains(file().toString()), e.getMessage());
        }
    }

    @Test
    void rejectsInvalidOpenArguments() {
        final IllegalArgumentException size = assertThrows(IllegalArgumentException.class, () -> open(7));
        assertTrue(size.getMessage().contains("maxIndexBytes=7"), size.getMessage());
        assertFalse(Files.exists(file()), "a failed create leaves no file");
        final IllegalArgumentException base = assertThrows(IllegalArgumentException.class,
            () -> OffsetIndex.open(FileIO.system(), file(), -1, 80));
        assertTrue(base.getMessage().contains("baseOffset=-1"), base.getMessage());
    }

    @Test
    void entryAccessorsRejectSlotsOutsideEntries() throws IOException {
        try (OffsetIndex index = open(80)) {
            index.append(BASE + 1, 1);
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> index.entryOffset(1));
            assertTrue(e.getMessage().contains("slot=1"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> index.entryPosition(-1));
            assertThrows(IllegalArgumentException.class, () -> index.entryPosition(1));
        }
    }

    @Test
    void truncateToRemovesEntriesAtOrAboveOffset() throws IOException {
        try (OffsetIndex index = open(800)) {
            for (int i = 1; i <= 5; i++) {
                index.append(BASE + i * 10, i * 100);
            }
            index.truncateTo(BASE + 60);   // above the last: no effect
            assertEquals(5, index.entries());
            index.truncateTo(BASE + 40);   // exact: removes 40 and 50
            assertEquals(3, index.entries());
            assertEquals(BASE + 30, index.lastOffset());
            index.truncateTo(BASE + 25);   // between: removes 30
            assertEquals(2, index.entries());
            assertEquals(BASE + 20, index.lastOffset());
            index.append(BASE + 21, 999);  // appends continue after the truncation point
            assertEquals(999, index.lookupPosition(BASE + 22));
            index.truncateTo(BASE);        // below the first: removes all
            assertEquals(0, index.entries());
            assertEquals(BASE, index.lastOffset());
            assertEquals(800, index.lengthBytes(), "truncation keeps the preallocation");
        }
    }

    @Test
    void truncateRemovesAllAndKeepsPreallocation() throws IOException {
        try (OffsetIndex index = open(80)) {
            index.append(BASE + 1, 1);
            index.append(BASE + 2, 2);
            index.truncate();
            assertEquals(0, index.entries());
            assertEquals(10, index.maxEntries());
            index.append(BASE + 1, 5);
            assertEquals(5, index.lookupPosition(BASE + 1));
        }
    }

    @Test
    void trimToValidSizeShrinksFileAndKeepsEntries() throws IOException {
        try (OffsetIndex index = open(800)) {
            index.append(BASE + 1, 11);
            index.append(BASE + 2, 22);
            index.trimToValidSize();
            assertEquals(16, Files.size(file()));
            assertEquals(16, index.lengthBytes());
            assertEquals(2, index.maxEntries());
            assertTrue(index.isFull());
            assertEquals(22, index.lookupPosition(BASE + 9));
            assertEquals(11, index.entryPosition(0));
        }
    }

    @Test
    void resizeGrowsAndShrinksAndKeepsEntries() throws IOException {
        try (OffsetIndex index = open(16)) {
            index.append(BASE + 1, 11);
            assertTrue(index.resize(8 * 100 + 3));
            assertEquals(800, Files.size(file()));
            assertEquals(100, index.maxEntries());
            assertFalse(index.resize(800), "same rounded size: no change");
            for (int i = 2; i <= 50; i++) {
                index.append(BASE + i, i * 11);
            }
            assertTrue(index.resize(400));
            assertEquals(400, Files.size(file()));
            assertEquals(50 * 11, index.lookupPosition(BASE + 50));
            assertEquals(11, index.lookupPosition(BASE + 1));
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> index.resize(392));
            assertTrue(e.getMessage().contains("newMaxBytes=392"), e.getMessage());
            assertTrue(e.getMessage().contains("50 entries"), e.getMessage());
        }
    }

    @Test
    void resetEmptiesAndRestoresMaxSize() throws IOException {
        try (OffsetIndex index = open(800)) {
            index.append(BASE + 1, 11);
            index.trimToValidSize();
            assertTrue(index.isFull());
            index.reset();
            assertEquals(0, index.entries());
            assertEquals(800, Files.size(file()));
            assertFalse(index.isFull());
        }
    }

    @Test
    void closeTrimsAndReopenGivesSameAnswers() throws IOException {
        final int[] positions = new int[300];
        try (OffsetIndex index = open(8 * 1000)) {
            for (int i = 0; i < positions.length; i++) {
                positions[i] = i * 4096;
                index.append(BASE + 3L * i + 1, positions[i]);
            }
        }
        assertEquals(300 * 8, Files.size(file()));
        try (OffsetIndex reopened = open(8 * 1000)) {
            assertEquals(300, reopened.entries());
            assertEquals(300, reopened.maxEntries());
            assertTrue(reopened.isFull(), "a trimmed index is full until the log resizes it");
            reopened.sanityCheck();
            assertEquals(BASE + 3L * 299 + 1, reopened.lastOffset());
            for (long target = BASE - 1; target < BASE + 3L * 300 + 3; target++) {
                final long rel = target - BASE - 1;
                final int expected = rel < 0 ? 0 : positions[(int) Math.min(rel / 3, 299)];
                assertEquals(expected, reopened.lookupPosition(target), "target=" + target);
            }
        }
    }

    @Test
    void closeIsIdempotentAndLaterCallsFailClearly() throws IOException {
        final OffsetIndex index = open(80);
        index.append(BASE + 1, 1);
        index.close();
        index.close();
        final IllegalStateException e = assertThrows(IllegalStateException.class, () -> index.lookupPosition(BASE));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertTrue(e.getMessage().contains(file().toString()), e.getMessage());
        assertThrows(IllegalStateException.class, () -> index.append(BASE + 2, 2));
        assertThrows(IllegalStateException.class, index::truncate);
        assertThrows(IOException.class, index::flush);
        assertEquals(8, Files.size(file()));
    }

    @Test
    void closeAndDeleteRemovesFile() throws IOException {
        final OffsetIndex index = open(80);
        index.append(BASE + 1, 1);
        index.closeAndDelete();
        assertFalse(Files.exists(file()));
        index.closeAndDelete();
        index.close();
        assertThrows(IllegalStateException.class, () -> index.lookupOffset(BASE));
    }

    @Test
    void renameToMovesFileAndIndexKeepsWorking() throws IOException {
        final Path deleted = dir.resolve("00000000000000001000.index.deleted");
        try (OffsetIndex index = open(80)) {
            index.append(BASE + 1, 1);
            index.renameTo(deleted);
            assertEquals(deleted, index.file());
            assertFalse(Files.exists(file()));
            assertTrue(Files.exists(deleted));
            index.append(BASE + 2, 2);
            assertEquals(2, index.lookupPosition(BASE + 2));
        }
        assertEquals(16, Files.size(deleted), "close trims the renamed file");
    }

    @Test
    void flushKeepsEntriesOnDisk() throws IOException {
        try (OffsetIndex index = open(80)) {
            index.append(BASE + 1, 0x01020304);
            index.flush();
            final ByteBuffer onDisk = ByteBuffer.wrap(Files.readAllBytes(file()));
            assertEquals(80, onDisk.capacity());
            assertEquals(1, onDisk.getInt(0));
            assertEquals(0x01020304, onDisk.getInt(4));
        }
    }

    @Test
    void existingFileCountsEveryWholeSlot() throws IOException {
        // Kafka's rule: an untrimmed file (a crash) reads as full of entries; sanityCheck and recovery catch it.
        final ByteBuffer bytes = ByteBuffer.allocate(20);
        bytes.putInt(0, 5).putInt(4, 50).putInt(8, 6).putInt(12, 60);
        Files.write(file(), bytes.array());
        try (OffsetIndex index = open(800)) {
            assertEquals(2, index.entries());
            assertEquals(2, index.maxEntries());
            assertEquals(20, index.lengthBytes());
            assertEquals(60, index.lookupPosition(BASE + 7));
            final CorruptIndexException e = assertThrows(CorruptIndexException.class, index::sanityCheck);
            assertEquals("lengthBytes", e.field());
            assertEquals(20, e.found());
            assertEquals(file(), e.file());
            assertTrue(e.getMessage().contains(file().toString()), e.getMessage());
        }
    }

    @Test
    void sanityCheckRejectsLastOffsetBelowBase() throws IOException {
        final ByteBuffer bytes = ByteBuffer.allocate(16);
        bytes.putInt(0, 5).putInt(4, 50).putInt(8, -3).putInt(12, 60);
        Files.write(file(), bytes.array());
        try (OffsetIndex index = open(800)) {
            final CorruptIndexException e = assertThrows(CorruptIndexException.class, index::sanityCheck);
            assertEquals("lastOffset", e.field());
            assertEquals(BASE - 3, e.found());
            assertTrue(e.getMessage().contains("lastOffset=997"), e.getMessage());
            assertTrue(e.getMessage().contains("baseOffset 1000"), e.getMessage());
        }
    }

    @Test
    void sanityCheckPassesForEmptyAndValidIndexes() throws IOException {
        try (OffsetIndex index = open(80)) {
            index.sanityCheck();
            index.append(BASE, 0);
            index.sanityCheck();
        }
        final Path empty = dir.resolve("00000000000000000000.index");
        Files.write(empty, new byte[0]);
        try (OffsetIndex index = OffsetIndex.open(FileIO.system(), empty, 0, 80)) {
            assertEquals(0, index.entries());
            assertEquals(0, index.maxEntries());
            assertTrue(index.isFull());
            index.sanityCheck();
            index.resize(80);
            index.append(3, 4);
            assertEquals(4, index.lookupPosition(3));
        }
    }
}
