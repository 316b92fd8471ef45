package io.seglog.storage.index;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FaultInjectingFileIO;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.kafka.common.message.AbortedTxn;
import org.apache.kafka.storage.internals.log.TxnIndexSearchResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Our {@code .txnindex} against Kafka 4.4's {@code TransactionIndex}: the same entries give the same bytes, each reads
 * the other's file, and every search and truncation answers alike.
 */
class TransactionIndexOracleTest {
    private static final long BASE = 1_000;

    @TempDir
    Path dir;

    /** An aborted transaction: producer, first offset, marker offset, LSO after the abort. */
    private record Txn(long producerId, long firstOffset, long lastOffset, long lastStableOffset) {
        AbortedTxn kafka() {
            return new AbortedTxn().setProducerId(producerId).setFirstOffset(firstOffset).setLastOffset(lastOffset)
                .setLastStableOffset(lastStableOffset);
        }
    }

    private static List<Txn> randomAborts(final SplittableRandom r, final int count) {
        final List<Txn> txns = new ArrayList<>();
        long marker = BASE;
        for (int i = 0; i < count; i++) {
            marker += 1 + r.nextInt(50);
            final long first = Math.max(0, marker - 1 - r.nextInt(200)); // may begin in an earlier segment
            final long lso = r.nextBoolean() ? marker + 1 : Math.max(first, marker - r.nextInt(100));
            txns.add(new Txn(r.nextLong(1, 1_000_000), first, marker, lso));
        }
        return txns;
    }

    @Test
    void theSameEntriesGiveKafkasBytesAndEachReadsTheOthers() throws IOException {
        final SplittableRandom r = new SplittableRandom(42);
        final List<Txn> txns = randomAborts(r, 40);
        final Path ours = dir.resolve("ours" + TransactionIndex.SUFFIX);
        final Path theirs = dir.resolve("theirs" + TransactionIndex.SUFFIX);
        try (TransactionIndex index = TransactionIndex.open(FileIO.system(), ours, BASE);
             org.apache.kafka.storage.internals.log.TransactionIndex kafka =
                 new org.apache.kafka.storage.internals.log.TransactionIndex(BASE, theirs.toFile())) {
            assertFalse(Files.exists(ours), "no file before the first abort, as Kafka");
            for (final Txn t : txns) {
                index.append(t.producerId(), t.firstOffset(), t.lastOffset(), t.lastStableOffset());
                kafka.append(t.kafka());
            }
            index.flush();
            kafka.flush();
        }
        assertArrayEquals(Files.readAllBytes(theirs), Files.readAllBytes(ours), "the same bytes");
        try (org.apache.kafka.storage.internals.log.TransactionIndex kafka =
                 new org.apache.kafka.storage.internals.log.TransactionIndex(BASE, ours.toFile())) {
            kafka.sanityCheck();
            final List<Txn> read = new ArrayList<>();
            for (final AbortedTxn a : kafka.allAbortedTxns()) {
                read.add(new Txn(a.producerId(), a.firstOffset(), a.lastOffset(), a.lastStableOffset()));
            }
            assertEquals(txns, read, "Kafka reads ours");
        }
        try (TransactionIndex index = TransactionIndex.open(FileIO.system(), theirs, BASE)) {
            assertEquals(txns.size() * (long) TransactionIndex.ENTRY_LENGTH, index.sizeInBytes(), "we read Kafka's");
            assertThrows(IllegalArgumentException.class, () -> index.append(1, BASE, txns.get(txns.size() - 1)
                .lastOffset(), BASE), "an abort not after the last one is refused, after a reopen too");
        }
    }

    @Test
    void everySearchAndTruncationAnswersAsKafkas() throws IOException {
        final SplittableRandom r = new SplittableRandom(7);
        for (int round = 0; round < 30; round++) {
            final List<Txn> txns = randomAborts(r, 1 + r.nextInt(30));
            final Path ours = dir.resolve(round + "-ours" + TransactionIndex.SUFFIX);
            final Path theirs = dir.resolve(round + "-theirs" + TransactionIndex.SUFFIX);
            try (TransactionIndex index = TransactionIndex.open(FileIO.system(), ours, BASE);
                 org.apache.kafka.storage.internals.log.TransactionIndex kafka =
                     new org.apache.kafka.storage.internals.log.TransactionIndex(BASE, theirs.toFile())) {
                for (final Txn t : txns) {
                    index.append(t.producerId(), t.firstOffset(), t.lastOffset(), t.lastStableOffset());
                    kafka.append(t.kafka());
                }
                final long last = txns.get(txns.size() - 1).lastOffset();
                // A scratch of three entries: searches cross reads.
                final ByteBuffer scratch = ByteBuffer.allocate(3 * TransactionIndex.ENTRY_LENGTH);
                for (int q = 0; q < 40; q++) {
                    final long fetch = r.nextLong(0, last + 20);
                    final long upper = fetch + r.nextLong(1, 300);
                    final List<long[]> found = new ArrayList<>();
                    final boolean complete = index.collect(fetch, upper, scratch,
                        (pid, first) -> found.add(new long[] {pid, first}));
                    final TxnIndexSearchResult expected = kafka.collectAbortedTxns(fetch, upper);
                    assertEquals(expected.isComplete(), complete, "complete, [" + fetch + ", " + upper + ")");
                    assertEquals(expected.abortedTransactions().size(), found.size(), "count");
                    for (int i = 0; i < found.size(); i++) {
                        assertEquals(expected.abortedTransactions().get(i).producerId(), found.get(i)[0]);
                        assertEquals(expected.abortedTransactions().get(i).firstOffset(), found.get(i)[1]);
                    }
                }
                final long cut = r.nextLong(BASE, last + 2);
                index.truncateTo(cut);
                kafka.truncateTo(cut);
                kafka.flush();
                index.flush();
                assertArrayEquals(Files.readAllBytes(theirs), Files.readAllBytes(ours), "truncated alike at " + cut);
                // After a truncation the next abort may reuse the offsets cut.
                index.append(5, cut, cut, cut + 1);
            }
        }
    }

