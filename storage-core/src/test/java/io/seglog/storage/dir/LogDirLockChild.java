package io.seglog.storage.dir;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Run in a child JVM by {@link LogDirLockTest}: {@code try <dir>} tries to lock and exits 0 (locked) or 3
 * (printing the error); {@code hold <dir>} locks, prints {@code ACQUIRED} and holds until stdin closes.
 */
public final class LogDirLockChild {
    static final int EXIT_LOCKED_BY_OTHER = 3;

    private LogDirLockChild() {
    }

    /**
     * Entry point.
     *
     * @param args mode and directory
     * @throws IOException if locking fails for another reason
     */
    public static void main(final String[] args) throws IOException {
        final Path dir = Path.of(args[1]);
        try (LogDirLock lock = LogDirLock.acquire(FileIO.system(), dir)) {
            System.out.println("ACQUIRED " + lock.directory());
            System.out.flush();
            if (args[0].equals("hold")) {
                while (System.in.read() >= 0) {
                    // Holds the lock until the parent closes our stdin (or kills us).
                }
            }
        } catch (final LogDirLockedException e) {
            System.out.println("LOCKED " + e.getMessage());
            System.out.flush();
            System.exit(EXIT_LOCKED_BY_OTHER);
        }
    }
}
