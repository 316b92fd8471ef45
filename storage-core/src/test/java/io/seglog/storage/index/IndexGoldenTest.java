package io.seglog.storage.index;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exact bytes of a few entries of each index, annotated; docs/format.md shows the same dumps.
 */
class IndexGoldenTest {
    private static final HexFormat HEX = HexFormat.of();

    @TempDir
    Path dir;

    private static byte[] hex(final String annotated) {
        // Drops the annotations after '#' and all whitespace.
        final StringBuilder digits = new StringBuilder();
        for (final String line : annotated.split("\n")) {
            final int comment = line.indexOf('#');
            digits.append((comment < 0 ? line : line.substring(0, comment)).replaceAll("\\s", ""));
        }
        return HEX.parseHex(digits);
    }

    @Test
    void offsetIndexBytes() throws IOException {
        final Path file = dir.resolve("00000000000000001000.index");
        try (OffsetIndex index = OffsetIndex.open(FileIO.system(), file, 1000, 1024)) {
            index.append(1099, 10997);
            index.append(1200, 22_054);
            index.append(1000L + Integer.MAX_VALUE, 0x7FFF_FFF0);
        }
        final byte[] expected = hex("""
            00 00 00 63  00 00 2a f5   # slot 0: relativeOffset 99 (offset 1099),       position 10997
            00 00 00 c8  00 00 56 26   # slot 1: relativeOffset 200 (offset 1200),      position 22054
            7f ff ff ff  7f ff ff f0   # slot 2: relativeOffset 2^31-1 (largest legal), position 2147483632
            """);
        assertArrayEquals(expected, Files.readAllBytes(file), HEX.formatHex(Files.readAllBytes(file)));
        try (OffsetIndex reopened = OffsetIndex.open(FileIO.system(), file, 1000, 1024)) {
            assertEquals(3, reopened.entries());
            assertEquals(1200, reopened.lookupOffset(1500));
            assertEquals(22_054, reopened.lookupPosition(1500));
        }
    }

    @Test
    void timeIndexBytes() throws IOException {
        final Path file = dir.resolve("00000000000000001000.timeindex");
        try (TimeIndex index = TimeIndex.open(FileIO.system(), file, 1000, 1200)) {
            index.maybeAppend(1_700_000_000_000L, 1099, false);
            index.maybeAppend(1_700_000_000_000L, 1150, false);   // equal timestamp: ignored
            index.maybeAppend(1_700_000_000_250L, 1150, false);
            index.maybeAppend(1_700_000_000_250L, 1160, true);    // roll entry repeating the timestamp: ignored
        }
        final byte[] expected = hex("""
            00 00 01 8b cf e5 68 00  00 00 00 63   # slot 0: ts 1700000000000, relativeOffset 99 (offset 1099)
            00 00 01 8b cf e5 68 fa  00 00 00 96   # slot 1: ts 1700000000250, relativeOffset 150 (offset 1150)
            """);
        assertArrayEquals(expected, Files.readAllBytes(file), HEX.formatHex(Files.readAllBytes(file)));
        try (TimeIndex reopened = TimeIndex.open(FileIO.system(), file, 1000, 1200)) {
            assertEquals(1150, reopened.lookupOffset(1_700_000_000_300L));
            assertEquals(1099, reopened.lookupOffset(1_700_000_000_249L));
            assertEquals(1000, reopened.lookupOffset(1_699_999_999_999L));
        }
    }
}
