package io.seglog.storage.index;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code prepareForAppends} (used before a recovery scan rebuilds an index) changes neither the entries nor what
 * appends then write: the files are byte-identical to ones built without it, also when asked for more slots than
 * the file has or after entries exist.
 */
class PrepareForAppendsTest {
    @TempDir
    Path dir;

    private byte[] build(final String name, final int prepareAfter, final int slots) throws IOException {
        final Path offsets = dir.resolve(name + ".index");
        final Path times = dir.resolve(name + ".timeindex");
        try (OffsetIndex offsetIndex = OffsetIndex.open(FileIO.system(), offsets, 1_000, 4096);
             TimeIndex timeIndex = TimeIndex.open(FileIO.system(), times, 1_000, 4096)) {
            for (int i = 0; i < 200; i++) {
                if (i == prepareAfter) {
                    offsetIndex.prepareForAppends(slots);
                    timeIndex.prepareForAppends(slots);
                    assertEquals(i, offsetIndex.entries(), "entries unchanged by prepare");
                    assertEquals(i, timeIndex.entries(), "entries unchanged by prepare");
                }
                offsetIndex.append(1_000 + 10L * i, 100 * i);
                timeIndex.maybeAppend(5_000 + 7L * i, 1_000 + 10L * i, false);
            }
            assertEquals(200, offsetIndex.entries());
            assertEquals(100 * 57, offsetIndex.lookupPosition(1_000 + 10L * 57 + 3));
        }
        final byte[] a = Files.readAllBytes(offsets);
        final byte[] b = Files.readAllBytes(times);
        final byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    @Test
    void preparedSlotsChangeNothingButSpeed() throws IOException {
        final byte[] plain = build("plain", -1, 0);
        assertEquals(200 * 8 + 200 * 12, plain.length, "trimmed to the entries on close");
        assertArrayEquals(plain, build("fresh", 0, 250), "prepared before the first entry");
        assertArrayEquals(plain, build("later", 120, 10), "prepared after entries, fewer slots than appended");
        assertArrayEquals(plain, build("huge", 0, Integer.MAX_VALUE), "more slots than the file has");
    }
}
