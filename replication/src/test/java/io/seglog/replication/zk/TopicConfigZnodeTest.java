package io.seglog.replication.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TopicConfigZnodeTest {
    private static final String PATH = "/config/topics/t";

    private static TopicConfigZnode parse(final String json) throws MalformedZnodeException {
        return TopicConfigZnode.fromJson(PATH, json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsAndWritesKafkasFormat() throws Exception {
        final String kafka = "{\"version\":1,\"config\":{\"min.insync.replicas\":\"2\","
            + "\"unclean.leader.election.enable\":\"true\"}}";
        final TopicConfigZnode parsed = parse(kafka);
        assertEquals(Map.of("min.insync.replicas", "2", "unclean.leader.election.enable", "true"), parsed.config());
        assertEquals(kafka, new String(parsed.toJson(), StandardCharsets.UTF_8));
        assertEquals(Optional.of(true), parsed.uncleanLeaderElectionEnable(PATH));
        assertEquals(Optional.of(false), parse("{\"version\":1,\"config\":{\"unclean.leader.election.enable\":\" False \"}}")
            .uncleanLeaderElectionEnable(PATH));
        assertEquals(Optional.empty(), parse("{\"version\":1,\"config\":{}}").uncleanLeaderElectionEnable(PATH));
        assertEquals("/config/topics/t", ZkPaths.topicConfigPath("t"));
    }

    @Test
    void rejectsMalformedPayloadsNamingTheField() throws Exception {
        assertEquals("config.unclean.leader.election.enable", assertThrows(MalformedZnodeException.class,
            () -> parse("{\"version\":1,\"config\":{\"unclean.leader.election.enable\":true}}")).field());
        assertEquals("config", assertThrows(MalformedZnodeException.class, () -> parse("{\"version\":1}")).field());
        assertEquals("config", assertThrows(MalformedZnodeException.class,
            () -> parse("{\"version\":1,\"config\":[1]}")).field());
        assertThrows(MalformedZnodeException.class, () -> parse("{\"version\":1,\"config\":"));
        final MalformedZnodeException notBoolean = assertThrows(MalformedZnodeException.class,
            () -> parse("{\"version\":1,\"config\":{\"unclean.leader.election.enable\":\"yes\"}}")
                .uncleanLeaderElectionEnable(PATH));
        assertEquals(PATH, notBoolean.path());
        assertEquals("config.unclean.leader.election.enable", notBoolean.field());
        assertThrows(IllegalArgumentException.class, () -> new TopicConfigZnode(java.util.Collections.singletonMap("k", null)));
    }
}
