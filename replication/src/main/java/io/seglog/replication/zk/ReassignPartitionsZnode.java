package io.seglog.replication.zk;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.seglog.storage.TopicPartition;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The payload of {@code /admin/reassign_partitions}: an administrator's request to move partitions to new replica
 * lists (Kafka's legacy mechanism, deprecated since 2.4 but still honoured by its ZooKeeper-mode controller).
 *
 * <pre>
 * {"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2,3]}]}
 * </pre>
 *
 * <p>Version history: 1 is the only version. Written sorted by topic and partition. A partition named twice is
 * rejected (which target would win is ambiguous); replica lists are non-empty and distinct. Immutable and
 * thread-safe.
 *
 * @param reassignments the target replica list per partition (copied, sorted, immutable)
 */
public record ReassignPartitionsZnode(Map<TopicPartition, List<Integer>> reassignments) {
    /** The version written. */
    static final int VERSION = 1;

    /**
     * Validates and copies.
     *
     * @param reassignments the targets
     * @throws IllegalArgumentException when a target list is empty, repeats a broker or holds a negative id
     */
    public ReassignPartitionsZnode {
        if (reassignments == null) {
            throw new IllegalArgumentException("reassignments=null");
        }
        final SortedMap<TopicPartition, List<Integer>> copy = new TreeMap<>(ZkJson.PARTITION_ORDER);
        for (final Map.Entry<TopicPartition, List<Integer>> e : reassignments.entrySet()) {
            final List<Integer> replicas = e.getValue();
            if (e.getKey() == null || replicas == null || replicas.isEmpty()
                || replicas.stream().anyMatch(id -> id == null || id < 0)
                || replicas.stream().distinct().count() != replicas.size()) {
                throw new IllegalArgumentException("replicas=" + replicas + " for partition=" + e.getKey()
                    + " must be a non-empty list of distinct non-negative broker ids");
            }
            copy.put(e.getKey(), List.copyOf(replicas));
        }
        reassignments = Collections.unmodifiableSortedMap(copy);
    }

    /**
     * Encodes the payload.
     *
     * @return compact UTF-8 JSON
     */
    public byte[] toJson() {
        final ObjectNode obj = ZkJson.newObject().put("version", VERSION);
        final ArrayNode array = obj.putArray("partitions");
        reassignments.forEach((tp, replicas) -> array.addObject()
            .put("topic", tp.topic())
            .put("partition", tp.partition())
            .set("replicas", ZkJson.intArray(replicas)));
        return ZkJson.write(obj);
    }

    /**
     * Decodes the payload of {@link ZkPaths#REASSIGN}.
     *
     * @param json the payload
     * @return the request
     * @throws MalformedZnodeException when the payload is not a valid request
     */
    static ReassignPartitionsZnode fromJson(final byte[] json) throws MalformedZnodeException {
        final String path = ZkPaths.REASSIGN;
        final ObjectNode obj = ZkJson.parseObject(path, json);
        ZkJson.version(path, obj, 1, Integer.MAX_VALUE);
        final ArrayNode array = ZkJson.asArray(path, "partitions", ZkJson.required(path, obj, "partitions"),
            ZkJson.MAX_ENTRIES);
        final SortedMap<TopicPartition, List<Integer>> result = new TreeMap<>(ZkJson.PARTITION_ORDER);
        for (int i = 0; i < array.size(); i++) {
            final String field = "partitions[" + i + "]";
            final TopicPartition tp = ZkJson.topicPartition(path, field, array.get(i));
            final ObjectNode element = (ObjectNode) array.get(i);
            final List<Integer> replicas = ZkJson.brokerIds(path, field + ".replicas",
                ZkJson.required(path, element, "replicas"), false);
            if (result.put(tp, replicas) != null) {
                throw new MalformedZnodeException(path, field, "partition=" + tp + " appears twice");
            }
        }
        return new ReassignPartitionsZnode(result);
    }
}
