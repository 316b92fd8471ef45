package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TopicPartitionTest {
    @Test
    void namesItsDirectoryAsKafkaDoes() {
        assertEquals("orders-3", new TopicPartition("orders", 3).directoryName());
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "Orders.v2", "x_y-z", "0"})
    void acceptsLegalTopics(final String topic) {
        assertEquals(topic, new TopicPartition(topic, 0).topic());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "a/b", "../etc", "a b", "é", "a\\b"})
    void rejectsIllegalTopics(final String topic) {
        final IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> new TopicPartition(topic, 0));
        assertTrue(e.getMessage().startsWith("topic"), e.getMessage());
    }

    @Test
    void rejectsTooLongTopicAndNegativePartition() {
        assertThrows(IllegalArgumentException.class, () -> new TopicPartition("t".repeat(250), 0));
        assertEquals(249, new TopicPartition("t".repeat(249), 0).topic().length());
        final IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> new TopicPartition("t", -1));
        assertTrue(e.getMessage().contains("partition=-1"), e.getMessage());
    }
}
