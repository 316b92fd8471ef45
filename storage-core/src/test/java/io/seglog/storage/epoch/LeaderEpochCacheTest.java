package io.seglog.storage.epoch;

import static io.seglog.storage.epoch.LeaderEpochCache.UNDEFINED_EPOCH;
import static io.seglog.storage.epoch.LeaderEpochCache.UNDEFINED_EPOCH_OFFSET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.checkpoint.EpochEntry;
import io.seglog.storage.checkpoint.LeaderEpochCheckpointFile;
import io.seglog.storage.io.FaultInjectingFileIO;
import io.seglog.storage.io.FaultInjectingFileIO.Op;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kafka's LeaderEpochFileCache behaviour, case by case (after LeaderEpochFileCacheTest). */
class LeaderEpochCacheTest {
    @TempDir
    Path dir;

    private final LeaderEpochCache cache = LeaderEpochCache.inMemory();

    private static EpochEntry e(final int epoch, final long startOffset) {
        return new EpochEntry(epoch, startOffset);
    }

    private void assign(final int... epochOffsetPairs) throws IOException {
        for (int i = 0; i < epochOffsetPairs.length; i += 2) {
            cache.assign(epochOffsetPairs[i], epochOffsetPairs[i + 1]);
        }
    }

    @Test
    void emptyCacheAnswersUndefined() {
        assertEquals(UNDEFINED_EPOCH, cache.latestEpoch());
        assertEquals(UNDEFINED_EPOCH, cache.previousEpoch());
        assertEquals(EpochEnd.UNDEFINED, cache.endOffsetFor(7, 0));
        assertEquals(UNDEFINED_EPOCH, cache.epochForOffset(0));
        assertEquals(Optional.empty(), cache.latestEntry());
        assertEquals(Optional.empty(), cache.earliestEntry());
        assertFalse(cache.truncateFromEnd(0));
        assertFalse(cache.truncateFromStart(0));
        assertTrue(cache.isEmpty());
    }

    @Test
    void addsEpochAndReturnsLogEndOffsetForTheLatestEpoch() throws IOException {
        assertTrue(cache.assign(2, 10));
        assertEquals(2, cache.latestEpoch());
        assertEquals(List.of(e(2, 10)), cache.entries());
        assertEquals(new EpochEnd(2, 11), cache.endOffsetFor(2, 11));
    }

    @Test
    void sameEpochWithHigherOffsetIsIgnored() throws IOException {
        assign(2, 9);
        assertFalse(cache.assign(2, 10));
        assertEquals(List.of(e(2, 9)), cache.entries());
    }

    @Test
    void sameEpochWithLowerOffsetReplacesTheEntry() throws IOException {
        assign(5, 11, 6, 12, 7, 13);
        assertTrue(cache.assign(7, 12));
        assertEquals(List.of(e(5, 11), e(7, 12)), cache.entries());
        assertEquals(new EpochEnd(5, 12), cache.endOffsetFor(5, 0));
        assertEquals(new EpochEnd(5, 12), cache.endOffsetFor(6, 0));
    }

    @Test
    void newEpochAtTheSameOffsetReplacesTheOldOne() throws IOException {
        assign(2, 9, 3, 9);
        assertEquals(List.of(e(3, 9)), cache.entries());
    }

    @Test
    void newEpochAtALowerOffsetRemovesConflictingEntries() throws IOException {
        assign(2, 6, 3, 5);
        assertEquals(List.of(e(3, 5)), cache.entries());
    }

    @Test
    void staleEpochTruncatesLaterEpochs() throws IOException {
        assign(1, 5, 2, 6);
        assertTrue(cache.assign(1, 7));
        assertEquals(1, cache.latestEpoch());
        assertEquals(List.of(e(1, 7)), cache.entries());
        assertEquals(new EpochEnd(1, 8), cache.endOffsetFor(1, 8));
        assertEquals(EpochEnd.UNDEFINED, cache.endOffsetFor(2, 8));
    }

