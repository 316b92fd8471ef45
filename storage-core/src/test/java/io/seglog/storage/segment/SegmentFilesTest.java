package io.seglog.storage.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SegmentFilesTest {
    @Test
    void namesAreTheBaseOffsetInTwentyDigits() {
        assertEquals("00000000000000000000.log", SegmentFiles.fileName(0, SegmentFiles.LOG_SUFFIX));
        assertEquals("00000000000000004127.index", SegmentFiles.fileName(4127, SegmentFiles.INDEX_SUFFIX));
        assertEquals("09223372036854775807.timeindex",
            SegmentFiles.fileName(Long.MAX_VALUE, SegmentFiles.TIME_INDEX_SUFFIX));
    }

    @Test
    void parsesOnlySegmentDataFileNames() {
        assertEquals(0, SegmentFiles.parseBaseOffset("00000000000000000000.log"));
        assertEquals(2147483648L, SegmentFiles.parseBaseOffset("00000000002147483648.log"));
        assertEquals(Long.MAX_VALUE, SegmentFiles.parseBaseOffset("09223372036854775807.log"));
        assertEquals(-1, SegmentFiles.parseBaseOffset("99999999999999999999.log"), "overflows a long");
        assertEquals(-1, SegmentFiles.parseBaseOffset("25000000000000000000.log"), "overflows a long");
        assertEquals(-1, SegmentFiles.parseBaseOffset("09223372036854775808.log"), "Long.MAX_VALUE + 1");
        assertEquals(-1, SegmentFiles.parseBaseOffset("0000000000000000000a.log"));
        assertEquals(-1, SegmentFiles.parseBaseOffset("0000.log"));
        assertEquals(-1, SegmentFiles.parseBaseOffset("00000000000000000000.log.deleted"));
        assertEquals(-1, SegmentFiles.parseBaseOffset("00000000000000000000.index"));
        assertEquals(-1, SegmentFiles.parseBaseOffset("00000000000000000000.swap"));
    }
}
