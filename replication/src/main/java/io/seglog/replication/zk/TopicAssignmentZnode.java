package io.seglog.replication.zk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Base64;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The payload of {@code /brokers/topics/<topic>}: each partition's replica list (the first replica is the
 * preferred leader, and elections scan in this order), plus the replicas being added or removed by a reassignment.
 *
 * <pre>
 * {"version":3,"partitions":{"0":[1,2,3],"1":[2,3,1]},"adding_replicas":{"0":[4]},"removing_replicas":{"0":[1]},
 *  "topic_id":"AAAAAAAAAAAAAAAAAAAAAQ"}
 * </pre>
 *
 * <p>Version history: 1 (up to Kafka 2.3) = {@code partitions} only; 2 (2.4, KIP-455) adds {@code adding_replicas}
 * and {@code removing_replicas}; 3 (2.8, KIP-516) adds {@code topic_id}, written when the topic has one. We write
 * version 3 as Kafka 3.9 does, always with both (possibly empty) reassignment maps, and read every version.
 *
 * <p>Integrity: partition keys are canonical non-negative decimals; replica lists are non-empty and distinct;
 * adding and removing replicas name existing partitions and are subsets of their replica lists; a topic id is a
 * 16-byte URL-safe base64 UUID. Anything else is a {@link MalformedZnodeException}. Immutable and thread-safe.
 *
 * @param partitions       replica list per partition, ordered by partition (copied, immutable)
 * @param addingReplicas   replicas being added, per partition under reassignment (copied, immutable)
 * @param removingReplicas replicas being removed, per partition under reassignment (copied, immutable)
 * @param topicId          Kafka's topic id (base64), when the topic has one
 */
