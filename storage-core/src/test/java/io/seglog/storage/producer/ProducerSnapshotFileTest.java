package io.seglog.storage.producer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FileIO;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.storage.internals.log.ProducerStateEntry;
import org.apache.kafka.storage.internals.log.ProducerStateManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code .snapshot} codec against annotated bytes and against Kafka 4.4's own reader and writer. */
class ProducerSnapshotFileTest {
    @TempDir
    Path dir;

    private static ProducerEntry producer7() {
        final ProducerEntry e = new ProducerEntry(7L);
        e.addBatch((short) 2, 4, 9L, 4, 1_000L); // sequences 0..4 at offsets 5..9
        return e;
    }

    @Test
    void emptySnapshotIsKafkasTenBytes() {
        // version 1 | CRC-32C of the four count bytes | count 0 (reference section 1.1, observed from Kafka)
        assertEquals("0001" + "48674bc7" + "00000000", HexFormat.of().formatHex(ProducerSnapshotFile.encode(List.of())));
    }

    @Test
    void snapshotOfOneProducerMatchesItsAnnotatedBytes() {
        final String expected = ""
            + "0001"             // version 1
            + "b7be89e2"         // CRC-32C of bytes 6..56
            + "00000001"         // one entry
            + "0000000000000007" // producerId 7
            + "0002"             // epoch 2
            + "00000004"         // lastSequence 4
            + "0000000000000009" // lastOffset 9
            + "00000004"         // offsetDelta 4 (first offset 5)
            + "00000000000003e8" // timestamp 1000
            + "ffffffff"         // coordinatorEpoch -1 (no marker)
            + "ffffffffffffffff"; // currentTxnFirstOffset -1 (no transaction)
        final byte[] ours = ProducerSnapshotFile.encode(List.of(producer7()));
        assertEquals(expected, HexFormat.of().formatHex(ours));
        assertEquals(ProducerSnapshotDescriptor.ENTRIES_OFFSET + ProducerSnapshotDescriptor.ENTRY_LENGTH, ours.length);
    }

    @Test
    void kafkaReadsOurSnapshot() throws Exception {
        final ProducerEntry marked = new ProducerEntry(-5L, (short) 9, 3, 2_000L, -1);
        final ProducerEntry inTxn = new ProducerEntry(11L);
        inTxn.addBatch((short) 0, Integer.MAX_VALUE, 40L, 1, 3_000L);
        inTxn.beginTransactionIfNone(39L);
        final Path file = dir.resolve(ProducerSnapshotDescriptor.fileName(41));
        ProducerSnapshotFile.write(FileIO.system(), file, List.of(producer7(), marked, inTxn));

        final List<ProducerStateEntry> kafka = ProducerStateManager.readSnapshot(file.toFile());

        assertEquals(3, kafka.size());
        final Map<Long, ProducerStateEntry> byId = new LinkedHashMap<>();
        kafka.forEach(e -> byId.put(e.producerId(), e));
        assertEquals(2, byId.get(7L).producerEpoch());
        assertEquals(9L, byId.get(7L).lastDataOffset());
        assertEquals(5L, byId.get(7L).firstDataOffset());
        assertEquals(1_000L, byId.get(7L).lastTimestamp());
        assertEquals(OptionalLong.empty(), byId.get(7L).currentTxnFirstOffset());
        assertEquals(9, byId.get(-5L).producerEpoch());
        assertEquals(3, byId.get(-5L).coordinatorEpoch());
        assertTrue(byId.get(-5L).batchMetadata().isEmpty(), "a marker-only producer has no batch");
        assertEquals(OptionalLong.of(39L), byId.get(11L).currentTxnFirstOffset());
        assertEquals(Integer.MAX_VALUE, byId.get(11L).batchMetadata().iterator().next().lastSeq());
        assertEquals("00000000000000000041.snapshot", file.getFileName().toString());
    }

