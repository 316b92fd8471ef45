package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.format.RecordBatchBuilder;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link LogSlice#transferTo}: a short count only for a full non-blocking target; a shortened file is an error. */
class LogSliceTransferTest {
    @TempDir
    Path dir;

    @Test
    void aSliceWhoseBytesWereTruncatedFailsInsteadOfComingUpShort() throws IOException {
        try (PartitionLog log = open(); Pipe.SinkChannel sink = Pipe.open().sink()) {
            for (int i = 0; i < 4; i++) {
                log.appendAsLeader(batch(i), 0);
            }
            final LogSlice slice = log.read(2, 1 << 16, Long.MAX_VALUE, true);
            log.truncateTo(1);
            final IOException e = assertThrows(IOException.class, () -> slice.transferTo(sink));
            assertTrue(e.getMessage().contains("segment file ended"), e.getMessage());
        }
    }

    @Test
    void aFullNonBlockingTargetGivesAShortCountToContinueFrom() throws IOException {
        final Pipe pipe = Pipe.open();
        try (PartitionLog log = open(); Pipe.SinkChannel sink = pipe.sink(); Pipe.SourceChannel source = pipe.source()) {
            log.appendAsLeader(batch(0), 0);
            final LogSlice slice = log.read(0, 1 << 16, Long.MAX_VALUE, true);
            sink.configureBlocking(false);
            final ByteBuffer filler = ByteBuffer.allocate(1 << 16);
            while (sink.write(filler.clear()) > 0) {
                // fill the pipe's buffer until it accepts nothing
            }
            assertEquals(0, slice.transferTo(sink), "nothing fits, nothing thrown");
        }
    }

    @Test
    void readIntoGivesTheSameBytesThroughTheMappingAsWithPositionalReads() throws IOException {
        try (PartitionLog mapped = open();
             PartitionLog plain = PartitionLog.open(dir.resolve("plain-0"), LogConfig.builder().readMapped(false).build(),
                 FileIO.system(), new ManualClock(0))) {
            for (int i = 0; i < 6; i++) {
                mapped.appendAsLeader(batch(i), 0);
                plain.appendAsLeader(batch(i), 0);
            }
            for (final boolean direct : new boolean[] {true, false}) {
                final LogSlice a = mapped.read(2, 1 << 16, 5, true);
                final LogSlice b = plain.read(2, 1 << 16, 5, true);
                assertEquals(b.sizeInBytes(), a.sizeInBytes());
                final ByteBuffer fromMap = direct ? ByteBuffer.allocateDirect(a.sizeInBytes() + 7)
                    : ByteBuffer.allocate(a.sizeInBytes() + 7);
                final ByteBuffer fromPread = ByteBuffer.allocate(b.sizeInBytes() + 7);
                fromMap.position(7);
                fromPread.position(7);
                a.readInto(fromMap);
                b.readInto(fromPread);
                assertEquals(fromMap.capacity(), fromMap.position(), "the target's position advances by the slice");
                assertEquals(fromPread.flip(), fromMap.flip(), "direct=" + direct);
            }
            assertThrows(RuntimeException.class,
                () -> mapped.read(0, 1 << 16, Long.MAX_VALUE, true).readInto(ByteBuffer.allocate(1 << 16).asReadOnlyBuffer()),
                "a read-only target is refused, as by a positional read");
        }
    }

    @Test
    void aSliceWhoseBytesWereTruncatedFailsOnReadIntoThroughTheMapping() throws IOException {
        try (PartitionLog log = open()) {
            for (int i = 0; i < 4; i++) {
                log.appendAsLeader(batch(i), 0);
            }
            final LogSlice slice = log.read(2, 1 << 16, Long.MAX_VALUE, true);
            slice.readInto(ByteBuffer.allocate(slice.sizeInBytes())); // maps the segment
            log.truncateTo(1);
            // The truncation dropped the mapping before it cut the file: the copy falls back to a read that ends early.
            final IOException e = assertThrows(IOException.class, () -> slice.readInto(ByteBuffer.allocate(slice.sizeInBytes())));
            assertTrue(e.getMessage().contains("segment file ended"), e.getMessage());
        }
    }

    private PartitionLog open() {
        return PartitionLog.open(dir.resolve("t-0"), LogConfig.builder().build(), FileIO.system(), new ManualClock(0));
    }

    private static ByteBuffer batch(final int i) {
        final UnsafeBuffer built = RecordBatchBuilder.batchOf(0, 1_000L + i, new byte[100]);
        final ByteBuffer copy = ByteBuffer.allocate(built.capacity());
        built.getBytes(0, copy, 0, built.capacity());
        return copy;
    }
}