public record TopicAssignmentZnode(Map<Integer, List<Integer>> partitions, Map<Integer, List<Integer>> addingReplicas,
    Map<Integer, List<Integer>> removingReplicas, Optional<String> topicId) {
    /** The version written. */
    static final int VERSION = 3;

    /**
     * Validates and copies.
     *
     * @param partitions       the replica lists
     * @param addingReplicas   the replicas being added
     * @param removingReplicas the replicas being removed
     * @param topicId          the topic id
     * @throws IllegalArgumentException naming the partition and value when anything is invalid
     */
    public TopicAssignmentZnode {
        partitions = copy("partitions", partitions, false);
        addingReplicas = copy("adding_replicas", addingReplicas, true);
        removingReplicas = copy("removing_replicas", removingReplicas, true);
        checkSubsets("adding_replicas", addingReplicas, partitions);
        checkSubsets("removing_replicas", removingReplicas, partitions);
        if (topicId == null) {
            throw new IllegalArgumentException("topicId=null; use Optional.empty()");
        }
        topicId.ifPresent(TopicAssignmentZnode::checkTopicId);
    }

    /**
     * An assignment with no reassignment in progress and no topic id.
     *
     * @param partitions the replica list per partition
     */
    public TopicAssignmentZnode(final Map<Integer, List<Integer>> partitions) {
        this(partitions, Map.of(), Map.of(), Optional.empty());
    }

    /**
     * Encodes the payload in version 3, partitions in ascending order.
     *
     * @return compact UTF-8 JSON
     */
    public byte[] toJson() {
        final ObjectNode obj = ZkJson.newObject().put("version", VERSION);
        writeMap(obj.putObject("partitions"), partitions);
        writeMap(obj.putObject("adding_replicas"), addingReplicas);
        writeMap(obj.putObject("removing_replicas"), removingReplicas);
        topicId.ifPresent(id -> obj.put("topic_id", id));
        return ZkJson.write(obj);
    }

    /**
     * Decodes a payload of any version.
     *
     * @param topic the topic (the znode's name)
     * @param json  the payload
     * @return the assignment
     * @throws MalformedZnodeException when the payload is not a valid assignment
     * @throws IllegalArgumentException when the topic name is illegal (a caller's mistake)
     */
    public static TopicAssignmentZnode fromJson(final String topic, final byte[] json) throws MalformedZnodeException {
        final String path = ZkPaths.topicPath(topic);
        final ObjectNode obj = ZkJson.parseObject(path, json);
        ZkJson.version(path, obj, 1, Integer.MAX_VALUE);
        final Map<Integer, List<Integer>> partitions = readMap(path, "partitions", ZkJson.required(path, obj, "partitions"), false);
        if (partitions.isEmpty()) {
            throw new MalformedZnodeException(path, "partitions", "must hold at least one partition");
        }
        final Map<Integer, List<Integer>> adding = readOptionalMap(path, obj, "adding_replicas");
        final Map<Integer, List<Integer>> removing = readOptionalMap(path, obj, "removing_replicas");
        Optional<String> topicId = Optional.empty();
        final JsonNode idNode = obj.get("topic_id");
        if (idNode != null && !idNode.isNull()) {
            topicId = Optional.of(ZkJson.asString(path, "topic_id", idNode));
            wrap(path, "topic_id", () -> checkTopicId(obj.get("topic_id").textValue()));
        }
        wrap(path, "adding_replicas", () -> checkSubsets("adding_replicas", adding, partitions));
        wrap(path, "removing_replicas", () -> checkSubsets("removing_replicas", removing, partitions));
        return new TopicAssignmentZnode(partitions, adding, removing, topicId);
    }

    /** Runs a constructor check on decoded data, reporting its failure as a malformed field. */
    private static void wrap(final String path, final String field, final Runnable check)
        throws MalformedZnodeException {
        try {
            check.run();
        } catch (final IllegalArgumentException e) {
            throw new MalformedZnodeException(path, field, e.getMessage(), e);
        }
    }

    private static Map<Integer, List<Integer>> readOptionalMap(final String path, final ObjectNode obj,
        final String field) throws MalformedZnodeException {
        final JsonNode node = obj.get(field);
        return node == null || node.isNull() ? Map.of() : readMap(path, field, node, true);
    }

    private static Map<Integer, List<Integer>> readMap(final String path, final String field, final JsonNode node,
        final boolean allowEmptyLists) throws MalformedZnodeException {
        final ObjectNode map = ZkJson.asObject(path, field, node);
        final SortedMap<Integer, List<Integer>> result = new TreeMap<>();
        for (final Map.Entry<String, JsonNode> entry : map.properties()) {
            final String key = field + "." + entry.getKey();
            final int partition = ZkPaths.canonicalNonNegativeInt(path, key, entry.getKey());
            result.put(partition, ZkJson.brokerIds(path, key, entry.getValue(), allowEmptyLists));
        }
        return result;
    }

    private static void writeMap(final ObjectNode target, final Map<Integer, List<Integer>> map) {
        map.forEach((partition, replicas) -> target.set(Integer.toString(partition), ZkJson.intArray(replicas)));
    }

    private static Map<Integer, List<Integer>> copy(final String field, final Map<Integer, List<Integer>> map,
        final boolean allowEmptyLists) {
        if (map == null) {
            throw new IllegalArgumentException(field + "=null");
        }
        final SortedMap<Integer, List<Integer>> copy = new TreeMap<>();
        for (final Map.Entry<Integer, List<Integer>> e : map.entrySet()) {
            final Integer partition = e.getKey();
            if (partition == null || partition < 0) {
                throw new IllegalArgumentException(field + "=" + map + " has an invalid partition=" + partition);
            }
            final List<Integer> replicas = e.getValue();
            if (replicas == null || (!allowEmptyLists && replicas.isEmpty())) {
                throw new IllegalArgumentException(field + "=" + map + " has no replicas for partition=" + partition);
            }
            final HashSet<Integer> seen = new HashSet<>();
            for (final Integer id : replicas) {
                if (id == null || id < 0 || !seen.add(id)) {
                    throw new IllegalArgumentException(field + "=" + map + " has an invalid or repeated broker id="
                        + id + " for partition=" + partition);
                }
            }
            copy.put(partition, List.copyOf(replicas));
        }
        return Collections.unmodifiableSortedMap(copy);
    }

    private static void checkSubsets(final String field, final Map<Integer, List<Integer>> subset,
        final Map<Integer, List<Integer>> partitions) {
        for (final Map.Entry<Integer, List<Integer>> e : subset.entrySet()) {
            final List<Integer> replicas = partitions.get(e.getKey());
            if (replicas == null) {
                throw new IllegalArgumentException(field + "=" + subset + " names partition=" + e.getKey()
                    + " which is not in partitions");
            }
            if (!replicas.containsAll(e.getValue())) {
                throw new IllegalArgumentException(field + "=" + subset + " for partition=" + e.getKey()
                    + " is not a subset of its replicas=" + replicas);
            }
        }
    }

    private static void checkTopicId(final String topicId) {
        // Kafka's Uuid.toString: 16 bytes in URL-safe base64 without padding, which is always 22 characters.
        boolean ok = topicId.length() == 22 && topicId.matches("[A-Za-z0-9_-]+");
        if (ok) {
            try {
                ok = Base64.getUrlDecoder().decode(topicId).length == 16;
            } catch (final IllegalArgumentException e) {
                ok = false;
            }
        }
        if (!ok) {
            throw new IllegalArgumentException("topic_id=" + topicId + " is not a 16-byte URL-safe base64 UUID");
        }
    }
}
