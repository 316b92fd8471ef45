package io.seglog.storage;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.Set;

/**
 * The file layer of a read-only {@link PartitionLog}: files open for reading only, and every call that would
 * change the directory (create, delete, rename, sync) is refused with an error naming the file. It is the safety
 * net under the read-only load, which asks for none of them: a bug that tried would fail loudly, never write.
 * Channels opened through it are read-only, so a write, truncation or read-write mapping of one throws as well
 * (a {@code force} does not: the JDK allows it on a read-only channel, and no read-only path calls it); index
 * mappings are read-only and refuse the writer's view.
 *
 * <p>Stateless apart from the layer it wraps; thread-safe when that is.
 */
final class ReadOnlyFileIO implements FileIO {
    private final FileIO delegate;
    private final Path dir;

    ReadOnlyFileIO(final FileIO delegate, final Path dir) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.dir = dir;
    }

    @Override
    public FileChannel open(final Path path, final Set<? extends OpenOption> options) throws IOException {
        if (!Set.of(StandardOpenOption.READ).equals(options)) {
            throw refused(path, "open with " + options);
        }
        return delegate.open(path, options);
    }

    @Override
    public void fsyncDirectory(final Path directory) throws IOException {
        throw refused(directory, "fsync");
    }

    @Override
    public void atomicMove(final Path source, final Path target) throws IOException {
        throw refused(source, "rename to " + target);
    }

    @Override
    public boolean deleteIfExists(final Path path) throws IOException {
        throw refused(path, "delete");
    }

    @Override
    public void createDirectories(final Path directory) throws IOException {
        throw refused(directory, "create");
    }

    private AccessDeniedException refused(final Path path, final String what) {
        return new AccessDeniedException(path.toString(), null, "the log in " + dir + " is open read-only; refused to "
            + what);
    }
}
