package io.seglog.replication.zk;

import io.seglog.storage.TopicPartition;
import java.util.Collections;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The payload of a persistent-sequential {@code /isr_change_notification/isr_change_<seq>}: the partitions whose
 * ISR a leader changed, so the controller re-reads their state and tells every broker.
 *
 * <pre>
 * {"version":1,"partitions":[{"topic":"t","partition":0},{"topic":"t","partition":1}]}
 * </pre>
 *
 * <p>Version history: 1 is the only version. Written sorted by topic and partition; repeated partitions read as
 * one (Kafka reads a set). Immutable and thread-safe.
 *
 * @param partitions the partitions whose ISR changed (copied, sorted, immutable)
 */
record IsrChangeNotificationZnode(Set<TopicPartition> partitions) {
    /** The version written. */
    public static final int VERSION = 1;

    /**
     * Copies.
     *
     * @param partitions the partitions
     * @throws IllegalArgumentException when the set is null or holds null
     */
    public IsrChangeNotificationZnode {
        partitions = sortedCopy(partitions);
    }

    /**
     * Encodes the payload.
     *
     * @return compact UTF-8 JSON
     */
    public byte[] toJson() {
        return ZkJson.writePartitionSet(partitions);
    }

    /**
     * Decodes the payload.
     *
     * @param path the notification's path, for messages
     * @param json the payload
     * @return the notification
     * @throws MalformedZnodeException when the payload is not a valid notification
     */
    public static IsrChangeNotificationZnode fromJson(final String path, final byte[] json)
        throws MalformedZnodeException {
        return new IsrChangeNotificationZnode(ZkJson.partitionSet(path, json));
    }

    static SortedSet<TopicPartition> sortedCopy(final Set<TopicPartition> partitions) {
        if (partitions == null) {
            throw new IllegalArgumentException("partitions=null");
        }
        final SortedSet<TopicPartition> copy = new TreeSet<>(ZkJson.PARTITION_ORDER);
        for (final TopicPartition tp : partitions) {
            if (tp == null) {
                throw new IllegalArgumentException("partitions=" + partitions + " must not hold null");
            }
            copy.add(tp);
        }
        return Collections.unmodifiableSortedSet(copy);
    }
}
