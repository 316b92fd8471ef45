package io.seglog.replication.example;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Objects;
import java.util.Optional;

/**
 * The demo's command line.
 *
 * @param zookeeperConnect {@code host:port[,host:port...][/chroot]} of a running ZooKeeper, or empty to start an
 *                         embedded one
 * @param dir              the demo directory, or empty for a new temporary one
 * @param keep             whether a temporary directory is kept at the end (a given one always is)
 * @param help             whether {@code --help} was given: print {@link #HELP} and run nothing
 */
record DemoOptions(Optional<String> zookeeperConnect, Optional<Path> dir, boolean keep, boolean help) {
    static final String USAGE = "usage: SeglogDemo [--zookeeper host:port[/chroot]] [--dir <path>] [--keep] [--help]";
    static final String HELP = USAGE + System.lineSeparator()
        + "  Tours the storage core (append, read, close and reopen) and a three-broker cluster (controller and"
        + System.lineSeparator()
        + "  leader elections, failover) and prints what it checked." + System.lineSeparator()
        + "  --zookeeper <connect>  use this ZooKeeper instead of starting an embedded one" + System.lineSeparator()
        + "  --dir <path>           put the logs and ZooKeeper data here (kept) instead of a temporary directory"
        + System.lineSeparator()
        + "  --keep                 keep the temporary directory at the end" + System.lineSeparator()
        + "  --help, -h             print this and exit";

    DemoOptions {
        Objects.requireNonNull(zookeeperConnect, "zookeeperConnect");
        Objects.requireNonNull(dir, "dir");
    }

    /**
     * Parses the arguments.
     *
     * @param args the command line
     * @return the options
     * @throws IllegalArgumentException naming the argument when one is unknown, repeated or lacks its value
     */
    static DemoOptions parse(final String... args) {
        String zookeeper = null;
        Path dir = null;
        boolean keep = false;
        boolean help = false;
        for (int i = 0; i < args.length; i++) {
            final String arg = args[i];
            switch (arg) {
                case "--zookeeper" -> {
                    if (zookeeper != null) {
                        throw new IllegalArgumentException("--zookeeper given twice");
                    }
                    zookeeper = value(args, i++);
                    if (zookeeper.isBlank() || zookeeper.startsWith("/")) {
                        throw new IllegalArgumentException("--zookeeper=" + zookeeper
                            + " must be host:port[,host:port...][/chroot]");
                    }
                }
                case "--dir" -> {
                    if (dir != null) {
                        throw new IllegalArgumentException("--dir given twice");
                    }
                    dir = Paths.get(value(args, i++));
                }
                case "--keep" -> keep = true;
                case "--help", "-h" -> help = true;
                default -> throw new IllegalArgumentException("unknown argument " + arg);
            }
        }
        return new DemoOptions(Optional.ofNullable(zookeeper), Optional.ofNullable(dir), keep, help);
    }

    private static String value(final String[] args, final int index) {
        if (index + 1 >= args.length || args[index + 1].startsWith("--")) {
            throw new IllegalArgumentException(args[index] + " needs a value");
        }
        return args[index + 1];
    }
}
