package io.seglog.storage.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Set;

/** A {@link FileIO} that forwards every call to the system's; tests override the calls they watch or fail. */
public class ForwardingFileIO implements FileIO {
    @Override
    public FileChannel open(final Path path, final Set<? extends OpenOption> options) throws IOException {
        return FileIO.system().open(path, options);
    }

    @Override
    public void fsyncDirectory(final Path directory) throws IOException {
        FileIO.system().fsyncDirectory(directory);
    }

    @Override
    public void atomicMove(final Path source, final Path target) throws IOException {
        FileIO.system().atomicMove(source, target);
    }

    @Override
    public boolean deleteIfExists(final Path path) throws IOException {
        return FileIO.system().deleteIfExists(path);
    }

    @Override
    public void createDirectories(final Path directory) throws IOException {
        FileIO.system().createDirectories(directory);
    }
}
