package io.seglog.storage.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The bounded output of a decompression: it grows keeping what was written, refuses room past its limit before
 * allocating it, and does not keep a buffer grown past 1 MiB for the next batch.
 */
class DecompressionBufferTest {
    @Test
    void growsKeepingTheBytesAndRefusesRoomPastTheLimit() throws CodecException {
        final DecompressionBuffer out = new DecompressionBuffer(300_000);
        ByteBuffer buffer = out.reset();
        buffer.put((byte) 7).put((byte) 9);
        buffer = out.ensureRoom(200_000);
        assertTrue(buffer.capacity() >= 200_002, "capacity " + buffer.capacity());
        assertEquals(2, buffer.position());
        assertEquals(7, buffer.get(0));
        assertEquals(9, buffer.get(1));
        assertEquals(299_998, out.roomBeforeLimit());
        final CodecException past = assertThrows(CodecException.class, () -> out.ensureRoom(299_999));
        assertTrue(past.overLimit(), past.getMessage());
        assertTrue(out.buffer().capacity() <= 300_000, "never allocates past the limit");
    }

    @Test
    void aBufferGrownPastOneMebibyteIsDroppedAtTheNextReset() throws CodecException {
        final DecompressionBuffer out = new DecompressionBuffer(64 << 20);
        out.reset();
        out.ensureRoom(DecompressionBuffer.RETAINED_BYTES + 1);
        assertTrue(out.buffer().capacity() > DecompressionBuffer.RETAINED_BYTES);
        assertEquals(64 * 1024, out.reset().capacity());
        out.ensureRoom(512 * 1024);
        final ByteBuffer kept = out.buffer();
        assertTrue(kept == out.reset(), "a buffer within 1 MiB is reused");
    }
}
