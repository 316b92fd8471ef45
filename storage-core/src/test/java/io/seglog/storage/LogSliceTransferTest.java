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
