package io.seglog.replication.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.junit.jupiter.api.Test;

/**
 * The topics of a consumer's subscription, read from kafka-clients' own bytes at every version it writes; damaged
 * bytes are refused, never read as other topics.
 */
class SubscribedTopicsTest {
    private static byte[] bytes(final ByteBuffer b) {
        final byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    @Test
    void everyVersionKafkaClientsWritesIsRead() {
        final Subscription sub = new Subscription(List.of("orders", "payments", "z\u00fcrich"),
            ByteBuffer.wrap(new byte[] {1, 2, 3}), List.of(new TopicPartition("orders", 3)), 7,
            java.util.Optional.of("rack-a"));
        for (short v = ConsumerProtocolSubscription.LOWEST_SUPPORTED_VERSION;
             v <= ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION;
             v++) {
            final Set<String> topics = new HashSet<>();
            assertTrue(SubscribedTopics.read(ByteBuffer.wrap(bytes(ConsumerProtocol.serializeSubscription(sub, v))),
                topics), "version " + v);
            assertEquals(Set.of("orders", "payments", "z\u00fcrich"), topics, "version " + v);
        }
    }

    @Test
    void damagedBytesAreRefused() {
        final byte[] good = bytes(ConsumerProtocol.serializeSubscription(new Subscription(List.of("orders"))));
        for (int cut = 0; cut < 2 + 4 + 2 + "orders".length(); cut++) {
            final byte[] truncated = java.util.Arrays.copyOf(good, cut);
            assertFalse(SubscribedTopics.read(ByteBuffer.wrap(truncated), new HashSet<>()), "cut at " + cut);
        }
        final ByteBuffer hugeCount = ByteBuffer.allocate(6).putShort((short) 0).putInt(Integer.MAX_VALUE).flip();
        assertFalse(SubscribedTopics.read(hugeCount, new HashSet<>()), "a count beyond the bytes");
        final ByteBuffer negative = ByteBuffer.allocate(8).putShort((short) 0).putInt(1).putShort((short) -1).flip();
        assertFalse(SubscribedTopics.read(negative, new HashSet<>()), "a null topic name");
        final ByteBuffer badUtf8 = ByteBuffer.allocate(9).putShort((short) 0).putInt(1).putShort((short) 1)
            .put((byte) 0xff).flip();
        assertFalse(SubscribedTopics.read(badUtf8, new HashSet<>()), "not UTF-8");
    }
}
