package io.seglog.replication.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Kafka's config change notification ({@code /config/changes/config_change_<seq>}), versions 1 and 2. */
class ConfigChangeNotificationZnodeTest {
    private static final String PATH = "/config/changes/config_change_0000000007";

    private static ConfigChangeNotificationZnode parse(final String json) throws MalformedZnodeException {
        return ConfigChangeNotificationZnode.fromJson(PATH, json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void writesKafkasVersionTwoAndReadsBothVersions() throws Exception {
        // Kafka's ConfigEntityChangeNotificationSequenceZNode.encode: {"version":2,"entity_path":"<type>/<name>"}
        final ConfigChangeNotificationZnode change = ConfigChangeNotificationZnode.topic("orders.v1");
        assertEquals("{\"version\":2,\"entity_path\":\"topics/orders.v1\"}",
            new String(change.toJson(), StandardCharsets.UTF_8));
        assertEquals(change, parse("{\"version\" : 2, \"entity_path\":\"topics/orders.v1\"}"));
        assertEquals("topics", change.entityType());
        assertEquals("orders.v1", change.entityName());
        assertEquals(change, parse("{\"version\":1,\"entity_type\":\"topics\",\"entity_name\":\"orders.v1\"}"));
        assertEquals("clients", parse("{\"version\":2,\"entity_path\":\"clients/a/b\"}").entityType());
        assertEquals("a/b", parse("{\"version\":2,\"entity_path\":\"clients/a/b\"}").entityName());
    }

    @Test
    void rejectsMalformedNotificationsNamingTheField() {
        assertEquals("entity_path", assertThrows(MalformedZnodeException.class,
            () -> parse("{\"version\":2,\"entity_path\":\"topics\"}")).field());
        assertEquals("entity_path", assertThrows(MalformedZnodeException.class,
            () -> parse("{\"version\":2}")).field());
        assertEquals("version", assertThrows(MalformedZnodeException.class,
            () -> parse("{\"version\":3,\"entity_path\":\"topics/t\"}")).field());
        assertThrows(IllegalArgumentException.class, () -> new ConfigChangeNotificationZnode("/t"));
        assertEquals("/config/changes/config_change_", ZkPaths.configChangeSequencePrefix());
        assertEquals(PATH, ZkPaths.configChangePath("config_change_0000000007"));
        assertThrows(IllegalArgumentException.class, () -> ZkPaths.configChangePath("isr_change_1"));
    }
}
