package io.seglog.storage;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Names and paths of partition directories inside a log directory: {@code <topic>-<partition>}, the topic
 * validated by Kafka's rules before any file-system call and the resolved path checked to stay a direct child
 * of its log directory. Entries that are not partition directories (files, symbolic links, other names) are
 * left alone (AP-06). Stateless.
 */
final class PartitionDirs {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionDirs.class);

    /** Longest file name the common file systems (ext4, XFS, APFS, NTFS) accept, in bytes. */
    static final int MAX_NAME_BYTES = 255;

    private PartitionDirs() {
    }

    /** The direct child directories of a log directory, symbolic links excluded, sorted by name. */
    static List<Path> list(final Path logDir) {
        final List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(logDir)) {
            for (final Path child : stream) {
                if (Files.isSymbolicLink(child)) {
                    LOG.warn("ignoring symbolic link in log directory: " + child);
                } else if (Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS)) {
                    children.add(child);
                }
            }
        } catch (final IOException e) {
            throw new StorageException("cannot list the log directory: " + e, logDir, e);
        }
        children.sort(null);
        return children;
    }

    /**
     * Parses {@code <topic>-<partition>}.
     *
     * @return the partition, or null (with a warning) when the name is not a valid partition directory name
     */
    static TopicPartition parse(final Path partitionDir) {
        return parse(partitionDir, true);
    }

    /** {@link #parse(Path)}, without the warnings when {@code warn} is false (a second look at the same entry). */
    static TopicPartition parse(final Path partitionDir, final boolean warn) {
        final String name = partitionDir.getFileName().toString();
        final int dash = name.lastIndexOf('-');
        if (dash <= 0 || dash == name.length() - 1) {
            if (warn) {
                LOG.warn("ignoring directory that is not <topic>-<partition>: " + partitionDir);
            }
            return null;
        }
        final String digits = name.substring(dash + 1);
        for (int i = 0; i < digits.length(); i++) {
            if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
                if (warn) {
                    LOG.warn("ignoring directory with a non-numeric partition: " + partitionDir);
                }
                return null;
            }
        }
        try {
            return new TopicPartition(name.substring(0, dash), Integer.parseInt(digits));
        } catch (final IllegalArgumentException e) {
            if (warn) {
                LOG.warn("ignoring directory " + partitionDir + ": " + e.getMessage());
            }
            return null;
        }
    }

    /**
     * Refuses a partition whose directory name would not fit a file name.
     *
     * @throws IllegalArgumentException naming the topic, the partition and the length
     */
    static void checkName(final TopicPartition tp) {
        final String name = tp.directoryName();
        if (name.length() > MAX_NAME_BYTES) {
            // A legal topic name (up to 249 characters) with a large partition number can still make a name the
            // file system refuses; that is the caller's error, found here before any file-system call, never a
            // failed create that would take the log directory offline. Topic names are ASCII: chars = bytes.
            throw new IllegalArgumentException("partition directory name " + tp.topic().length() + "-character topic"
                + " + '-" + tp.partition() + "' is " + name.length() + " bytes, more than the " + MAX_NAME_BYTES
                + " a file name may have; use a shorter topic name or a lower partition number (topic=" + tp.topic()
                + ")");
        }
    }

    /**
     * The partition's directory inside {@code logDir}; refuses a path that would leave it.
     *
     * @throws IllegalArgumentException naming both paths if the resolved directory is not a direct child, or the
     *     name is longer than a file name may be
     */
    static Path resolveInside(final Path logDir, final TopicPartition tp) {
        checkName(tp);
        final Path base = logDir.toAbsolutePath().normalize();
        final Path resolved = base.resolve(tp.directoryName()).normalize();
        if (!base.equals(resolved.getParent())) {
            throw new IllegalArgumentException("partition directory=" + resolved + " of " + tp
                + " is not a direct child of logDir=" + base);
        }
        return resolved;
    }

    /**
     * The name a deleted partition's directory is renamed to, Kafka's {@code <topic>-<partition>.<uuid>-delete}
     * with the topic cut short so that the name fits {@value #MAX_NAME_BYTES} bytes (Kafka's
     * {@code LocalLog.logDeleteDirName}); the name is never parsed back, only recognised by its suffix.
     *
     * @param tp       the partition
     * @param uniqueId 32 hex digits
     * @return a name of at most {@value #MAX_NAME_BYTES} bytes
     */
    static String deleteDirName(final TopicPartition tp, final String uniqueId) {
        final String suffix = "-" + tp.partition() + "." + uniqueId + LogManager.DELETE_DIR_SUFFIX;
        final int prefixLength = Math.min(tp.topic().length(), MAX_NAME_BYTES - suffix.length());
        return tp.topic().substring(0, prefixLength) + suffix;
    }

    /** Deletes a directory tree (regular files and directories only, never following links). */
    static void deleteRecursively(final FileIO io, final Path dir) {
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                return;
            }
            if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
                    for (final Path child : stream) {
                        deleteRecursively(io, child);
                    }
                }
            }
            io.deleteIfExists(dir);
        } catch (final IOException e) {
            LOG.error("cannot delete " + dir + " (retried at the next open)", e);
        }
    }
}
