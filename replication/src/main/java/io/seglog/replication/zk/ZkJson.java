package io.seglog.replication.zk;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.seglog.storage.TopicPartition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Strict, bounded JSON reading and ordered JSON writing for the znode payloads.
 *
 * <p>Reading never throws an unchecked exception for bad data: every problem becomes a
 * {@link MalformedZnodeException} naming the path and the field. The limits exist because a znode can be
 * written by any client: a payload larger than ZooKeeper's buffer, deep nesting, duplicate keys, trailing
 * garbage, fractional or out-of-range numbers are all rejected before anything is allocated from them.
 *
 * <p>Writing builds an insertion-ordered tree, so that the bytes are deterministic (golden tests compare them).
 *
 * <p>Stateless and thread-safe (the mapper is configured once and never changed afterwards).
 */
final class ZkJson {
    /**
     * Largest payload read: 4 MiB, the {@code jute.maxbuffer} that Kafka's ZooKeeper client sets, so nothing a real
     * ZooKeeper could hold is refused and nothing larger is parsed.
     */
    static final int MAX_PAYLOAD_BYTES = 4 << 20;
    /** Most replicas in one partition's list; far above any real replication factor, small enough to be harmless. */
    static final int MAX_REPLICAS = 1024;
    /** Most entries in any list or map of a payload (partitions of a topic, partitions in a notification). */
    static final int MAX_ENTRIES = 1 << 20;
    /** Deepest nesting any payload needs is 3 (broker features); 16 leaves room for unknown future fields. */
    private static final int MAX_NESTING_DEPTH = 16;
    /** Longest string value: hosts, topics and racks are short; 64 KiB is generous. */
    private static final int MAX_STRING_LENGTH = 64 * 1024;
    /** Longest number literal: a long has at most 20 characters with its sign. */
    private static final int MAX_NUMBER_LENGTH = 24;

