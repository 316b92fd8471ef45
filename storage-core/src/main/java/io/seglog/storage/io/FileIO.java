package io.seglog.storage.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Set;

/**
 * The file-system seam: every file the storage core opens, syncs, renames or deletes goes through one of
 * these calls, so an embedder can substitute its own I/O and a test can fail the Nth write or fsync.
 *
 * <p>Reads and writes go through the returned {@link FileChannel}; an implementation that injects faults
 * returns a channel that delegates to a real one. Implementations are thread-safe.
 */
public interface FileIO {
    /**
     * Opens a file channel.
     *
     * @param path    the file
     * @param options the open options, as for {@link FileChannel#open(Path, Set, java.nio.file.attribute.FileAttribute[])}
     * @return an open channel that the caller owns and closes
     * @throws IOException if the file cannot be opened
     */
    FileChannel open(Path path, Set<? extends OpenOption> options) throws IOException;

    /**
     * Makes a directory's entries durable (fsync of the directory), so that files created, renamed or
     * deleted in it survive a power loss.
     *
     * @param directory the directory
     * @throws IOException if the sync fails; the caller must not retry it in place
     */
    void fsyncDirectory(Path directory) throws IOException;

    /**
     * Renames a file atomically, replacing the target if it exists.
     *
     * @param source the file to rename
     * @param target its new name, in the same directory or on the same file system
     * @throws IOException if the rename fails
     */
    void atomicMove(Path source, Path target) throws IOException;

    /**
     * Deletes a file if it exists.
     *
     * @param path the file
     * @return whether a file was deleted
     * @throws IOException if the delete fails
     */
    boolean deleteIfExists(Path path) throws IOException;

    /**
     * Creates a directory and any missing parents.
     *
     * @param directory the directory
     * @throws IOException if it cannot be created
     */
    void createDirectories(Path directory) throws IOException;

    /**
     * The file I/O of the platform, with no fault injection.
     *
     * @return the shared stateless instance
     */
    static FileIO system() {
        return SystemFileIO.INSTANCE;
    }
}