    @Test
    void rejectsNegativeEpochOrOffset() {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> cache.assign(-1, 0));
        assertTrue(e.getMessage().contains("epoch=-1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> cache.assign(0, -1));
        assertTrue(cache.isEmpty());
    }

    @Test
    void endOffsetForFollowsKip101AndKip279() throws IOException {
        assign(0, 0, 2, 13, 4, 17);
        assertEquals(EpochEnd.UNDEFINED, cache.endOffsetFor(UNDEFINED_EPOCH, 30));
        assertEquals(new EpochEnd(0, 13), cache.endOffsetFor(0, 30));
        // Epoch 1 is unknown here: answer with the largest known epoch below it and where it ended.
        assertEquals(new EpochEnd(0, 13), cache.endOffsetFor(1, 30));
        assertEquals(new EpochEnd(2, 17), cache.endOffsetFor(2, 30));
        assertEquals(new EpochEnd(2, 17), cache.endOffsetFor(3, 30));
        assertEquals(new EpochEnd(4, 30), cache.endOffsetFor(4, 30));
        assertEquals(EpochEnd.UNDEFINED, cache.endOffsetFor(5, 30));
    }

    @Test
    void requestedEpochBelowTheFirstGetsTheFirstStartOffset() throws IOException {
        assign(5, 11, 6, 12, 7, 13);
        assertEquals(new EpochEnd(4, 11), cache.endOffsetFor(4, 0));
    }

    @Test
    void tracksEpochsAsLeadersChange() throws IOException {
        assign(0, 0, 1, 5, 2, 10);
        assertEquals(new EpochEnd(2, 10), cache.endOffsetFor(2, 10));
        assertEquals(new EpochEnd(1, 10), cache.endOffsetFor(1, 10));
        assertEquals(new EpochEnd(0, 5), cache.endOffsetFor(0, 10));
        assertEquals(1, cache.previousEpoch());
    }

    @Test
    void previousAndNextEpoch() throws IOException {
        assertEquals(UNDEFINED_EPOCH, cache.previousEpoch(2));
        assign(2, 10);
        assertEquals(UNDEFINED_EPOCH, cache.previousEpoch(2));
        assertEquals(UNDEFINED_EPOCH, cache.previousEpoch());
        assign(4, 15);
        assertEquals(2, cache.previousEpoch(4));
        assertEquals(2, cache.previousEpoch());
        assign(10, 20);
        assertEquals(4, cache.previousEpoch(10));
        assertEquals(4, cache.previousEpoch(7));
        assertEquals(10, cache.previousEpoch(11));
        assertEquals(2, cache.nextEpoch(-1));
        assertEquals(4, cache.nextEpoch(2));
        assertEquals(4, cache.nextEpoch(3));
        assertEquals(UNDEFINED_EPOCH, cache.nextEpoch(10));
        assertEquals(Optional.of(e(4, 15)), cache.epochEntry(4));
        assertEquals(Optional.empty(), cache.epochEntry(3));
        assertEquals(Optional.of(e(2, 10)), cache.earliestEntry());
        assertEquals(Optional.of(e(10, 20)), cache.latestEntry());
    }

    @Test
    void epochForOffset() throws IOException {
        assign(1, 20, 5, 30);
        assertEquals(1, cache.epochForOffset(25));
        assertEquals(1, cache.epochForOffset(20));
        assertEquals(5, cache.epochForOffset(30));
        assertEquals(5, cache.epochForOffset(50));
        assertEquals(UNDEFINED_EPOCH, cache.epochForOffset(5));
    }

    @Test
    void truncateFromEndDropsEntriesAtOrAboveTheOffset() throws IOException {
        assign(2, 6, 3, 8, 4, 11);
        assertTrue(cache.truncateFromEnd(8));
        assertEquals(List.of(e(2, 6)), cache.entries());

        final LeaderEpochCache other = LeaderEpochCache.inMemory();
        other.assign(List.of(e(2, 6), e(3, 8), e(4, 11)));
        assertTrue(other.truncateFromEnd(9));
        assertEquals(List.of(e(2, 6), e(3, 8)), other.entries());
        assertFalse(other.truncateFromEnd(9));
        assertFalse(other.truncateFromEnd(UNDEFINED_EPOCH_OFFSET));
        assertEquals(2, other.size());
    }

    @Test
    void truncateFromStartKeepsTheEpochOfTheNewFirstOffset() throws IOException {
        assign(2, 6, 3, 8, 4, 11);
        assertFalse(cache.truncateFromStart(5));
        assertFalse(cache.truncateFromStart(UNDEFINED_EPOCH_OFFSET));
        assertEquals(3, cache.size());
        assertTrue(cache.truncateFromStart(9));
        assertEquals(List.of(e(3, 9), e(4, 11)), cache.entries());
        assertTrue(cache.truncateFromStart(11));
        assertEquals(List.of(e(4, 11)), cache.entries());
        assertTrue(cache.truncateFromStart(15));
        assertEquals(List.of(e(4, 15)), cache.entries());
    }

    @Test
    void truncateFromStartAtFirstOffsetKeepsEverything() throws IOException {
        assign(2, 6, 3, 8, 4, 11);
        cache.truncateFromStart(6);
        assertEquals(List.of(e(2, 6), e(3, 8), e(4, 11)), cache.entries());
        cache.truncateFromStart(8);
        assertEquals(List.of(e(3, 8), e(4, 11)), cache.entries());
    }

    @Test
    void entriesInRangeLeavesTheCacheUntouched() throws IOException {
        assign(0, 0, 1, 5, 2, 10, 3, 15);
        assertEquals(List.of(e(1, 7), e(2, 10)), cache.entriesInRange(7, 15));
        assertEquals(List.of(e(0, 0), e(1, 5)), cache.entriesInRange(-1, 10));
        assertEquals(4, cache.size());
    }

    @Test
    void growsBeyondInitialCapacity() throws IOException {
        for (int epoch = 0; epoch < 100; epoch++) {
            cache.assign(epoch, epoch * 10L);
        }
        assertEquals(100, cache.size());
        assertEquals(new EpochEnd(50, 510), cache.endOffsetFor(50, 2000));
        assertEquals(73, cache.epochForOffset(735));
    }

    /** The append path calls assign for every batch: in the current epoch it must allocate nothing. */
    @Test
    void assignInTheCurrentEpochAllocatesNothing() throws IOException {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported(), "this JVM cannot measure allocation");
        threads.setThreadAllocatedMemoryEnabled(true);
        assign(1, 0, 3, 10);
        for (int i = 0; i < 20_000; i++) {
            cache.assign(3, 10 + i);
        }
        final long thread = Thread.currentThread().getId();
        final long before = threads.getThreadAllocatedBytes(thread);
        for (int i = 0; i < 100_000; i++) {
            cache.assign(3, 20_000 + i);
        }
        final long allocated = threads.getThreadAllocatedBytes(thread) - before;
        System.out.println("LeaderEpochCache.assign, current epoch: " + allocated + " bytes allocated in 100,000 calls");
        assertTrue(allocated < 1024, "100,000 assigns allocated " + allocated + " bytes");
        assertEquals(List.of(e(1, 0), e(3, 10)), cache.entries());
    }