    @Test
    void aFailedWriteRecordsNothingAndTheNextAbortIsStillChecked() throws IOException {
        final FaultInjectingFileIO faults = new FaultInjectingFileIO();
        final Path file = dir.resolve("failing" + TransactionIndex.SUFFIX);
        try (TransactionIndex index = TransactionIndex.open(faults, file, BASE)) {
            index.append(9, BASE, BASE + 5, BASE + 6);
            faults.failOnCall(FaultInjectingFileIO.Op.WRITE, faults.count(FaultInjectingFileIO.Op.WRITE) + 1);
            assertThrows(IOException.class, () -> index.append(9, BASE + 7, BASE + 9, BASE + 10));
            assertEquals(TransactionIndex.ENTRY_LENGTH, index.sizeInBytes(), "the failed entry is not readable");
            final List<Long> firsts = new ArrayList<>();
            index.collect(0, Long.MAX_VALUE, ByteBuffer.allocate(64), (pid, first) -> firsts.add(first));
            assertEquals(List.of(BASE), firsts);
            assertThrows(IllegalArgumentException.class, () -> index.append(9, BASE, BASE + 5, BASE + 6),
                "the last offset stays the one written");
        }
    }

    @Test
    void aTornTailIsIgnoredAndAnEntryOfAnotherVersionIsNamed() throws IOException {
        final Path file = dir.resolve(TransactionIndex.SUFFIX);
        try (TransactionIndex index = TransactionIndex.open(FileIO.system(), file, BASE)) {
            index.append(9, BASE, BASE + 5, BASE + 6);
            index.append(9, BASE + 7, BASE + 9, BASE + 10);
        }
        final byte[] whole = Files.readAllBytes(file);
        final byte[] torn = java.util.Arrays.copyOf(whole, whole.length - 5); // a crash mid-write of the last entry
        Files.write(file, torn);
        try (TransactionIndex index = TransactionIndex.open(FileIO.system(), file, BASE)) {
            assertEquals(TransactionIndex.ENTRY_LENGTH, index.sizeInBytes(), "the whole entry only");
            final List<Long> firsts = new ArrayList<>();
            assertFalse(index.collect(0, Long.MAX_VALUE, ByteBuffer.allocate(64), (pid, first) -> firsts.add(first)));
            assertEquals(List.of(BASE), firsts);
            index.truncateTo(Long.MAX_VALUE);
            assertEquals(TransactionIndex.ENTRY_LENGTH, Files.size(file), "the torn tail is cut");
            index.append(9, BASE + 7, BASE + 9, BASE + 10);
        }
        whole[TransactionIndex.ENTRY_LENGTH + 1] = 3; // the second entry's version
        Files.write(file, whole);
        final CorruptIndexException e = assertThrows(CorruptIndexException.class,
            () -> TransactionIndex.open(FileIO.system(), file, BASE));
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("version"), e.getMessage());
        Files.write(file, java.util.Arrays.copyOf(whole, TransactionIndex.ENTRY_LENGTH));
        final CorruptIndexException early = assertThrows(CorruptIndexException.class,
            () -> TransactionIndex.open(FileIO.system(), file, BASE + 100));
        assertTrue(early.getMessage().contains("lastOffset"), early.getMessage());
    }

    @Test
    void aDiscardedIndexStaysUntilItsRebuildReplacesItWhole() throws IOException {
        final Path file = dir.resolve("00000000000000001000.txnindex");
        final byte[] corrupt = new byte[TransactionIndex.ENTRY_LENGTH];
        corrupt[1] = 9; // version 9
        Files.write(file, corrupt);
        final TransactionIndex index = TransactionIndex.openOrDiscard(FileIO.system(), file, BASE, false);
        try {
            assertTrue(index.discardedOnOpen());
            assertArrayEquals(corrupt, Files.readAllBytes(file), "kept until the rebuild");
            assertThrows(IllegalStateException.class, () -> index.append(9, BASE, BASE + 1, BASE + 2),
                "no append into a discarded file");
            index.replaceWith(new long[] {9, BASE, BASE + 1, BASE + 2}, 1);
            assertFalse(index.discardedOnOpen());
            assertEquals(TransactionIndex.ENTRY_LENGTH, Files.size(file));
            index.append(9, BASE + 3, BASE + 4, BASE + 5); // appends go on after the rebuild
            final List<Long> firsts = new ArrayList<>();
            index.collect(0, Long.MAX_VALUE, ByteBuffer.allocate(64), (pid, first) -> firsts.add(first));
            assertEquals(List.of(BASE, BASE + 3), firsts);
            index.replaceWith(new long[0], 0);
            assertFalse(Files.exists(file), "no entries: no file, as for a segment without aborts");
            assertEquals(0, index.sizeInBytes());
        } finally {
            index.close();
        }
        Files.write(file, corrupt);
        try (TransactionIndex readOnly = TransactionIndex.openOrDiscard(FileIO.system(), file, BASE, true)) {
            assertTrue(readOnly.discardedOnOpen());
            assertThrows(IllegalStateException.class, () -> readOnly.replaceWith(new long[0], 0), "read-only");
            assertArrayEquals(corrupt, Files.readAllBytes(file), "a read-only open changes nothing");
        }
    }
}
