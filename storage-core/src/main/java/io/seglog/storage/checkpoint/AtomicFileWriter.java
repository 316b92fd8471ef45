package io.seglog.storage.checkpoint;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/**
 * Replaces a small file atomically and durably: write {@code <file>.tmp}, fsync it, rename it over the file,
 * fsync the directory (Kafka's {@code CheckpointFile} protocol). The first failed fsync (of the temp file or of
 * the directory) is latched: every later write fails at once, because after a failed fsync the kernel may have
 * dropped the dirty pages and marked them clean, so a retry that "succeeds" proves nothing (the fsyncgate
 * lesson); the log directory must go offline instead.
 *
 * <p>Public for the producer-state snapshots ({@code io.seglog.storage.producer}), which are written the same way.
 *
 * <p>Thread-safe: writes are serialised on this object.
 */
public final class AtomicFileWriter {
    private final FileIO io;
    private final Path file;
    private final Path tempFile;
    private final Path directory;
    private final String what;
    private IOException failedSync; // guarded by this

    /**
     * Creates the writer of one file.
     *
     * @param io        the file layer
     * @param file      the absolute path of the file replaced
     * @param tempFile  the temporary file written first, in the same directory
     * @param what      what the file is, for messages ("checkpoint file", "clean shutdown marker")
     */
    public AtomicFileWriter(final FileIO io, final Path file, final Path tempFile, final String what) {
        this.io = io;
        this.file = file;
        this.tempFile = tempFile;
        this.directory = file.getParent();
        this.what = what;
    }

    /**
     * Replaces the file's content. On failure before the rename the temp file is removed (best effort) and the
     * old content stays; after the rename only the directory sync can fail.
     *
     * @param content the new content
     * @throws IOException if any step fails, or an earlier fsync failed
     */
    public synchronized void write(final byte[] content) throws IOException {
        if (failedSync != null) {
            throw new IOException(what + " " + file + " refuses writes after an earlier failed fsync"
                + " (an fsync is never retried; the log directory must go offline)", failedSync);
        }
        boolean renamed = false;
        try {
            try (FileChannel channel = io.open(tempFile, Set.of(
                StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE))) {
                final ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                try {
                    channel.force(true);
                } catch (final IOException e) {
                    failedSync = e;
                    throw e;
                }
            }
            io.atomicMove(tempFile, file);
            renamed = true;
            try {
                io.fsyncDirectory(directory);
            } catch (final IOException e) {
                failedSync = e;
                throw e;
            }
        } catch (final IOException | RuntimeException e) {
            if (!renamed) {
                // Best effort: a leftover temp file is harmless (the next write truncates it) but untidy.
                try {
                    io.deleteIfExists(tempFile);
                } catch (final IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }
}
