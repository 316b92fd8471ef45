package io.seglog.replication.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.storage.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Exact bytes of every writer, and decoding of payloads as Kafka writes them (samples taken from Kafka's
 * documentation, its ZkData javadoc and its BrokerEndPointTest, used here as test data).
 */
class ZnodeGoldenTest {
    private static byte[] utf8(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String str(final byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void writesPartitionStateInKafkasFieldOrder() {
        final var state = new PartitionStateZnode(new LeaderAndIsr(2, 7, List.of(2, 3), 4), 5);
        assertEquals("{\"controller_epoch\":5,\"leader\":2,\"version\":1,\"leader_epoch\":7,\"isr\":[2,3]}",
            str(state.toJson()));
    }

    @Test
    void writesLeaderRecoveryStateOnlyWhenRecovering() {
        final var state = new PartitionStateZnode(new LeaderAndIsr(1, 3, List.of(1), 0), 2, true);
        assertEquals("{\"controller_epoch\":2,\"leader\":1,\"version\":1,\"leader_epoch\":3,\"isr\":[1],"
            + "\"leader_recovery_state\":1}", str(state.toJson()));
    }

    @Test
    void readsPartitionStateWithPartitionEpochFromZnodeVersion() throws Exception {
        // Kafka 3.9 field order, as TopicPartitionStateZNode.encode writes it.
        final var state = PartitionStateZnode.fromJson("/brokers/topics/t/partitions/0/state",
            utf8("{\"version\":1,\"leader\":2,\"leader_epoch\":7,\"controller_epoch\":5,\"isr\":[2,3]}"), 11);
        assertEquals(new LeaderAndIsr(2, 7, List.of(2, 3), 11), state.leaderAndIsr());
        assertEquals(5, state.controllerEpoch());
        assertEquals(false, state.leaderRecovering());
    }

    @Test
    void readsLeaderlessRecoveringState() throws Exception {
        final var state = PartitionStateZnode.fromJson(
            utf8("{\"controller_epoch\":9,\"leader\":-1,\"version\":1,\"leader_epoch\":4,\"isr\":[3],"
                + "\"leader_recovery_state\":1}"), 0);
        assertEquals(LeaderAndIsr.NO_LEADER, state.leaderAndIsr().leader());
        assertEquals(true, state.leaderRecovering());
    }

    @Test
    void partitionStateRoundTrips() throws Exception {
        final var state = new PartitionStateZnode(new LeaderAndIsr(0, 0, List.of(0, 1, 2), 3), 1);
        assertEquals(state, PartitionStateZnode.fromJson(state.toJson(), 3));
    }

    @Test
    void writesControllerAsKafka39() {
        assertEquals("{\"version\":2,\"brokerid\":1,\"timestamp\":\"1700000000000\",\"kraftControllerEpoch\":-1}",
            str(new ControllerZnode(1, 1_700_000_000_000L).toJson()));
    }

    @Test
    void readsControllerVersionOneAndTwo() throws Exception {
        assertEquals(new ControllerZnode(3, 1_476_214_478_585L), ControllerZnode.fromJson(
            utf8("{\"version\":1,\"brokerid\":3,\"timestamp\":\"1476214478585\"}")));
        assertEquals(new ControllerZnode(1, 1_700_000_000_000L), ControllerZnode.fromJson(
            utf8("{\"version\":2,\"brokerid\":1,\"timestamp\":\"1700000000000\",\"kraftControllerEpoch\":-1}")));
    }

    @Test
    void controllerEpochIsPlainDecimal() throws Exception {
        assertEquals("0", str(ControllerEpochZnode.toBytes(0)));
        assertEquals("12345", str(ControllerEpochZnode.toBytes(12345)));
        assertEquals(5, ControllerEpochZnode.fromBytes(utf8("5")));
        assertEquals(Integer.MAX_VALUE, ControllerEpochZnode.fromBytes(utf8("2147483647")));
        assertThrows(IllegalArgumentException.class, () -> ControllerEpochZnode.toBytes(-1));
    }

    @Test
    void writesBrokerRegistrationVersion5() {
        final var reg = new BrokerRegistration(1, "h1", 9092, Optional.of("r1"), 1_700_000_000_000L);
        assertEquals("{\"version\":5,\"host\":\"h1\",\"port\":9092,\"jmx_port\":-1,\"timestamp\":\"1700000000000\","
            + "\"endpoints\":[\"PLAINTEXT://h1:9092\"],\"listener_security_protocol_map\":{\"PLAINTEXT\":\"PLAINTEXT\"},"
            + "\"rack\":\"r1\",\"features\":{}}", str(reg.toJson()));
    }

    @Test
    void writesBrokerWithoutPlaintextListenerWithNullTopLevelHost() {
        final var reg = new BrokerRegistration(2, "h2", 9093, Optional.empty(), 5L,
            List.of(new BrokerRegistration.Endpoint("CLIENT", "SSL", "h2", 9093),
                new BrokerRegistration.Endpoint("INTERNAL", "SASL_SSL", "::1", 9094)), 9999);
        assertEquals("{\"version\":5,\"host\":null,\"port\":-1,\"jmx_port\":9999,\"timestamp\":\"5\","
            + "\"endpoints\":[\"CLIENT://h2:9093\",\"INTERNAL://[::1]:9094\"],"
            + "\"listener_security_protocol_map\":{\"CLIENT\":\"SSL\",\"INTERNAL\":\"SASL_SSL\"},\"features\":{}}",
            str(reg.toJson()));
    }

    @Test
    void brokerRegistrationRoundTrips() throws Exception {
        final var reg = new BrokerRegistration(2, "h2", 9093, Optional.of("rack-a"), 5L,
            List.of(new BrokerRegistration.Endpoint("CLIENT", "SSL", "h2", 9093),
                new BrokerRegistration.Endpoint("REPLICATION", "PLAINTEXT", "::1", 9094)), 9999);
        final var read = BrokerRegistration.fromJson(2, reg.toJson());
        assertEquals(reg.endpoints(), read.endpoints());
        assertEquals(reg.rack(), read.rack());
        assertEquals(9999, read.jmxPort());
        // The top-level address Kafka writes is the PLAINTEXT listener's.
        assertEquals("::1", read.host());
        assertEquals(9094, read.port());
        final var simple = new BrokerRegistration(7, "localhost", 9092, Optional.empty(), 42L);
        assertEquals(simple, BrokerRegistration.fromJson(7, simple.toJson()));
    }

    @Test
    void readsKafkaBrokerRegistrationV1() throws Exception {
        final var reg = BrokerRegistration.fromJson(1, utf8(
            "{\"jmx_port\":-1,\"timestamp\":\"1420485325400\",\"host\":\"172.16.8.243\",\"version\":1,\"port\":9091}"));
        assertEquals(1, reg.id());
        assertEquals("172.16.8.243", reg.host());
        assertEquals(9091, reg.port());
        assertEquals(1_420_485_325_400L, reg.timestampMs());
        assertEquals(List.of(new BrokerRegistration.Endpoint("PLAINTEXT", "PLAINTEXT", "172.16.8.243", 9091)),
            reg.endpoints());
    }

    @Test
    void readsKafkaBrokerRegistrationV3WithDefaultProtocolMap() throws Exception {
        final var reg = BrokerRegistration.fromJson(1, utf8("""
            {"version":3,"host":"localhost","port":9092,"jmx_port":9999,"timestamp":"2233345666",
             "endpoints":["PLAINTEXT://host1:9092", "SSL://host1:9093"],"rack":"dc1"}"""));
        assertEquals(Optional.of("dc1"), reg.rack());
        assertEquals(new BrokerRegistration.Endpoint("SSL", "SSL", "host1", 9093), reg.endpoints().get(1));
        assertEquals("localhost", reg.host());
        assertEquals(9999, reg.jmxPort());
    }

    @Test
    void readsKafkaBrokerRegistrationV4WithNullRack() throws Exception {
        final var reg = BrokerRegistration.fromJson(1, utf8("""
            {"version":4,"host":"localhost","port":9092,"jmx_port":9999,"timestamp":"2233345666",
             "endpoints":["CLIENT://host1:9092", "REPLICATION://host1:9093"],
             "listener_security_protocol_map":{"CLIENT":"SSL", "REPLICATION":"PLAINTEXT"},"rack":null}"""));
        assertEquals(Optional.empty(), reg.rack());
        assertEquals(new BrokerRegistration.Endpoint("CLIENT", "SSL", "host1", 9092), reg.endpoints().get(0));
    }

    @Test
    void readsKafkaBrokerRegistrationV5WithFeaturesAndFutureVersion() throws Exception {
        final var v5 = BrokerRegistration.fromJson(1, utf8("""
            {"version":5,"host":"localhost","port":9092,"jmx_port":9999,"timestamp":"2233345666",
             "endpoints":["CLIENT://host1:9092", "REPLICATION://host1:9093"],
             "listener_security_protocol_map":{"CLIENT":"SSL", "REPLICATION":"PLAINTEXT"},"rack":"dc1",
             "features": {"feature1": {"min_version": 1, "max_version": 2}}}"""));
        assertEquals(Optional.of("dc1"), v5.rack());
        assertEquals(2, v5.endpoints().size());
        // Kafka's testFromJsonFutureVersion: unknown fields and versions are tolerated.
        final var future = BrokerRegistration.fromJson(1, utf8("""
            {"foo":"bar","version":100,"host":"localhost","port":9092,"jmx_port":9999,
             "timestamp":"1416974968782","endpoints":["SSL://localhost:9093"]}"""));
        assertEquals(new BrokerRegistration.Endpoint("SSL", "SSL", "localhost", 9093), future.endpoints().get(0));
    }

    @Test
    void readsBrokerWithNullTopLevelHostFromFirstEndpoint() throws Exception {
        final var reg = BrokerRegistration.fromJson(4, utf8(
            "{\"version\":5,\"host\":null,\"port\":-1,\"jmx_port\":-1,\"timestamp\":\"1\","
                + "\"endpoints\":[\"SSL://secure:9093\"],\"listener_security_protocol_map\":{\"SSL\":\"SSL\"}}"));
        assertEquals("secure", reg.host());
        assertEquals(9093, reg.port());
    }

    @Test
    void writesTopicAssignmentVersion3() {
        final var a = new TopicAssignmentZnode(Map.of(1, List.of(2, 3, 1), 0, List.of(1, 2, 3)));
        assertEquals("{\"version\":3,\"partitions\":{\"0\":[1,2,3],\"1\":[2,3,1]},\"adding_replicas\":{},"
            + "\"removing_replicas\":{}}", str(a.toJson()));
        final var r = new TopicAssignmentZnode(Map.of(0, List.of(1, 2, 3, 4)), Map.of(0, List.of(4)),
            Map.of(0, List.of(1)), Optional.of("AAAAAAAAAAAAAAAAAAAAAQ"));
        assertEquals("{\"version\":3,\"partitions\":{\"0\":[1,2,3,4]},\"adding_replicas\":{\"0\":[4]},"
            + "\"removing_replicas\":{\"0\":[1]},\"topic_id\":\"AAAAAAAAAAAAAAAAAAAAAQ\"}", str(r.toJson()));
    }

    @Test
    void readsTopicAssignmentOfEveryVersion() throws Exception {
        final var v1 = TopicAssignmentZnode.fromJson("t", utf8("{\"version\":1,\"partitions\":{\"0\":[0,1],\"1\":[1,0]}}"));
        assertEquals(Map.of(0, List.of(0, 1), 1, List.of(1, 0)), v1.partitions());
        assertEquals(Map.of(), v1.addingReplicas());
        final var v2 = TopicAssignmentZnode.fromJson("t", utf8(
            "{\"version\":2,\"partitions\":{\"0\":[1,2,3,4]},\"adding_replicas\":{\"0\":[4]},\"removing_replicas\":{\"0\":[1]}}"));
        assertEquals(Map.of(0, List.of(4)), v2.addingReplicas());
        assertEquals(Map.of(0, List.of(1)), v2.removingReplicas());
        final var v3 = TopicAssignmentZnode.fromJson("t", utf8(
            "{\"removing_replicas\":{},\"partitions\":{\"1\":[2,0],\"0\":[0,2]},\"topic_id\":\"ZbD4IQlmRk-ENlQ6vVdi_g\","
                + "\"adding_replicas\":{},\"version\":3}"));
        assertEquals(Optional.of("ZbD4IQlmRk-ENlQ6vVdi_g"), v3.topicId());
        assertEquals(List.of(0, 1), List.copyOf(v3.partitions().keySet()));
        assertEquals(v3, TopicAssignmentZnode.fromJson("t", v3.toJson()));
    }

    @Test
    void writesAndReadsIsrChangeNotification() throws Exception {
        final var n = new IsrChangeNotificationZnode(Set.of(new TopicPartition("t", 1), new TopicPartition("a", 0),
            new TopicPartition("t", 0)));
        assertEquals("{\"version\":1,\"partitions\":[{\"topic\":\"a\",\"partition\":0},{\"topic\":\"t\",\"partition\":0},"
            + "{\"topic\":\"t\",\"partition\":1}]}", str(n.toJson()));
        assertEquals(n, IsrChangeNotificationZnode.fromJson("/isr_change_notification/isr_change_0000000001",
            utf8("{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":1},{\"topic\":\"a\",\"partition\":0},"
                + "{\"topic\":\"t\",\"partition\":0},{\"topic\":\"t\",\"partition\":0}]}")));
    }

    @Test
    void writesAndReadsPreferredReplicaElection() throws Exception {
        final var p = new PreferredReplicaElectionZnode(Set.of(new TopicPartition("t", 0)));
        assertEquals("{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0}]}", str(p.toJson()));
        assertEquals(p, PreferredReplicaElectionZnode.fromJson(p.toJson()));
    }

    @Test
    void writesAndReadsReassignment() throws Exception {
        final var r = new ReassignPartitionsZnode(Map.of(new TopicPartition("t", 1), List.of(3, 1),
            new TopicPartition("t", 0), List.of(1, 2, 3)));
        assertEquals("{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[1,2,3]},"
            + "{\"topic\":\"t\",\"partition\":1,\"replicas\":[3,1]}]}", str(r.toJson()));
        assertEquals(r, ReassignPartitionsZnode.fromJson(
            utf8("{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":1,\"replicas\":[3,1]},"
                + "{\"topic\":\"t\",\"partition\":0,\"replicas\":[1,2,3]}]}")));
    }

    @Test
    void writesProducerIdBlockAsKafka() {
        // Kafka's ProducerIdBlockZNode.generateProducerIdBlockJson: version and broker numbers, the bounds strings.
        assertEquals("{\"version\":1,\"broker\":2,\"block_start\":\"1000\",\"block_end\":\"1999\"}",
            str(new ProducerIdBlockZnode(2, 1000, 1999).toJson()));
    }

    @Test
    void readsProducerIdBlockAsKafkaWritesIt() throws Exception {
        assertEquals(new ProducerIdBlockZnode(1, 0, 999), ProducerIdBlockZnode.fromJson(
            utf8("{\"version\":1,\"broker\":1,\"block_start\":\"0\",\"block_end\":\"999\"}")));
        // Field order does not matter; a later version is read as Kafka reads it.
        assertEquals(new ProducerIdBlockZnode(7, 9_000_000_000L, 9_000_000_999L), ProducerIdBlockZnode.fromJson(
            utf8("{\"block_end\":\"9000000999\",\"block_start\":\"9000000000\",\"broker\":7,\"version\":2}")));
    }

    @Test
    void nextProducerIdBlockFollowsThePreviousOne() {
        assertEquals(new ProducerIdBlockZnode(3, 0, 999), ProducerIdBlockZnode.next(3, null));
        assertEquals(new ProducerIdBlockZnode(3, 2000, 2999), ProducerIdBlockZnode.next(3,
            new ProducerIdBlockZnode(1, 1000, 1999)));
        assertEquals(1000, ProducerIdBlockZnode.next(3, null).size());
        final IllegalStateException exhausted = assertThrows(IllegalStateException.class,
            () -> ProducerIdBlockZnode.next(3, new ProducerIdBlockZnode(1, Long.MAX_VALUE - 1500, Long.MAX_VALUE - 501)));
        assertEquals(true, exhausted.getMessage().contains("block_end=" + (Long.MAX_VALUE - 501)), exhausted.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ProducerIdBlockZnode(1, 10, 9));
        assertThrows(IllegalArgumentException.class, () -> new ProducerIdBlockZnode(-1, 0, 9));
    }
}
