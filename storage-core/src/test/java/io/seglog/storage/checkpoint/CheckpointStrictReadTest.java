package io.seglog.storage.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every way a checkpoint can break its format is rejected with the path and the line named. */
class CheckpointStrictReadTest {
    @TempDir
    Path dir;

    static Stream<Arguments> offsetFiles() {
        return Stream.of(
            Arguments.of("wrong version", "1\n1\nt 0 5\n", 1, "version=1, expected=0"),
            Arguments.of("version not a number", "zero\n1\nt 0 5\n", 1, "version='zero' is not a decimal number"),
            Arguments.of("version with plus", "+0\n1\nt 0 5\n", 1, "version='+0'"),
            Arguments.of("missing count line", "0\n", 2, "missing count line"),
            Arguments.of("count not a number", "0\nx\n", 2, "count='x'"),
            Arguments.of("negative count", "0\n-1\n", 2, "count=-1 must be >= 0"),
            Arguments.of("count above int range", "0\n2147483648\n", 2, "out of the range of a 32-bit integer"),
            Arguments.of("fewer entries than count", "0\n3\nt 0 5\nt 1 6\n", 5, "count=3 but the file ends after 2"),
            Arguments.of("more entries than count", "0\n1\nt 0 5\nt 1 6\n", 4, "unexpected data after the last"),
            Arguments.of("trailing blank line", "0\n1\nt 0 5\n\n", 4, "unexpected data after the last"),
            Arguments.of("last line unterminated", "0\n1\nt 0 5", 3, "not terminated by a newline"),
            Arguments.of("header unterminated", "0", 1, "not terminated by a newline"),
            Arguments.of("two fields", "0\n1\nt 0\n", 3, "expected 3 fields"),
            Arguments.of("four fields", "0\n1\nt 0 5 6\n", 3, "expected 3 fields"),
            Arguments.of("double space", "0\n1\nt  0 5\n", 3, "empty field 2"),
            Arguments.of("tab separator", "0\n1\nt\t0 5\n", 3, "byte 0x9 at column 2 is not printable ASCII"),
            Arguments.of("leading space", "0\n1\n t 0 5\n", 3, "empty field 1"),
            Arguments.of("trailing space", "0\n1\nt 0 5 \n", 3, "expected 3 fields"),
            Arguments.of("offset not a number", "0\n1\nt 0 5x\n", 3, "offset='5x'"),
            Arguments.of("offset overflow", "0\n1\nt 0 9223372036854775808\n", 3, "out of the range of a 64-bit"),
            Arguments.of("negative offset", "0\n1\nt 0 -5\n", 3, "offset=-5 must be >= 0"),
            Arguments.of("negative partition", "0\n1\nt -1 5\n", 3, "partition=-1 must be >= 0"),
            Arguments.of("illegal topic", "0\n1\nt/x 0 5\n", 3, "illegal character '/'"),
            Arguments.of("dot-dot topic", "0\n1\n.. 0 5\n", 3, "must not be '.' or '..'"),
            Arguments.of("non-ascii byte", "0\n1\nt\u00e9 0 5\n", 3, "not printable ASCII"),
            Arguments.of("NUL byte", "0\n1\nt\u0000 0 5\n", 3, "byte 0x0 at column 2"),
            Arguments.of("duplicate partition", "0\n3\na 0 1\nb 0 2\na 0 3\n", 5,
                "duplicate entry for partition a-0 (first at line 3)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("offsetFiles")
    void rejectsCorruptOffsetCheckpoint(final String name, final String content, final int line, final String reason)
        throws IOException {
        final Path file = dir.resolve(OffsetCheckpointFile.RECOVERY_POINT_FILE);
        Files.write(file, content.getBytes(StandardCharsets.UTF_8));
        final CorruptCheckpointException e = assertThrows(CorruptCheckpointException.class,
            () -> new OffsetCheckpointFile(FileIO.system(), file).read());
        assertEquals(file.toAbsolutePath(), e.file());
        assertEquals(line, e.lineNumber(), e.getMessage());
        assertTrue(e.getMessage().contains(reason), e.getMessage());
        assertTrue(e.getMessage().startsWith("corrupt checkpoint file " + file.toAbsolutePath() + " at line " + line),
            e.getMessage());
    }

    static Stream<Arguments> epochFiles() {
        return Stream.of(
            Arguments.of("epoch not increasing", "0\n2\n3 10\n3 20\n", 4, "does not follow"),
            Arguments.of("epoch decreasing", "0\n2\n3 10\n2 20\n", 4, "does not follow"),
            Arguments.of("offset not increasing", "0\n2\n1 10\n2 10\n", 4, "does not follow"),
            Arguments.of("epoch above int", "0\n1\n2147483648 0\n", 3, "out of the range of a 32-bit integer"),
            Arguments.of("negative epoch", "0\n1\n-1 0\n", 3, "epoch=-1 must be >= 0"),
            Arguments.of("three fields", "0\n1\n1 2 3\n", 3, "expected 2 fields"),
            Arguments.of("wrong version", "1\n0\n", 1, "version=1, expected=0"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("epochFiles")
    void rejectsCorruptLeaderEpochCheckpoint(final String name, final String content, final int line,
                                             final String reason) throws IOException {
        final Path file = dir.resolve(LeaderEpochCheckpointFile.FILE_NAME);
        Files.writeString(file, content);
        final CorruptCheckpointException e = assertThrows(CorruptCheckpointException.class,
            () -> new LeaderEpochCheckpointFile(FileIO.system(), file).read());
        assertEquals(file.toAbsolutePath(), e.file());
        assertEquals(line, e.lineNumber(), e.getMessage());
        assertTrue(e.getMessage().contains(reason), e.getMessage());
    }

    /** The count line claims 2^31-1 entries; the reader must not size anything from it. */
    @Test
    void hugeCountLineDoesNotAllocateForIt() throws IOException {
        final Path file = dir.resolve("huge");
        Files.writeString(file, "0\n2147483647\nt 0 1\n");
        final Runtime runtime = Runtime.getRuntime();
        // An ArrayList sized from the count would need 8 GiB of references: more than this heap can hold.
        assertTrue(runtime.maxMemory() < 8L * Integer.MAX_VALUE, "test needs a heap below 16 GiB");
        final CorruptCheckpointException e = assertThrows(CorruptCheckpointException.class,
            () -> new OffsetCheckpointFile(FileIO.system(), file).read());
        assertEquals(4, e.lineNumber());
        assertTrue(e.getMessage().contains("count=2147483647 but the file ends after 1 entries"), e.getMessage());
    }

    @Test
    void fileLargerThanLimitIsRejectedBeforeReading() throws IOException {
        final Path file = dir.resolve("big");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            // A sparse 3 GiB file: reading it into memory would fail with OutOfMemoryError.
            channel.write(java.nio.ByteBuffer.wrap(new byte[] {'0'}), 3L << 30);
        }
        final CheckpointFile<Long> cp = new CheckpointFile<>(FileIO.system(), file, 0, new CheckpointEntryFormat<>() {
            @Override
            public void format(final Long entry, final StringBuilder out) {
                out.append(entry.longValue());
            }

            @Override
            public Long parse(final String line) {
                return Long.valueOf(line);
            }
        });
        final CorruptCheckpointException e = assertThrows(CorruptCheckpointException.class, cp::read);
        assertEquals(CorruptCheckpointException.WHOLE_FILE, e.lineNumber());
        assertTrue(e.getMessage().contains("file size=3221225473 bytes exceeds the limit of 67108864 bytes"),
            e.getMessage());
    }
}
