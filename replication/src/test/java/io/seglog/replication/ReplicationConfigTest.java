package io.seglog.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ReplicationConfigTest {
    @Test
    void kafkaDefaults() {
        final ReplicationConfig c = ReplicationConfig.builder().brokerId(0).zookeeperConnect("zk:2181").build();
        assertEquals(18_000, c.zookeeperSessionTimeoutMs());
        assertEquals(18_000, c.zookeeperConnectionTimeoutMs());
        assertEquals(18_000, c.zookeeperRequestTimeoutMs());
        assertFalse(c.uncleanLeaderElectionEnable());
        assertTrue(c.autoLeaderRebalanceEnable());
        assertEquals(10, c.leaderImbalancePerBrokerPercentage());
        assertEquals(300, c.leaderImbalanceCheckIntervalSeconds());
        assertEquals(1, c.minInsyncReplicas());
        assertEquals(30_000, c.replicaLagTimeMaxMs());
        assertEquals(Optional.empty(), c.brokerRack());
    }

    @Test
    void readsKafkaPropertyNames() {
        final ReplicationConfig c = ReplicationConfig.fromProperties(Map.of(
            "broker.id", "7", "broker.rack", "r2", "zookeeper.connect", "a:1,b:2/seglog",
            "zookeeper.session.timeout.ms", 6000, "unclean.leader.election.enable", "true",
            "leader.imbalance.per.broker.percentage", "25", "leader.imbalance.check.interval.seconds", "30",
            "auto.leader.rebalance.enable", false, "min.insync.replicas", "2", "log.dirs", "/ignored"));
        assertEquals(7, c.brokerId());
        assertEquals(Optional.of("r2"), c.brokerRack());
        assertEquals("a:1,b:2/seglog", c.zookeeperConnect());
        assertEquals(6000, c.zookeeperSessionTimeoutMs());
        assertTrue(c.uncleanLeaderElectionEnable());
        assertEquals(25, c.leaderImbalancePerBrokerPercentage());
        assertEquals(30, c.leaderImbalanceCheckIntervalSeconds());
        assertFalse(c.autoLeaderRebalanceEnable());
        assertEquals(2, c.minInsyncReplicas());
    }

    @Test
    void errorsNameTheKeyAndTheValue() {
        assertEquals("broker.id=-1 must be set and >= 0", assertThrows(IllegalArgumentException.class,
            () -> ReplicationConfig.builder().zookeeperConnect("zk:1").build()).getMessage());
        assertEquals("zookeeper.connect=null must be set", assertThrows(IllegalArgumentException.class,
            () -> ReplicationConfig.builder().brokerId(1).build()).getMessage());
        assertEquals("leader.imbalance.per.broker.percentage=101 must be in [0, 100]",
            assertThrows(IllegalArgumentException.class, () -> ReplicationConfig.fromProperties(Map.of("broker.id", 1,
                "zookeeper.connect", "zk:1", "leader.imbalance.per.broker.percentage", 101))).getMessage());
        assertEquals("unclean.leader.election.enable=yes is not true or false",
            assertThrows(IllegalArgumentException.class, () -> ReplicationConfig.fromProperties(Map.of("broker.id", 1,
                "zookeeper.connect", "zk:1", "unclean.leader.election.enable", "yes"))).getMessage());
        assertEquals("min.insync.replicas=two is not an integer",
            assertThrows(IllegalArgumentException.class, () -> ReplicationConfig.fromProperties(Map.of("broker.id", 1,
                "zookeeper.connect", "zk:1", "min.insync.replicas", "two"))).getMessage());
        assertEquals("zookeeper.set.acl=true requires zookeeper.digest.credentials",
            assertThrows(IllegalArgumentException.class, () -> ReplicationConfig.builder().brokerId(1)
                .zookeeperConnect("zk:1").zookeeperSetAcl(true).build()).getMessage());
    }

    @Test
    void chrootsAreCheckedWhenTheConfigIsBuilt() {
        final ReplicationConfig c = ReplicationConfig.builder().brokerId(1).zookeeperConnect("a:1,b:2/seglog/x/")
            .build();
        assertEquals("a:1,b:2", c.zookeeperServers());
        assertEquals(Optional.of("/seglog/x"), c.zookeeperChroot());
        assertEquals(Optional.empty(), ReplicationConfig.builder().brokerId(1).zookeeperConnect("a:1/").build()
            .zookeeperChroot(), "'/' alone is the root");
        for (final String bad : new String[] {"a:1/..", "a:1/seglog/../x", "a:1/./x", "a:1//x", "/seglog", " /x",
            "a:1/x\u0001y"}) {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ReplicationConfig.fromProperties(Map.of("broker.id", 1, "zookeeper.connect", bad)), bad);
            assertTrue(e.getMessage().startsWith("zookeeper.connect"), e.getMessage());
        }
    }

    @Test
    void secureAclsWithoutAChrootAreRefused() {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> ReplicationConfig.builder().brokerId(1).zookeeperConnect("zk:1").zookeeperSetAcl(true)
                .zookeeperDigest("broker:s3cret").build());
        assertTrue(e.getMessage().startsWith("zookeeper.set.acl=true requires a chroot in zookeeper.connect=zk:1"),
            e.getMessage());
        assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
        assertTrue(ReplicationConfig.builder().brokerId(1).zookeeperConnect("zk:1/seglog").zookeeperSetAcl(true)
            .zookeeperDigest("broker:s3cret").build().zookeeperSetAcl());
    }

    @Test
    void theDigestSecretIsNeverPrinted() {
        final ReplicationConfig c = ReplicationConfig.builder().brokerId(1).zookeeperConnect("zk:1/seglog")
            .zookeeperSetAcl(true).zookeeperDigest("broker:s3cret").build();
        assertFalse(c.toString().contains("s3cret"), c.toString());
        final IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () ->
            ReplicationConfig.builder().brokerId(1).zookeeperConnect("zk:1").zookeeperDigest("nocolonsecret").build());
        assertFalse(bad.getMessage().contains("nocolonsecret"), bad.getMessage());
    }

    @Test
    void theTablesOnePassRefusesWhatBuildOnceCheckedByHand() {
        assertEquals("broker.rack=' ' must not be blank", assertThrows(IllegalArgumentException.class,
            () -> ReplicationConfig.builder().brokerId(1).zookeeperConnect("zk:1").brokerRack(" ").build())
            .getMessage());
        assertEquals("advertised.host.name=  must not be empty", assertThrows(IllegalArgumentException.class,
            () -> ReplicationConfig.builder().brokerId(1).zookeeperConnect("zk:1").advertisedHost(" ").build())
            .getMessage());
        assertEquals("zookeeper.connect=  must be set", assertThrows(IllegalArgumentException.class,
            () -> ReplicationConfig.builder().brokerId(1).zookeeperConnect(" ").build()).getMessage());
        assertEquals("zookeeper.connect=/seglog must name at least one host:port", assertThrows(
            IllegalArgumentException.class, () -> ReplicationConfig.builder().brokerId(1).zookeeperConnect("/seglog")
                .build()).getMessage());
        assertEquals("zookeeper.digest.credentials must be user:password (value hidden)", assertThrows(
            IllegalArgumentException.class, () -> ReplicationConfig.builder().brokerId(1).zookeeperConnect("zk:1")
                .zookeeperDigest("broker:").build()).getMessage());
        assertTrue(ReplicationConfig.configDef().key("broker.id").required());
        assertTrue(ReplicationConfig.configDef().key("zookeeper.connect").required());
    }

    @Test
    void withBrokerCopiesEverythingElse() {
        final ReplicationConfig c = ReplicationConfig.builder().brokerId(1).zookeeperConnect("zk:1")
            .uncleanLeaderElectionEnable(true).build().withBroker(2, "r");
        assertEquals(2, c.brokerId());
        assertEquals(Optional.of("r"), c.brokerRack());
        assertTrue(c.uncleanLeaderElectionEnable());
    }
}
