package io.seglog.storage.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/**
 * {@link FileIO} on the platform's file system. Stateless.
 */
final class SystemFileIO implements FileIO {
    static final SystemFileIO INSTANCE = new SystemFileIO();

    private SystemFileIO() {
    }

    @Override
    public FileChannel open(final Path path, final Set<? extends OpenOption> options) throws IOException {
        return FileChannel.open(path, options);
    }

    @Override
    public void fsyncDirectory(final Path directory) throws IOException {
        // On Linux a directory opened read-only can be fsynced, which makes its entries durable.
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    @Override
    public void atomicMove(final Path source, final Path target) throws IOException {
        Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public boolean deleteIfExists(final Path path) throws IOException {
        return Files.deleteIfExists(path);
    }

    @Override
    public void createDirectories(final Path directory) throws IOException {
        Files.createDirectories(directory);
    }
}
