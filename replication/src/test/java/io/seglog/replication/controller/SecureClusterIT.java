package io.seglog.replication.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.zk.ControllerEpochZnode;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.ZkClient;
import io.seglog.replication.zk.ZkError;
import io.seglog.replication.zk.ZkException;
import io.seglog.replication.zk.ZkPaths;
import io.seglog.storage.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** SE-01: with digest ACLs the brokers run the cluster; other clients may read but not change anything. */
@Timeout(60)
class SecureClusterIT extends ClusterFixture {
    SecureClusterIT() {
        super("/secure", b -> b.zookeeperSetAcl(true).zookeeperDigest("seglog-broker:s3cret"), 1, 2, 3);
    }

    private ZkClient outsider(final ReplicationConfig.Builder config) {
        final ZkClient client = ZkClient.open(config.brokerId(50).build(), cluster.threads("outsider"),
            TestCluster.QUIET);
        client.awaitConnected(10_000);
        return client;
    }

    @Test
    void brokersManageTheClusterAndOutsidersCannotWrite() throws Exception {
        cluster.awaitController(1);
        cluster.admin().createTopic("s", Map.of(0, List.of(1, 2, 3)));
        final TopicPartition p0 = new TopicPartition("s", 0);
        cluster.awaitAllLed(List.of(p0));
        cluster.stop(1);
        Await.until(TestCluster.WAIT, () -> cluster.leaderAndIsr(p0).leader() == 2, () -> "leader moved under ACLs");

        final ReplicationConfig.Builder anonymous = ReplicationConfig.builder()
            .zookeeperConnect(connectString()).zookeeperRequestTimeoutMs(3000);
        final ReplicationConfig.Builder wrongPassword = ReplicationConfig.builder()
            .zookeeperConnect(connectString()).zookeeperRequestTimeoutMs(3000)
            .zookeeperSetAcl(true).zookeeperDigest("seglog-broker:guess");
        for (final ReplicationConfig.Builder config : List.of(anonymous, wrongPassword)) {
            try (ZkClient client = outsider(config)) {
                assertEquals(2, new KafkaZkStore(client).partitionStates(List.of(p0)).get(p0).orElseThrow()
                    .leaderAndIsr().leader(), "everyone may read");
                final byte[] junk = "{}".getBytes(StandardCharsets.UTF_8);
                for (final String path : List.of(ZkPaths.partitionStatePath(p0), ZkPaths.CONTROLLER_EPOCH,
                    ZkPaths.topicPath("s"))) {
                    final ZkException e = assertThrows(ZkException.class, () -> client.setData(path, junk, -1));
                    assertEquals(ZkError.NO_AUTH, e.error(), path);
                }
                assertEquals(ZkError.NO_AUTH, assertThrows(ZkException.class,
                    () -> client.delete(ZkPaths.CONTROLLER, -1)).error(), "cannot depose the controller");
                assertEquals(ZkError.NO_AUTH, assertThrows(ZkException.class,
                    () -> client.create(ZkPaths.brokerPath(50), junk, true)).error(), "cannot register as a broker");
                assertEquals(ZkError.NO_AUTH, assertThrows(ZkException.class,
                    () -> new KafkaZkStore(client).requestTopicDeletion("s")).error(), "cannot delete topics");
            }
        }
        final int epoch = ControllerEpochZnode.fromBytes(
            cluster.observerClient.getData(ZkPaths.CONTROLLER_EPOCH, null).orElseThrow().data());
        assertTrue(epoch >= 1);
        assertEquals(2, cluster.leaderAndIsr(p0).leader(), "nothing changed");
    }
}
