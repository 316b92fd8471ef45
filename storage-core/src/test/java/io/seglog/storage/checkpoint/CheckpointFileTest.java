package io.seglog.storage.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FaultInjectingFileIO;
import io.seglog.storage.io.FaultInjectingFileIO.Op;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class CheckpointFileTest {
    /** A trivial entry format: one non-negative long per line. */
    private static final CheckpointEntryFormat<Long> LONGS = new CheckpointEntryFormat<>() {
        @Override
        public void format(final Long entry, final StringBuilder out) {
            out.append(entry.longValue());
        }

        @Override
        public Long parse(final String line) {
            return CheckpointFields.parseNonNegativeLong(line, "value");
        }
    };

    @TempDir
    Path dir;

    private CheckpointFile<Long> checkpoint(final FileIO io) {
        return new CheckpointFile<>(io, dir.resolve("cp"), 0, LONGS);
    }

    private String content() throws IOException {
        return Files.readString(dir.resolve("cp"), StandardCharsets.US_ASCII);
    }

    @Test
    void writesKafkaTextFormatAndReadsItBack() throws IOException {
        final CheckpointFile<Long> cp = checkpoint(FileIO.system());
        cp.write(List.of(5L, 7L, 0L));
        assertEquals("0\n3\n5\n7\n0\n", content());
        assertEquals(List.of(5L, 7L, 0L), cp.read());
        assertFalse(Files.exists(cp.tempFile()), "temp file left behind");
    }

    @Test
    void writesTempFileFsyncsRenamesThenFsyncsDirectoryInThatOrder() throws IOException {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final CheckpointFile<Long> cp = checkpoint(io);
        cp.write(List.of(1L));
        final Path tmp = cp.tempFile();
        assertEquals(List.of(
            "OPEN " + tmp,
            "WRITE " + tmp + " 6",
            "FORCE " + tmp,
            "ATOMIC_MOVE " + tmp + " -> " + cp.file(),
            "FSYNC_DIRECTORY " + dir.toAbsolutePath().normalize()), io.journal());
    }

    @Test
    void missingAndEmptyFilesReadAsNoEntries() throws IOException {
        final CheckpointFile<Long> cp = checkpoint(FileIO.system());
        assertEquals(List.of(), cp.read());
        Files.write(cp.file(), new byte[0]);
        assertEquals(List.of(), cp.read());
    }

    @Test
    void emptyEntryListIsWrittenAsVersionAndZeroCount() throws IOException {
        final CheckpointFile<Long> cp = checkpoint(FileIO.system());
        cp.write(List.of());
        assertEquals("0\n0\n", content());
        assertEquals(List.of(), cp.read());
    }

    @Test
    void readsWindowsLineEndings() throws IOException {
        final CheckpointFile<Long> cp = checkpoint(FileIO.system());
        Files.writeString(cp.file(), "0\r\n2\r\n4\r\n9\r\n");
        assertEquals(List.of(4L, 9L), cp.read());
    }

    /** Each step of the write protocol fails once: the file then holds exactly the old or the new content. */
    @ParameterizedTest
    @EnumSource(value = Op.class, names = {"OPEN", "WRITE", "FORCE", "ATOMIC_MOVE", "FSYNC_DIRECTORY"})
    void failureAtEachStepLeavesOldOrNewContent(final Op op) throws IOException {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final CheckpointFile<Long> cp = checkpoint(io);
        cp.write(List.of(1L, 2L));
        final String old = content();
        io.failNext(op);

        final IOException e = assertThrows(IOException.class, () -> cp.write(List.of(3L, 4L, 5L)));
        assertTrue(e.getMessage().contains("injected fault: " + op), e.getMessage());

        final String now = content();
        if (op == Op.FSYNC_DIRECTORY) {
            // The rename happened; only its durability is unknown.
            assertEquals("0\n3\n3\n4\n5\n", now);
        } else {
            assertEquals(old, now);
        }
        assertFalse(Files.exists(cp.tempFile()), "temp file left behind after " + op + " failure");
        assertEquals(now.equals(old) ? List.of(1L, 2L) : List.of(3L, 4L, 5L), cp.read());
    }

    @ParameterizedTest
    @EnumSource(value = Op.class, names = {"FORCE", "FSYNC_DIRECTORY"})
    void failedFsyncIsNeverRetried(final Op op) throws IOException {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final CheckpointFile<Long> cp = checkpoint(io);
        io.failNext(op);
        assertThrows(IOException.class, () -> cp.write(List.of(1L)));
        assertEquals(1, io.count(op), "fsync attempts");

        final int forces = io.count(Op.FORCE);
        final int dirSyncs = io.count(Op.FSYNC_DIRECTORY);
        final int opens = io.count(Op.OPEN);
        final IOException again = assertThrows(IOException.class, () -> cp.write(List.of(2L)));
        assertTrue(again.getMessage().contains("refuses writes after an earlier failed fsync"), again.getMessage());
        assertEquals(forces, io.count(Op.FORCE), "a later write must not fsync again");
        assertEquals(dirSyncs, io.count(Op.FSYNC_DIRECTORY));
        assertEquals(opens, io.count(Op.OPEN), "a later write must not even open the temp file");
    }

    @Test
    void failedWriteOrRenameMayBeRetried() throws IOException {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final CheckpointFile<Long> cp = checkpoint(io);
        io.failNext(Op.WRITE);
        assertThrows(IOException.class, () -> cp.write(List.of(1L)));
        io.failNext(Op.ATOMIC_MOVE);
        assertThrows(IOException.class, () -> cp.write(List.of(1L)));
        cp.write(List.of(8L));
        assertEquals(List.of(8L), cp.read());
    }

    @Test
    void tornTempFileFromCrashedWriteIsIgnoredAndCleanedUp() throws IOException {
        final CheckpointFile<Long> cp = checkpoint(FileIO.system());
        cp.write(List.of(1L));
        Files.writeString(cp.tempFile(), "0\n5\n1\n");
        assertEquals(List.of(1L), cp.read());
        assertTrue(cp.deleteStaleTempFile());
        assertFalse(Files.exists(cp.tempFile()));
        assertFalse(cp.deleteStaleTempFile());
    }

    @Test
    void lostUnsyncedDataNeverAffectsACompletedWrite() throws IOException {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final CheckpointFile<Long> cp = checkpoint(io);
        cp.write(List.of(1L, 2L));
        assertEquals(Map.of(), io.loseUnsyncedData());
        assertEquals(List.of(1L, 2L), cp.read());
    }

    @Test
    void rejectsEntryThatIsNotPrintableAscii() {
        final CheckpointFile<String> cp = new CheckpointFile<>(FileIO.system(), dir.resolve("s"), 0,
            new CheckpointEntryFormat<>() {
                @Override
                public void format(final String entry, final StringBuilder out) {
                    out.append(entry);
                }

                @Override
                public String parse(final String line) {
                    return line;
                }
            });
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> cp.write(List.of("a\nb")));
        assertTrue(e.getMessage().contains("not printable ASCII (0xa)"), e.getMessage());
        assertFalse(Files.exists(cp.file()));
    }

    @Test
    void rejectsBadConstructorArguments() {
        assertThrows(IllegalArgumentException.class,
            () -> new CheckpointFile<>(FileIO.system(), dir.resolve("x"), 0, LONGS, 0));
    }
}
