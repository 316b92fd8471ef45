package io.seglog.storage.dir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FaultInjectingFileIO;
import io.seglog.storage.io.FileIO;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LogDirLockTest {
    private static final long CHILD_TIMEOUT_S = 60;

    @TempDir
    Path dir;

    @Test
    void secondOwnerInTheSameProcessIsRefusedNamingTheDirectory() throws IOException {
        final LogDirLock first = LogDirLock.acquire(FileIO.system(), dir);
        assertTrue(first.isHeld());
        final LogDirLockedException e = assertThrows(LogDirLockedException.class,
            () -> LogDirLock.acquire(new FaultInjectingFileIO(), dir));
        assertEquals(dir.toAbsolutePath(), e.directory());
        assertTrue(e.getMessage().contains("log directory " + dir.toAbsolutePath() + " is locked"), e.getMessage());
        assertTrue(e.getMessage().contains("already held in this process"), e.getMessage());

        first.close();
        first.close();
        assertFalse(first.isHeld());
        try (LogDirLock again = LogDirLock.acquire(FileIO.system(), dir)) {
            assertTrue(again.isHeld());
        }
        assertTrue(Files.exists(dir.resolve(LogDirLock.LOCK_FILE_NAME)), "the lock file is kept");
    }

    @Test
    void lockWorksThroughAWrappedFileIO() throws IOException {
        try (LogDirLock lock = LogDirLock.acquire(new FaultInjectingFileIO(), dir)) {
            assertTrue(lock.isHeld());
            assertThrows(LogDirLockedException.class, () -> LogDirLock.acquire(FileIO.system(), dir));
        }
    }

    @Test
    void anotherProcessIsRefusedWhileWeHoldTheLock() throws Exception {
        try (LogDirLock lock = LogDirLock.acquire(FileIO.system(), dir)) {
            final Child child = Child.start("try", dir);
            final List<String> output = child.finish();
            assertEquals(LogDirLockChild.EXIT_LOCKED_BY_OTHER, child.exitCode, output.toString());
            assertEquals(1, output.size(), output.toString());
            assertTrue(output.get(0).startsWith("LOCKED log directory " + dir.toAbsolutePath() + " is locked"),
                output.toString());
            assertTrue(output.get(0).contains("another process holds it"), output.toString());
        }
        final Child after = Child.start("try", dir);
        final List<String> output = after.finish();
        assertEquals(0, after.exitCode, output.toString());
        assertEquals(List.of("ACQUIRED " + dir.toAbsolutePath()), output);
    }

    @Test
    void aRefusedSecondAttemptInThisJvmKeepsTheLockForOtherProcesses() throws Exception {
        try (LogDirLock lock = LogDirLock.acquire(FileIO.system(), dir)) {
            final LogDirLockedException again = assertThrows(LogDirLockedException.class,
                () -> LogDirLock.acquire(FileIO.system(), dir));
            assertTrue(again.inThisProcess(), again.getMessage());
            // Before the in-JVM check, the refused attempt closed its own descriptor of the lock file, which
            // released this process's lock (fcntl): another process then got it while we still held it.
            final Child child = Child.start("try", dir);
            final List<String> output = child.finish();
            assertEquals(LogDirLockChild.EXIT_LOCKED_BY_OTHER, child.exitCode, output.toString());
            assertTrue(lock.isHeld());
        }
    }

    @Test
    void weAreRefusedWhileAnotherProcessHoldsItAndAKilledHolderReleasesIt() throws Exception {
        final Child child = Child.start("hold", dir);
        try {
            assertEquals("ACQUIRED " + dir.toAbsolutePath(), child.readLine());
            final LogDirLockedException e = assertThrows(LogDirLockedException.class,
                () -> LogDirLock.acquire(FileIO.system(), dir));
            assertTrue(e.getMessage().contains(dir.toAbsolutePath().toString()), e.getMessage());
            assertTrue(e.getMessage().contains("another process holds it"), e.getMessage());
        } finally {
            // A crash, not a clean close: the OS must release the lock with the process.
            child.process.destroyForcibly();
            assertTrue(child.process.waitFor(CHILD_TIMEOUT_S, TimeUnit.SECONDS), "child did not die");
        }
        try (LogDirLock lock = LogDirLock.acquire(FileIO.system(), dir)) {
            assertTrue(lock.isHeld());
        }
    }

    /** A child JVM on the test class path running {@link LogDirLockChild}. */
    private static final class Child {
        final Process process;
        final BufferedReader stdout;
        int exitCode = -1;

        private Child(final Process process) {
            this.process = process;
            this.stdout = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        }

        static Child start(final String mode, final Path dir) throws IOException {
            final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            final ProcessBuilder builder = new ProcessBuilder(java, "-Xmx32m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), LogDirLockChild.class.getName(), mode, dir.toString());
            builder.redirectError(ProcessBuilder.Redirect.INHERIT);
            return new Child(builder.start());
        }

        /** Reads one line; the class-level timeout bounds the wait if the child hangs. */
        String readLine() throws IOException {
            return stdout.readLine();
        }

        /** Waits for the child to exit (bounded) and returns its output lines. */
        List<String> finish() throws IOException, InterruptedException {
            final List<String> lines = stdout.lines().toList();
            if (!process.waitFor(CHILD_TIMEOUT_S, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("child JVM did not exit within " + CHILD_TIMEOUT_S + " s; output " + lines);
            }
            exitCode = process.exitValue();
            return lines;
        }
    }
}
