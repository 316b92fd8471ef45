package io.seglog.storage.recovery;

import io.seglog.storage.LogConfig;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base of the recovery tests that build and reopen many logs: a {@link FastDirs} scratch directory per test
 * ({@link #tmp}), deleted after it, and the small-segment configuration most of them use.
 */
abstract class ScratchDirTest {
    /** Record timestamps here are arbitrary test values, not near the clock: no message.timestamp.after.max.ms. */
    static final long NO_BOUND = Long.MAX_VALUE;
    /** Small segments and indexes, so a few dozen batches span several segments and index entries. */
    static final LogConfig SMALL_SEGMENTS = LogConfig.builder().messageTimestampAfterMaxMs(NO_BOUND).segmentBytes(1_500)
        .indexIntervalBytes(100).segmentIndexBytes(4096).build();

    @TempDir
    Path fallback;
    /** This test's scratch directory. */
    Path tmp;
    private final String prefix;

    ScratchDirTest(final String prefix) {
        this.prefix = prefix;
    }

    @BeforeEach
    void createScratchDir() throws IOException {
        tmp = FastDirs.create(fallback, prefix);
    }

    @AfterEach
    void deleteScratchDir() throws IOException {
        FastDirs.deleteTree(tmp);
    }
}
