package io.seglog.storage.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FaultInjectingFileIO;
import io.seglog.storage.io.FaultInjectingFileIO.Op;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.apache.kafka.storage.internals.checkpoint.CleanShutdownFileHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CleanShutdownFileTest {
    @TempDir
    Path dir;

    @Test
    void writesKafkasJsonDurablyAndKafkaReadsIt() throws Exception {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final CleanShutdownFile marker = new CleanShutdownFile(io, dir);
        marker.write(42);
        assertEquals("{\"version\":0,\"brokerEpoch\":42}", Files.readString(marker.file()));
        assertEquals(1, io.count(Op.FORCE));
        assertEquals(1, io.count(Op.ATOMIC_MOVE));
        assertEquals(1, io.count(Op.FSYNC_DIRECTORY));

        final CleanShutdownFileHandler kafka = new CleanShutdownFileHandler(dir.toString());
        assertTrue(kafka.exists());
        assertEquals(OptionalLong.of(42), kafka.read());
    }

    @Test
    void readsWhatKafkaWritesByteForByte() throws Exception {
        final Path kafkaDir = Files.createDirectory(dir.resolve("kafka"));
        new CleanShutdownFileHandler(kafkaDir.toString()).write(7L);
        final CleanShutdownFile ours = new CleanShutdownFile(FileIO.system(), dir);
        ours.write(7L);
        assertArrayEquals(Files.readAllBytes(kafkaDir.resolve(CleanShutdownFile.FILE_NAME)),
            Files.readAllBytes(ours.file()));
        assertEquals(new CleanShutdownFile.Marker(true, OptionalLong.of(7)),
            new CleanShutdownFile(FileIO.system(), kafkaDir).read());
    }

    @Test
    void consumeReadsThenDeletesDurably() throws IOException {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final CleanShutdownFile marker = new CleanShutdownFile(io, dir);
        assertEquals(new CleanShutdownFile.Marker(false, OptionalLong.empty()), marker.consume());
        assertEquals(0, io.count(Op.FSYNC_DIRECTORY), "nothing deleted, nothing to sync");

        marker.write(3);
        final int dirSyncs = io.count(Op.FSYNC_DIRECTORY);
        assertEquals(new CleanShutdownFile.Marker(true, OptionalLong.of(3)), marker.consume());
        assertFalse(Files.exists(marker.file()));
        assertEquals(dirSyncs + 1, io.count(Op.FSYNC_DIRECTORY), "the delete must be made durable");
        assertFalse(marker.consume().present(), "a crash during loading must force recovery next time");
    }

    @Test
    void leftoverTempMarkerDoesNotCount() throws IOException {
        Files.writeString(dir.resolve(CleanShutdownFile.FILE_NAME + ".tmp"), "{\"version\":0,\"brokerEpoch\":1}");
        final CleanShutdownFile marker = new CleanShutdownFile(FileIO.system(), dir);
        assertFalse(marker.consume().present());
        assertFalse(Files.exists(dir.resolve(CleanShutdownFile.FILE_NAME + ".tmp")));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"version\":0,\"brokerEpoch\":42}|42",
        "{ \"brokerEpoch\" : 12 , \"version\" : 0 }|12",
        "{\"version\":0,\"brokerEpoch\":-1}|-1",
        "{\"version\":0,\"brokerEpoch\":null}|",
        "{\"version\":0}|",
        "''|",
        "garbage|",
        "{\"brokerEpoch\":12x}|",
        "{\"brokerEpoch\":99999999999999999999}|",
        "{\"version\":1,\"brokerEpoch\":5,\"extra\":true}|5"})
    void readsContentLeniently(final String content, final Long expectedEpoch) throws IOException {
        Files.writeString(dir.resolve(CleanShutdownFile.FILE_NAME), content);
        final CleanShutdownFile.Marker marker = new CleanShutdownFile(FileIO.system(), dir).read();
        assertTrue(marker.present());
        assertEquals(expectedEpoch == null ? OptionalLong.empty() : OptionalLong.of(expectedEpoch),
            marker.brokerEpoch());
    }

    @Test
    void oversizedMarkerCountsAsPresentWithoutEpoch() throws IOException {
        Files.write(dir.resolve(CleanShutdownFile.FILE_NAME), new byte[1 << 20]);
        assertEquals(new CleanShutdownFile.Marker(true, OptionalLong.empty()),
            new CleanShutdownFile(FileIO.system(), dir).read());
    }

    @Test
    void failedWriteLeavesNoMarker() throws IOException {
        for (final Op op : new Op[] {Op.WRITE, Op.FORCE, Op.ATOMIC_MOVE}) {
            final FaultInjectingFileIO io = new FaultInjectingFileIO().failNext(op);
            final CleanShutdownFile marker = new CleanShutdownFile(io, dir);
            assertThrows(IOException.class, () -> marker.write(1));
            assertFalse(Files.exists(marker.file()), op.toString());
            assertFalse(Files.exists(dir.resolve(CleanShutdownFile.FILE_NAME + ".tmp")), op.toString());
        }
    }

    /** A failed fsync is never retried: after one, the page cache may have dropped data, so no marker may claim clean. */
    @ParameterizedTest
    @CsvSource({"FORCE", "FSYNC_DIRECTORY"})
    void refusesEveryWriteAfterAFailedSync(final Op failing) throws IOException {
        final FaultInjectingFileIO io = new FaultInjectingFileIO().failNext(failing);
        final CleanShutdownFile marker = new CleanShutdownFile(io, dir);
        assertThrows(IOException.class, () -> marker.write(1));
        final int forces = io.count(Op.FORCE);
        final int dirSyncs = io.count(Op.FSYNC_DIRECTORY);
        final IOException again = assertThrows(IOException.class, () -> marker.write(2));
        assertTrue(again.getMessage().contains("refuses writes after an earlier failed fsync"), again.getMessage());
        assertEquals(forces, io.count(Op.FORCE), "no fsync retried");
        assertEquals(dirSyncs, io.count(Op.FSYNC_DIRECTORY), "no directory fsync retried");
        assertFalse(Files.exists(dir.resolve(CleanShutdownFile.FILE_NAME + ".tmp")));
    }
}
