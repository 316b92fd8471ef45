package io.seglog.storage.recovery;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Scratch directories for tests that open thousands of logs: on tmpfs ({@code /dev/shm}) when the machine has
 * one, where an fsync costs nothing, so the tests measure recovery logic rather than the disk; otherwise under
 * the given fallback. The logic under test is the same either way.
 */
final class FastDirs {
    private FastDirs() {
    }

    static Path create(final Path fallback, final String prefix) throws IOException {
        final Path shm = Paths.get("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) {
            return Files.createTempDirectory(shm, prefix);
        }
        return Files.createTempDirectory(fallback, prefix);
    }

    static void deleteTree(final Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (final Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
