package io.seglog.replication.tools;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.MalformedZnodeException;
import io.seglog.replication.zk.ZkClient;
import io.seglog.replication.zk.ZkError;
import io.seglog.replication.zk.ZkException;
import io.seglog.replication.zk.ZkSessionListener;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code seglog zk}: the cluster's state, read from Kafka's ZooKeeper layout. */
@Command(name = "zk", mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
    header = "Show a cluster's controller, brokers, partitions and pending admin requests from ZooKeeper.",
    description = "Show the controller and its epoch, the live brokers, every topic's partitions (replicas, leader,"
        + " leader epoch, ISR, reassignment) and the pending admin requests (topic deletions, a reassignment, a"
        + " preferred-leader election), read once from ZooKeeper. Nothing is written.")
final class ZkCommand implements Callable<Integer> {
    private static final ZkSessionListener NO_LISTENER = new ZkSessionListener() {
        @Override
        public void onSessionExpired(final long sessionId) {
        }

        @Override
        public void onNewSession(final long sessionId) {
        }
    };

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "CONNECT", description = "the ZooKeeper connection string, e.g. localhost:2181[/chroot]")
    private String connect;

    @Option(names = "--json", description = "print the state as one JSON document, for scripts")
    private boolean json;

    @Option(names = "--timeout-ms", defaultValue = "15000",
        description = "how long to wait for ZooKeeper (default: ${DEFAULT-VALUE})")
    private long timeoutMs;

    @Override
    public Integer call() throws Exception {
        // The tool registers nothing: the broker id and host a client configuration requires are never written.
        final ReplicationConfig config = ReplicationConfig.fromProperties(Map.of(ReplicationConfig.ZOOKEEPER_CONNECT,
            connect, ReplicationConfig.BROKER_ID, "0", ReplicationConfig.ADVERTISED_HOST, "localhost",
            ReplicationConfig.ZOOKEEPER_CONNECTION_TIMEOUT_MS, Long.toString(timeoutMs),
            ReplicationConfig.ZOOKEEPER_REQUEST_TIMEOUT_MS, Long.toString(timeoutMs)));
        try (ZkClient client = ZkClient.open(config, r -> {
            final Thread t = new Thread(r, "seglog-zk");
            t.setDaemon(true);
            return t;
        }, NO_LISTENER)) {
            client.awaitConnected(timeoutMs);
            final ClusterView view = ClusterView.read(new KafkaZkStore(client));
            final PrintWriter out = spec.commandLine().getOut();
            if (json) {
                out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(view));
            } else {
                print(out, view);
            }
            return 0;
        } catch (final MalformedZnodeException e) {
            spec.commandLine().getErr().println("zk: " + e.getMessage());
            return SeglogCommand.PROBLEMS;
        } catch (final ZkException e) {
            if (e.error() != ZkError.TIMEOUT && e.error() != ZkError.CONNECTION_LOSS) {
                throw e;
            }
            spec.commandLine().getErr().println("zk: cannot reach ZooKeeper at " + connect + " within --timeout-ms="
                + timeoutMs + " ms: is it running, and is the address right?");
            return SeglogCommand.FAILED;
        }
    }

    static void print(final PrintWriter out, final ClusterView view) {
        out.println("cluster id: " + (view.clusterId() == null ? "none" : view.clusterId()));
        out.println("controller: " + (view.controllerId() < 0 ? "none" : "broker " + view.controllerId())
            + " (controller epoch " + view.controllerEpoch() + ")");
        out.println("brokers (" + view.brokers().size() + "):");
        for (final ClusterView.Broker b : view.brokers()) {
            out.println("  " + b.id() + " " + String.join(",", b.endpoints()) + (b.rack() == null ? ""
                : " rack " + b.rack()) + " epoch " + b.epoch());
        }
        out.println("topics (" + view.topics().size() + "):");
        for (final ClusterView.Topic t : view.topics()) {
            out.println("  " + t.name() + (t.topicId() == null ? "" : " id " + t.topicId()) + ", "
                + t.partitions().size() + " partition(s)");
            for (final ClusterView.Partition p : t.partitions()) {
                out.println("    " + t.name() + "-" + p.partition() + " replicas " + p.replicas() + " leader "
                    + p.leader() + " leader epoch " + p.leaderEpoch() + " isr " + p.isr()
                    + (p.adding().isEmpty() ? "" : " adding " + p.adding())
                    + (p.removing().isEmpty() ? "" : " removing " + p.removing())
                    + (p.underReplicated() ? " UNDER-REPLICATED" : ""));
            }
        }
        out.println("pending deletions: " + view.pendingDeletions());
        out.println("pending reassignment: " + view.pendingReassignment());
        out.println("pending preferred election: " + view.pendingPreferredElection());
    }
}
