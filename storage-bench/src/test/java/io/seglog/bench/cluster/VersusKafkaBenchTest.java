package io.seglog.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness's own arithmetic and file handling, without a cluster. */
class VersusKafkaBenchTest {
    @TempDir
    Path tmp;

    @Test
    void theWarmUpIsCutIntoStretchesThatAddUpToItsLength() {
        assertArrayEquals(new long[] {15_000, 15_000, 15_000, 15_000, 15_000, 15_000},
            VersusKafkaBench.warmChunks(90_000), "the default two minutes' full-rate part");
        assertArrayEquals(new long[] {15_000, 5_000}, VersusKafkaBench.warmChunks(20_000));
        assertArrayEquals(new long[] {750}, VersusKafkaBench.warmChunks(750), "--quick");
        assertArrayEquals(new long[0], VersusKafkaBench.warmChunks(0), "no warm-up");
        assertArrayEquals(new long[0], VersusKafkaBench.warmChunks(-1));
    }

    @Test
    void aFailedRunKeepsTheNodesLogsAndNotTheirData() throws Exception {
        final Path run = Files.createDirectories(tmp.resolve("autotuned-defaults-1-Seglog"));
        Files.writeString(run.resolve("broker-1.log"), "READY broker 1\n");
        Files.writeString(run.resolve("zookeeper.log"), "READY zookeeper\n");
        Files.writeString(run.resolve("broker-1.properties"), "broker.id=1\n");
        Files.createDirectories(run.resolve("broker-1/bench-1-0"));
        Files.writeString(run.resolve("broker-1/bench-1-0/00000000000000000000.log"), "data");

        final Path kept = tmp.resolve("out/failed-autotuned-defaults-1-Seglog");
        VersusKafkaBench.keepNodeLogs(run, kept);

        try (Stream<Path> files = Files.list(kept)) {
            assertEquals(List.of("broker-1.log", "zookeeper.log"),
                files.map(f -> f.getFileName().toString()).sorted().toList());
        }
        assertEquals("READY broker 1\n", Files.readString(kept.resolve("broker-1.log"), StandardCharsets.UTF_8));
    }

    @Test
    void keepingTheLogsOfARunWhoseDirectoryIsGoneFailsWithTheMissingPath() {
        final Path gone = tmp.resolve("never-created");
        final NoSuchFileException e = assertThrows(NoSuchFileException.class,
            () -> VersusKafkaBench.keepNodeLogs(gone, tmp.resolve("kept")));
        assertTrue(e.getMessage().contains("never-created"), e.getMessage());
    }
}
