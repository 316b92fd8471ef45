package io.seglog.replication.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.TopicPartition;
import org.junit.jupiter.api.Test;

class ZkPathsTest {
    @Test
    void buildsKafkasPaths() {
        assertEquals("/brokers/ids/3", ZkPaths.brokerPath(3));
        assertEquals("/brokers/topics/orders", ZkPaths.topicPath("orders"));
        assertEquals("/brokers/topics/orders/partitions", ZkPaths.partitionsPath("orders"));
        assertEquals("/brokers/topics/orders/partitions/7", ZkPaths.partitionPath("orders", 7));
        assertEquals("/brokers/topics/orders/partitions/7/state", ZkPaths.partitionStatePath("orders", 7));
        assertEquals("/brokers/topics/orders/partitions/7/state",
            ZkPaths.partitionStatePath(new TopicPartition("orders", 7)));
        assertEquals("/admin/delete_topics/orders", ZkPaths.deleteTopicPath("orders"));
        assertEquals("/isr_change_notification/isr_change_", ZkPaths.isrChangeSequencePrefix());
        assertEquals("/isr_change_notification/isr_change_0000000004", ZkPaths.isrChangePath("isr_change_0000000004"));
        assertEquals("/admin/preferred_replica_election", ZkPaths.PREFERRED);
        assertEquals("/admin/reassign_partitions", ZkPaths.REASSIGN);
    }

    @Test
    void persistentPathsAreKafkasAndIncludeEveryParentWeWatch() {
        assertTrue(ZkPaths.PERSISTENT_PATHS.containsAll(java.util.List.of(ZkPaths.BROKER_IDS, ZkPaths.TOPICS,
            ZkPaths.ISR_CHANGE, ZkPaths.DELETE_TOPICS, ZkPaths.CONFIG_CHANGES)));
        assertEquals(14, ZkPaths.PERSISTENT_PATHS.size());
    }

    @Test
    void refusesPathsThatCouldEscapeTheirParent() {
        assertThrows(IllegalArgumentException.class, () -> ZkPaths.topicPath("../controller"));
        assertThrows(IllegalArgumentException.class, () -> ZkPaths.topicPath(".."));
        assertThrows(IllegalArgumentException.class, () -> ZkPaths.deleteTopicPath("a/b"));
        assertThrows(IllegalArgumentException.class, () -> ZkPaths.brokerPath(-1));
        assertThrows(IllegalArgumentException.class, () -> ZkPaths.partitionStatePath("t", -1));
        assertThrows(IllegalArgumentException.class, () -> ZkPaths.isrChangePath("other"));
        assertThrows(IllegalArgumentException.class, () -> ZkPaths.isrChangePath("isr_change_1/x"));
    }

    @Test
    void parsesChildNamesCanonically() throws Exception {
        assertEquals(0, ZkPaths.brokerIdFromChild("0"));
        assertEquals(Integer.MAX_VALUE, ZkPaths.brokerIdFromChild("2147483647"));
        assertEquals(12, ZkPaths.partitionFromChild("t", "12"));
        for (final String bad : new String[] {"", "-1", "007", "1a", "2147483648", "99999999999", "+1"}) {
            final MalformedZnodeException e =
                assertThrows(MalformedZnodeException.class, () -> ZkPaths.brokerIdFromChild(bad), bad);
            assertEquals("/brokers/ids/" + bad, e.path());
            assertEquals("brokerId", e.field());
        }
    }
}
