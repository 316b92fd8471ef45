package io.seglog.replication.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The group coordinator's settings read from Kafka's broker property names, with Kafka's defaults. */
class GroupCoordinatorConfigTest {
    @Test
    void kafkasDefaultsWhenNothingIsSetAndTheNamesReadBack() {
        final GroupCoordinatorConfig d = GroupCoordinatorConfig.fromProperties(Map.of());
        assertEquals(50, d.offsetsPartitions());
        assertEquals(3, d.offsetsReplication());
        assertEquals(100 * 1024 * 1024, d.offsetsSegmentBytes());
        assertEquals(5_000, d.offsetsCommitTimeoutMs());
        assertEquals(6_000, d.groups().minSessionTimeoutMs());
        assertEquals(1_800_000, d.groups().maxSessionTimeoutMs());
        assertEquals(3_000, d.groups().initialRebalanceDelayMs());
        assertEquals(4_096, d.groups().offsetMetadataMaxBytes());
        assertEquals(7L * 24 * 3_600_000, d.groups().offsetsRetentionMs(), "offsets.retention.minutes: 7 days");
        assertEquals(600_000, d.groups().offsetsRetentionCheckIntervalMs());
        final GroupCoordinatorConfig set = GroupCoordinatorConfig.fromProperties(Map.of(
            "offsets.topic.num.partitions", "5", "offsets.topic.replication.factor", 1,
            "group.initial.rebalance.delay.ms", "0", "group.max.size", "10", "offsets.retention.minutes", "90",
            "offsets.retention.check.interval.ms", "15000"));
        assertEquals(90 * 60_000L, set.groups().offsetsRetentionMs());
        assertEquals(15_000, set.groups().offsetsRetentionCheckIntervalMs());
        assertEquals(5, set.offsetsPartitions());
        assertEquals(1, set.offsetsReplication());
        assertEquals(0, set.groups().initialRebalanceDelayMs());
        assertEquals(10, set.groups().maxSize());
        assertEquals(set, GroupCoordinatorConfig.fromProperties(set.kafkaProperties()), "the names read back");
    }

    @Test
    void kafkaPropertiesAreEveryKeyOfBothTables() {
        assertEquals(Map.ofEntries(Map.entry("group.min.session.timeout.ms", "6000"),
            Map.entry("group.max.session.timeout.ms", "1800000"), Map.entry("group.initial.rebalance.delay.ms", "3000"),
            Map.entry("group.max.size", "2147483647"), Map.entry("offset.metadata.max.bytes", "4096"),
            Map.entry("offsets.retention.minutes", "10080"), Map.entry("offsets.retention.check.interval.ms", "600000"),
            Map.entry("offsets.topic.num.partitions", "50"), Map.entry("offsets.topic.replication.factor", "3"),
            Map.entry("offsets.topic.segment.bytes", "104857600"), Map.entry("offsets.commit.timeout.ms", "5000")),
            GroupCoordinatorConfig.defaults().kafkaProperties());
    }

    @Test
    void aBadValueIsRefusedNamingItsKey() {
        final IllegalArgumentException notANumber = assertThrows(IllegalArgumentException.class,
            () -> GroupCoordinatorConfig.fromProperties(Map.of("offsets.topic.num.partitions", "many")));
        assertTrue(notANumber.getMessage().contains("offsets.topic.num.partitions"), notANumber.getMessage());
        final IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
            () -> GroupCoordinatorConfig.fromProperties(Map.of("offsets.topic.replication.factor", "0")));
        assertTrue(zero.getMessage().contains("offsets.topic.replication.factor"), zero.getMessage());
        final IllegalArgumentException sessions = assertThrows(IllegalArgumentException.class,
            () -> GroupCoordinatorConfig.fromProperties(Map.of("group.min.session.timeout.ms", "10000",
                "group.max.session.timeout.ms", "5000")));
        assertTrue(sessions.getMessage().contains("group.min.session.timeout.ms"), sessions.getMessage());
    }
}
