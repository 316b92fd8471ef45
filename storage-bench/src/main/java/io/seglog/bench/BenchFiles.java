package io.seglog.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Where benchmark files go, and how they are removed.
 *
 * <p>Files live under {@code -Dseglog.bench.dir} (default {@code java.io.tmpdir}); each benchmark iteration
 * writes into a fresh directory that is deleted when the iteration ends, so dirty page cache stays bounded
 * (a few GB at most) and no run is throttled by the previous one's writeback.
 *
 * <p>Stateless; thread-safe.
 */
final class BenchFiles {

    private BenchFiles() {
    }

    /** @return a new empty directory for one benchmark iteration or trial */
    static Path newDirectory(String prefix) {
        try {
            Path base = Paths.get(System.getProperty("seglog.bench.dir", System.getProperty("java.io.tmpdir")));
            Files.createDirectories(base);
            return Files.createTempDirectory(base, "seglog-bench-" + prefix + "-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a benchmark directory", e);
        }
    }

    /** Deletes {@code dir} and everything below it; a null or missing directory is ignored. */
    static void deleteRecursively(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    if (e != null) {
                        throw e;
                    }
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}
