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
 * @param inProcess        whether the quickstart's brokers run in this JVM instead of as processes
 * @param tours            whether the storage tour and the controller tour run before the quickstart
 * @param help             whether {@code --help} was given: print {@link #HELP} and run nothing
 */
record DemoOptions(Optional<String> zookeeperConnect, Optional<Path> dir, boolean keep, boolean inProcess,
                   boolean tours, boolean help) {
    static final String USAGE = "usage: SeglogDemo [--zookeeper host:port[/chroot]] [--dir <path>] [--keep]"
        + " [--in-process] [--tours] [--help]";
    static final String HELP = USAGE + System.lineSeparator()
        + "  Kafka's quickstart on Seglog: starts ZooKeeper and three brokers, creates a topic with three replicas,"
        + System.lineSeparator()
        + "  produces with a KafkaProducer (acks=all), kills the leader mid-stream, shows the election, reads"
        + System.lineSeparator()
        + "  everything back with a KafkaConsumer and checks that no acknowledged record was lost, then shows a"
        + System.lineSeparator()
        + "  consumer group rebalancing when a second member joins and checks its committed offsets."
        + System.lineSeparator()
        + "  --zookeeper <connect>  use this ZooKeeper instead of starting an embedded one" + System.lineSeparator()
        + "  --dir <path>           put the logs and ZooKeeper data here (kept) instead of a temporary directory"
        + System.lineSeparator()
        + "  --keep                 keep the temporary directory at the end" + System.lineSeparator()
        + "  --in-process           run the brokers in this JVM (the kill closes one) instead of as processes"
        + System.lineSeparator()
        + "  --tours                first tour the storage core alone and a controller failover" + System.lineSeparator()
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
        boolean inProcess = false;
        boolean tours = false;
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
                case "--in-process" -> inProcess = true;
                case "--tours" -> tours = true;
                case "--help", "-h" -> help = true;
                default -> throw new IllegalArgumentException("unknown argument " + arg);
            }
        }
        return new DemoOptions(Optional.ofNullable(zookeeper), Optional.ofNullable(dir), keep, inProcess, tours,
            help);
    }

    private static String value(final String[] args, final int index) {
        if (index + 1 >= args.length || args[index + 1].startsWith("--")) {
            throw new IllegalArgumentException(args[index] + " needs a value");
        }
        return args[index + 1];
    }
}