    @Test
    void assignPersistsSynchronouslyAndTruncationWaitsForFlush() throws IOException {
        final Path file = dir.resolve(LeaderEpochCheckpointFile.FILE_NAME);
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final LeaderEpochCheckpointFile checkpoint = new LeaderEpochCheckpointFile(io, file);
        final LeaderEpochCache persisted = LeaderEpochCache.empty(checkpoint);
        assertFalse(Files.exists(file), "empty() must not touch the file");

        persisted.assign(2, 6);
        persisted.assign(3, 8);
        assertEquals(2, io.count(Op.FORCE), "one synchronous write per change");
        assertFalse(persisted.assign(3, 9));
        assertEquals(2, io.count(Op.FORCE), "no write when nothing changed");
        assertEquals("0\n2\n2 6\n3 8\n", Files.readString(file));

        assertTrue(persisted.truncateFromEnd(8));
        assertTrue(persisted.isDirty());
        assertEquals("0\n2\n2 6\n3 8\n", Files.readString(file), "truncation is flushed later");
        assertTrue(persisted.flush());
        assertFalse(persisted.isDirty());
        assertFalse(persisted.flush());
        assertEquals("0\n1\n2 6\n", Files.readString(file));

        final LeaderEpochCache reloaded = LeaderEpochCache.load(new LeaderEpochCheckpointFile(FileIO.system(), file));
        assertEquals(List.of(e(2, 6)), reloaded.entries());
        assertFalse(reloaded.isDirty());

        persisted.clearAndFlush();
        assertEquals("0\n0\n", Files.readString(file));
    }

    @Test
    void failedCheckpointWriteSurfacesAndStaysDirty() throws IOException {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final LeaderEpochCache persisted = LeaderEpochCache.empty(
            new LeaderEpochCheckpointFile(io, dir.resolve(LeaderEpochCheckpointFile.FILE_NAME)));
        io.failNext(Op.FORCE);
        assertThrows(IOException.class, () -> persisted.assign(1, 0));
        assertTrue(persisted.isDirty());
        assertEquals(List.of(e(1, 0)), persisted.entries());
        // The checkpoint refuses to retry after a failed fsync.
        assertThrows(IOException.class, persisted::flush);
        assertEquals(1, io.count(Op.FORCE));
    }
}