    @Test
    void weReadKafkasSnapshotAndWriteTheSameBytes() throws Exception {
        final Map<Long, ProducerStateEntry> entries = new LinkedHashMap<>();
        entries.put(3L, new ProducerStateEntry(3L, (short) 4, 12, 5_000L, OptionalLong.of(100L)));
        final File file = dir.resolve("00000000000000000200.snapshot").toFile();
        ProducerStateManager.writeSnapshot(file, entries, true);

        final List<ProducerEntry> ours = ProducerSnapshotFile.read(FileIO.system(), file.toPath());

        assertEquals(1, ours.size());
        final ProducerEntry e = ours.get(0);
        assertEquals(3L, e.producerId());
        assertEquals(4, e.epoch());
        assertEquals(12, e.coordinatorEpoch());
        assertEquals(5_000L, e.lastTimestamp());
        assertEquals(100L, e.currentTxnFirstOffset());
        assertTrue(e.isEmpty());
        assertArrayEquals(Files.readAllBytes(file.toPath()), ProducerSnapshotFile.encode(ours), "same bytes back");
    }

    @Test
    void rejectsSnapshotWithBadCrcNamingFileAndPosition() throws Exception {
        final Path file = dir.resolve(ProducerSnapshotDescriptor.fileName(10));
        final byte[] bytes = ProducerSnapshotFile.encode(List.of(producer7()));
        bytes[30] ^= 1; // a bit of lastOffset
        Files.write(file, bytes);

        final CorruptSnapshotException e = assertThrows(CorruptSnapshotException.class,
            () -> ProducerSnapshotFile.read(FileIO.system(), file));

        assertEquals(file, e.file());
        assertEquals(ProducerSnapshotDescriptor.CRC_OFFSET, e.position());
        assertEquals("crc", e.field());
        assertTrue(e.getMessage().contains("found " + 0xb7be89e2L), e.getMessage());
    }

    @Test
    void neverTrustsTheEntryCountForAnAllocation() throws Exception {
        final Path file = dir.resolve(ProducerSnapshotDescriptor.fileName(10));
        final ByteBuffer lying = ByteBuffer.allocate(ProducerSnapshotDescriptor.ENTRIES_OFFSET);
        lying.putShort(0, ProducerSnapshotDescriptor.VERSION).putInt(ProducerSnapshotDescriptor.ENTRY_COUNT_OFFSET,
            Integer.MAX_VALUE);
        Files.write(file, lying.array());

        final CorruptSnapshotException e = assertThrows(CorruptSnapshotException.class,
            () -> ProducerSnapshotFile.read(FileIO.system(), file));

        assertEquals("entryCount", e.field());
        assertTrue(e.getMessage().contains("expected 0 (from the file size 10)"), e.getMessage());
    }

    @Test
    void rejectsTornAndUnknownVersionSnapshots() throws Exception {
        final Path torn = dir.resolve(ProducerSnapshotDescriptor.fileName(1));
        final byte[] whole = ProducerSnapshotFile.encode(List.of(producer7()));
        Files.write(torn, java.util.Arrays.copyOf(whole, whole.length - 7));
        assertEquals("entryCount", assertThrows(CorruptSnapshotException.class,
            () -> ProducerSnapshotFile.read(FileIO.system(), torn)).field());

        final Path tiny = dir.resolve(ProducerSnapshotDescriptor.fileName(2));
        Files.write(tiny, new byte[] {0, 1, 0});
        assertEquals("file size", assertThrows(CorruptSnapshotException.class,
            () -> ProducerSnapshotFile.read(FileIO.system(), tiny)).field());

        final Path v2 = dir.resolve(ProducerSnapshotDescriptor.fileName(3));
        whole[1] = 2;
        Files.write(v2, whole);
        assertEquals("version", assertThrows(CorruptSnapshotException.class,
            () -> ProducerSnapshotFile.read(FileIO.system(), v2)).field());
    }

    @Test
    void namesSnapshotsByOffsetInTwentyDigits() {
        assertEquals("00000000000001000000.snapshot", ProducerSnapshotDescriptor.fileName(1_000_000));
        assertEquals(1_000_000, ProducerSnapshotDescriptor.parseOffset("00000000000001000000.snapshot"));
        assertEquals(-1, ProducerSnapshotDescriptor.parseOffset("0000000000000100000x.snapshot"));
        assertEquals(-1, ProducerSnapshotDescriptor.parseOffset("00000000000001000000.snapshot.tmp"));
    }
}