    private static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
        .streamReadConstraints(StreamReadConstraints.builder()
            .maxNestingDepth(MAX_NESTING_DEPTH)
            .maxStringLength(MAX_STRING_LENGTH)
            .maxNumberLength(MAX_NUMBER_LENGTH)
            .build())
        .build())
        .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private ZkJson() {
    }

    /**
     * Parses a payload that must be one JSON object.
     *
     * @param path the znode's path, for messages
     * @param json the payload
     * @return the object
     * @throws MalformedZnodeException when the payload is absent, too large, not JSON, or not an object
     */
    static ObjectNode parseObject(final String path, final byte[] json) throws MalformedZnodeException {
        if (json == null || json.length == 0) {
            throw new MalformedZnodeException(path, MalformedZnodeException.WHOLE_PAYLOAD, "no data");
        }
        if (json.length > MAX_PAYLOAD_BYTES) {
            throw new MalformedZnodeException(path, MalformedZnodeException.WHOLE_PAYLOAD,
                "length=" + json.length + " exceeds limit=" + MAX_PAYLOAD_BYTES);
        }
        final JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (final IOException | RuntimeException e) {
            // Jackson reports constraint violations as (unchecked) StreamConstraintsException on some paths.
            throw new MalformedZnodeException(path, MalformedZnodeException.WHOLE_PAYLOAD,
                "not valid JSON: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new MalformedZnodeException(path, MalformedZnodeException.WHOLE_PAYLOAD,
                "expected a JSON object, found " + (root == null ? "nothing" : root.getNodeType()));
        }
        return (ObjectNode) root;
    }

    /**
     * Starts a new insertion-ordered object for a writer.
     *
     * @return an empty object
     */
    static ObjectNode newObject() {
        return JsonNodeFactory.instance.objectNode();
    }

    /**
     * Serialises a tree built by a writer.
     *
     * @param node the tree
     * @return compact UTF-8 JSON, fields in insertion order
     */
    static byte[] write(final JsonNode node) {
        try {
            return MAPPER.writeValueAsBytes(node);
        } catch (final JsonProcessingException e) {
            // A tree of plain nodes written to memory cannot fail; if it does, it is a bug here.
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A field that must be present (a JSON {@code null} counts as present).
     *
     * @param path  the znode's path
     * @param obj   the object
     * @param field the field's name (also used in the message)
     * @return the value
     * @throws MalformedZnodeException when it is missing
     */
    static JsonNode required(final String path, final ObjectNode obj, final String field)
        throws MalformedZnodeException {
        final JsonNode value = obj.get(field);
        if (value == null) {
            throw new MalformedZnodeException(path, field, "missing");
        }
        return value;
    }

    /**
     * Reads a required int field within bounds.
     *
     * @param path  the znode's path
     * @param obj   the object
     * @param field the field's name
     * @param min   the smallest legal value
     * @param max   the largest legal value
     * @return the value
     * @throws MalformedZnodeException when missing, not an integer, or out of bounds
     */
    static int requiredInt(final String path, final ObjectNode obj, final String field, final int min, final int max)
        throws MalformedZnodeException {
        return asInt(path, field, required(path, obj, field), min, max);
    }

    /**
     * Converts a node to an int within bounds.
     *
     * @param path  the znode's path
     * @param field the JSON path of the node, for messages
     * @param node  the node
     * @param min   the smallest legal value
     * @param max   the largest legal value
     * @return the value
     * @throws MalformedZnodeException when it is not an integer or out of bounds
     */
    static int asInt(final String path, final String field, final JsonNode node, final int min, final int max)
        throws MalformedZnodeException {
        if (!node.isIntegralNumber()) {
            throw new MalformedZnodeException(path, field, "expected an integer, found " + describe(node));
        }
        if (!node.canConvertToInt()) {
            throw new MalformedZnodeException(path, field, "value=" + node.asText() + " is not a 32-bit integer");
        }
        final int value = node.intValue();
        if (value < min || value > max) {
            throw new MalformedZnodeException(path, field,
                "value=" + value + " outside [" + min + ", " + max + "]");
        }
        return value;
    }

    /**
     * Reads a required non-null string field.
     *
     * @param path  the znode's path
     * @param obj   the object
     * @param field the field's name
     * @return the value
     * @throws MalformedZnodeException when missing or not a string
     */
    static String requiredString(final String path, final ObjectNode obj, final String field)
        throws MalformedZnodeException {
        return asString(path, field, required(path, obj, field));
    }

    /**
     * Converts a node to a string.
     *
     * @param path  the znode's path
     * @param field the JSON path of the node
     * @param node  the node
     * @return the value
     * @throws MalformedZnodeException when it is not a string
     */
    static String asString(final String path, final String field, final JsonNode node)
        throws MalformedZnodeException {
        if (!node.isTextual()) {
            throw new MalformedZnodeException(path, field, "expected a string, found " + describe(node));
        }
        return node.textValue();
    }

    /**
     * Converts a node to an object.
     *
     * @param path  the znode's path
     * @param field the JSON path of the node
     * @param node  the node
     * @return the object
     * @throws MalformedZnodeException when it is not an object or has more than {@link #MAX_ENTRIES} fields
     */
    static ObjectNode asObject(final String path, final String field, final JsonNode node)
        throws MalformedZnodeException {
        if (!node.isObject()) {
            throw new MalformedZnodeException(path, field, "expected an object, found " + describe(node));
        }
        if (node.size() > MAX_ENTRIES) {
            throw new MalformedZnodeException(path, field, "size=" + node.size() + " exceeds limit=" + MAX_ENTRIES);
        }
        return (ObjectNode) node;
    }

    /**
     * Converts a node to an array of at most {@code maxSize} elements.
     *
     * @param path    the znode's path
     * @param field   the JSON path of the node
     * @param node    the node
     * @param maxSize the most elements allowed
     * @return the array
     * @throws MalformedZnodeException when it is not an array or is too long
     */
    static ArrayNode asArray(final String path, final String field, final JsonNode node, final int maxSize)
        throws MalformedZnodeException {
        if (!node.isArray()) {
            throw new MalformedZnodeException(path, field, "expected an array, found " + describe(node));
        }
        if (node.size() > maxSize) {
            throw new MalformedZnodeException(path, field, "size=" + node.size() + " exceeds limit=" + maxSize);
        }
        return (ArrayNode) node;
    }

    /**
     * Reads a list of broker ids: non-negative, distinct, at most {@link #MAX_REPLICAS}, in the order given (the
     * order matters: the first replica is the preferred leader).
     *
     * @param path       the znode's path
     * @param field      the JSON path of the node
     * @param node       the node
     * @param allowEmpty whether an empty list is legal here
     * @return an immutable list
     * @throws MalformedZnodeException when it is not such a list
     */
    static List<Integer> brokerIds(final String path, final String field, final JsonNode node,
        final boolean allowEmpty) throws MalformedZnodeException {
        final ArrayNode array = asArray(path, field, node, MAX_REPLICAS);
        if (!allowEmpty && array.isEmpty()) {
            throw new MalformedZnodeException(path, field, "must not be empty");
        }
        final List<Integer> ids = new ArrayList<>(array.size());
        final Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < array.size(); i++) {
            final String element = field + "[" + i + "]";
            final int id = asInt(path, element, array.get(i), 0, Integer.MAX_VALUE);
            if (!seen.add(id)) {
                throw new MalformedZnodeException(path, element, "broker id=" + id + " appears twice in " + array);
            }
            ids.add(id);
        }
        return List.copyOf(ids);
    }

    /**
     * Reads the {@code version} field.
     *
     * @param path the znode's path
     * @param obj  the object
     * @param min  the oldest version this decoder understands
     * @param max  the newest version this decoder understands
     * @return the version
     * @throws MalformedZnodeException when missing or outside [min, max]
     */
    static int version(final String path, final ObjectNode obj, final int min, final int max)
        throws MalformedZnodeException {
        return requiredInt(path, obj, "version", min, max);
    }

    /**
     * Reads a millisecond timestamp that Kafka writes as a decimal string; an integral number is accepted too.
     *
     * @param path  the znode's path
     * @param field the field's JSON path
     * @param node  the node
     * @return the timestamp in ms
     * @throws MalformedZnodeException when it is neither a decimal long string nor an integral number
     */
    static long timestampMs(final String path, final String field, final JsonNode node)
        throws MalformedZnodeException {
        if (node.isIntegralNumber() && node.canConvertToLong()) {
            return node.longValue();
        }
        if (node.isTextual()) {
            return parseDecimalLong(path, field, node.textValue());
        }
        throw new MalformedZnodeException(path, field, "expected a decimal timestamp, found " + describe(node));
    }

    /**
     * Parses a plain decimal long (an optional minus and 1 to 19 digits, nothing else).
     *
     * @param path  the znode's path
     * @param field the field's name
     * @param text  the text
     * @return the value
     * @throws MalformedZnodeException when it is not such a number
     */
    static long parseDecimalLong(final String path, final String field, final String text)
        throws MalformedZnodeException {
        if (text.isEmpty() || text.length() > 20 || !text.matches("-?[0-9]+")) {
            throw new MalformedZnodeException(path, field, "value=\"" + abbreviate(text) + "\" is not a decimal integer");
        }
        try {
            return Long.parseLong(text);
        } catch (final NumberFormatException e) {
            throw new MalformedZnodeException(path, field, "value=\"" + text + "\" is out of range for a long", e);
        }
    }

    /**
     * Reads {@code {"topic":"t","partition":0}} as used by the notification and admin payloads.
     *
     * @param path  the znode's path
     * @param field the JSON path of the element
     * @param node  the element
     * @return the partition (topic validated with Kafka's rules)
     * @throws MalformedZnodeException when fields are missing, mistyped, or the topic or partition is illegal
     */
    static TopicPartition topicPartition(final String path, final String field, final JsonNode node)
        throws MalformedZnodeException {
        final ObjectNode obj = asObject(path, field, node);
        final String topic = asString(path, field + ".topic", required(path, obj, "topic"));
        final int partition = asInt(path, field + ".partition", required(path, obj, "partition"), 0, Integer.MAX_VALUE);
        try {
            return new TopicPartition(topic, partition);
        } catch (final IllegalArgumentException e) {
            throw new MalformedZnodeException(path, field + ".topic", e.getMessage(), e);
        }
    }

    /**
     * Writes a list of partitions as {@code [{"topic":"t","partition":0},...]}.
     *
     * @param partitions the partitions, in the order to write
     * @return the array
     */
    static ArrayNode topicPartitionArray(final Iterable<TopicPartition> partitions) {
        final ArrayNode array = JsonNodeFactory.instance.arrayNode();
        for (final TopicPartition tp : partitions) {
            array.addObject().put("topic", tp.topic()).put("partition", tp.partition());
        }
        return array;
    }

    /**
     * Writes broker ids as a JSON array.
     *
     * @param ids the ids in order
     * @return the array
     */
    static ArrayNode intArray(final List<Integer> ids) {
        final ArrayNode array = JsonNodeFactory.instance.arrayNode(ids.size());
        ids.forEach(array::add);
        return array;
    }

    /** Orders partitions by topic, then partition number: the order every writer here uses. */
    static final java.util.Comparator<TopicPartition> PARTITION_ORDER =
        java.util.Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    /**
     * Reads {@code {"version":1,"partitions":[{"topic":"t","partition":0},...]}}, the shape shared by the ISR change
     * notification and the preferred replica election request; repeated partitions collapse, as in Kafka.
     *
     * @param path the znode's path
     * @param json the payload
     * @return the partitions, sorted
     * @throws MalformedZnodeException when the payload does not have that shape
     */
    static java.util.SortedSet<TopicPartition> partitionSet(final String path, final byte[] json)
        throws MalformedZnodeException {
        final ObjectNode obj = parseObject(path, json);
        version(path, obj, 1, Integer.MAX_VALUE);
        final ArrayNode array = asArray(path, "partitions", required(path, obj, "partitions"), MAX_ENTRIES);
        final java.util.SortedSet<TopicPartition> result = new java.util.TreeSet<>(PARTITION_ORDER);
        for (int i = 0; i < array.size(); i++) {
            result.add(topicPartition(path, "partitions[" + i + "]", array.get(i)));
        }
        return java.util.Collections.unmodifiableSortedSet(result);
    }

    /**
     * Writes {@code {"version":1,"partitions":[...]}} with the partitions sorted.
     *
     * @param partitions the partitions
     * @return compact UTF-8 JSON
     */
    static byte[] writePartitionSet(final java.util.Collection<TopicPartition> partitions) {
        final List<TopicPartition> sorted = new ArrayList<>(partitions);
        sorted.sort(PARTITION_ORDER);
        final ObjectNode obj = newObject().put("version", 1);
        obj.set("partitions", topicPartitionArray(sorted));
        return write(obj);
    }

    private static String describe(final JsonNode node) {
        return node.getNodeType() + " " + abbreviate(node.toString());
    }

    private static String abbreviate(final String text) {
        return text.length() <= 64 ? text : text.substring(0, 64) + "...";
    }
}
