package io.seglog.storage.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FaultInjectingFileIO.Op;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FaultInjectingFileIOTest {
    private static final Set<StandardOpenOption> CREATE_RW =
        Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);

    @TempDir
    Path dir;

    private final FaultInjectingFileIO io = new FaultInjectingFileIO();

    private static ByteBuffer bytes(final String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void failsExactlyTheNthWriteWithoutWritingIt() throws IOException {
        final Path file = dir.resolve("f");
        io.failOnCall(Op.WRITE, 2);
        try (FileChannel channel = io.open(file, CREATE_RW)) {
            channel.write(bytes("one"));
            final IOException e = assertThrows(IOException.class, () -> channel.write(bytes("two")));
            assertEquals("injected fault: WRITE call #2 on " + file.toAbsolutePath() + " 3", e.getMessage());
            channel.write(bytes("three"));
        }
        assertEquals("onethree", Files.readString(file));
        assertEquals(3, io.count(Op.WRITE));
        assertEquals(List.of(
            "OPEN " + file.toAbsolutePath(),
            "WRITE " + file.toAbsolutePath() + " 3",
            "WRITE " + file.toAbsolutePath() + " 3 FAILED",
            "WRITE " + file.toAbsolutePath() + " 5"), io.journal());
    }

    @Test
    void tornWriteLeavesHalfOfTheBytes() throws IOException {
        final Path file = dir.resolve("torn");
        io.tornWrites(true).failNext(Op.WRITE);
        try (FileChannel channel = io.open(file, CREATE_RW)) {
            final ByteBuffer data = bytes("abcdefgh");
            assertThrows(IOException.class, () -> channel.write(data));
            assertEquals(0, data.position(), "the caller's buffer is not consumed by a failed write");
        }
        assertEquals("abcd", Files.readString(file));
    }

    @Test
    void failFromCallMakesEveryLaterCallFail() throws IOException {
        final Path file = dir.resolve("dead");
        io.failFromCall(Op.FORCE, 2);
        try (FileChannel channel = io.open(file, CREATE_RW)) {
            channel.force(true);
            assertThrows(IOException.class, () -> channel.force(true));
            assertThrows(IOException.class, () -> channel.force(false));
        }
        assertEquals(3, io.count(Op.FORCE));
        io.clearFaults();
        try (FileChannel channel = io.open(file, CREATE_RW)) {
            channel.force(true);
        }
        assertEquals(4, io.count(Op.FORCE));
    }

    @Test
    void failsOpenDirectorySyncMoveAndDelete() throws IOException {
        final Path a = dir.resolve("a");
        final Path b = dir.resolve("b");
        Files.writeString(a, "x");
        io.failNext(Op.OPEN).failNext(Op.FSYNC_DIRECTORY).failNext(Op.ATOMIC_MOVE).failNext(Op.DELETE);

        assertThrows(IOException.class, () -> io.open(a, Set.of(StandardOpenOption.READ)));
        assertThrows(IOException.class, () -> io.fsyncDirectory(dir));
        assertThrows(IOException.class, () -> io.atomicMove(a, b));
        assertTrue(Files.exists(a), "a failed move moves nothing");
        assertThrows(IOException.class, () -> io.deleteIfExists(a));
        assertTrue(Files.exists(a), "a failed delete deletes nothing");

        io.open(a, Set.of(StandardOpenOption.READ)).close();
        io.fsyncDirectory(dir);
        io.atomicMove(a, b);
        assertTrue(io.deleteIfExists(b));
        for (final Op op : List.of(Op.OPEN, Op.FSYNC_DIRECTORY, Op.ATOMIC_MOVE, Op.DELETE)) {
            assertEquals(2, io.count(op), op.toString());
        }
        assertThrows(IllegalArgumentException.class, () -> io.failOnCall(Op.WRITE, 0));
    }

    @Test
    void channelDelegatesEveryOperation() throws IOException {
        final Path file = dir.resolve("all");
        final Path other = dir.resolve("other");
        try (FileChannel channel = io.open(file, CREATE_RW); FileChannel target = io.open(other, CREATE_RW)) {
            assertEquals(4, channel.write(bytes("0123")));
            assertEquals(6, channel.write(new ByteBuffer[] {bytes("45"), bytes("6789")}, 0, 2));
            assertEquals(2, channel.write(bytes("ab"), 10));
            assertEquals(12, channel.size());
            assertEquals(10, channel.position());
            assertSame(channel, channel.position(2));

            final ByteBuffer two = ByteBuffer.allocate(2);
            assertEquals(2, channel.read(two));
            assertEquals("23", new String(two.array(), StandardCharsets.US_ASCII));
            final ByteBuffer[] scatter = {ByteBuffer.allocate(1), ByteBuffer.allocate(2)};
            assertEquals(3, channel.read(scatter, 0, 2));
            assertEquals('4', scatter[0].get(0));
            final ByteBuffer at = ByteBuffer.allocate(2);
            assertEquals(2, channel.read(at, 10));
            assertEquals("ab", new String(at.array(), StandardCharsets.US_ASCII));

            final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, 4);
            assertEquals('3', mapped.get(3));
            assertEquals(1, io.count(Op.MAP), "a map call is counted");
            io.failNext(Op.MAP);
            final IOException mapFault = assertThrows(IOException.class,
                () -> channel.map(FileChannel.MapMode.READ_WRITE, 0, 8192));
            assertTrue(mapFault.getMessage().contains("MAP call #2"), mapFault.getMessage());
            assertEquals(12, channel.size(), "a failed map does not extend the file");

            final int writesBefore = io.count(Op.WRITE);
            assertEquals(12, channel.transferTo(0, 12, target), "transferTo into one of our channels");
            assertEquals(writesBefore + 1, io.count(Op.WRITE), "a transfer into our channel is a write");
            final ByteArrayOutputStream sink = new ByteArrayOutputStream();
            assertEquals(4, channel.transferTo(0, 4, Channels.newChannel(sink)));
            assertEquals("0123", sink.toString(StandardCharsets.US_ASCII));
            assertEquals(4, target.transferFrom(channel.position(0), 12, 4));
            assertEquals(writesBefore + 2, io.count(Op.WRITE));

            assertSame(channel, channel.truncate(5));
            assertEquals(5, channel.size());

            final FileLock lock = channel.lock(0, 1, false);
            assertSame(channel, lock.channel());
            assertTrue(lock.isValid());
            lock.release();
            assertFalse(lock.isValid());
            final FileLock tried = channel.tryLock();
            assertNotNull(tried);
            assertSame(channel, tried.channel());
            tried.close();

            channel.force(false);
        }
        assertEquals("01234", Files.readString(file));
        assertEquals("0123456789ab0123", Files.readString(other));
        assertEquals(1, io.count(Op.FORCE));
    }

    @Test
    void closingTheWrapperClosesTheRealChannel() throws IOException {
        final FileChannel channel = io.open(dir.resolve("c"), CREATE_RW);
        final FileChannel real = ((FaultInjectingFileChannel) channel).delegate();
        channel.close();
        assertFalse(channel.isOpen());
        assertFalse(real.isOpen());
    }

    @Test
    void overlappingLockInOneJvmPassesThroughTheWrapper() throws IOException {
        // Within one JVM an overlapping lock throws (another process would get null); the wrapper passes it on.
        try (FileChannel first = io.open(dir.resolve("l"), CREATE_RW);
             FileChannel second = io.open(dir.resolve("l"), CREATE_RW)) {
            final FileLock held = first.tryLock();
            assertNotNull(held);
            assertThrows(java.nio.channels.OverlappingFileLockException.class, second::tryLock);
            held.release();
            final FileLock now = second.tryLock();
            assertNotNull(now);
            now.release();
        }
    }

    @Test
    void losesBytesWrittenAfterTheLastFsync() throws IOException {
        final Path synced = dir.resolve("synced");
        final Path neverSynced = dir.resolve("never");
        final Path existing = dir.resolve("existing");
        Files.writeString(existing, "old!");
        try (FileChannel a = io.open(synced, CREATE_RW);
             FileChannel b = io.open(neverSynced, CREATE_RW);
             FileChannel c = io.open(existing, CREATE_RW)) {
            a.write(bytes("durable"));
            a.force(true);
            a.write(bytes("-lost"));
            b.write(bytes("all lost"));
            c.position(4);
            c.write(bytes("+new"));
        }
        assertEquals(Map.of(synced.toAbsolutePath(), 7L, neverSynced.toAbsolutePath(), 0L,
            existing.toAbsolutePath(), 4L), io.syncedLengths());

        final Map<Path, Long> lost = io.loseUnsyncedData();
        assertEquals(Map.of(synced.toAbsolutePath(), 5L, neverSynced.toAbsolutePath(), 8L,
            existing.toAbsolutePath(), 4L), lost);
        assertEquals("durable", Files.readString(synced));
        assertEquals("", Files.readString(neverSynced));
        assertEquals("old!", Files.readString(existing));
        assertEquals(Map.of(), io.loseUnsyncedData(), "a second crash loses nothing more");
    }

    @Test
    void syncedLengthFollowsRenamesAndTruncatingOpens() throws IOException {
        final Path tmp = dir.resolve("x.tmp");
        final Path file = dir.resolve("x");
        try (FileChannel channel = io.open(tmp, CREATE_RW)) {
            channel.write(bytes("abc"));
            channel.force(true);
        }
        io.atomicMove(tmp, file);
        assertEquals(Map.of(file.toAbsolutePath(), 3L), io.syncedLengths());

        try (FileChannel channel = io.open(file,
            Set.of(StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING))) {
            channel.write(bytes("defg"));
        }
        io.loseUnsyncedData();
        assertArrayEquals(new byte[0], Files.readAllBytes(file));

        io.deleteIfExists(file);
        assertEquals(Map.of(), io.syncedLengths());
    }
}
