package io.seglog.replication.txn;

import io.seglog.replication.records.SchemaReader;
import io.seglog.replication.records.SchemaWriter;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The records of {@code __transaction_state} in Kafka's schemas ({@code TransactionLogKey}, {@code TransactionLogValue}
 * and {@code TransactionLog} in Kafka 4.4), so that Kafka's classes and tools read what a Seglog transaction
 * coordinator writes and the other way round. A key is an int16 version (0) then the transactional id (int16-length
 * string). A value is an int16 version then the fields: version 0 (while the cluster's transactions version is 0) in
 * the classic encoding, version 1 (from transactions version 1 on, KIP-890) flexible, with the previous and next
 * producer ids, the client's transactions version and the next producer epoch as tagged fields (written only when not
 * their default, as Kafka's generated classes do). A null value (tombstone) removes an expired transactional id.
 *
 * <p>Decoding trusts no length ({@link SchemaReader}); a malformed record is refused with a
 * {@link MalformedTransactionRecordException} naming the field and the position.
 */
final class TransactionRecords {
    /** The key's version: its only one. */
    static final short KEY_VERSION = 0;
    /** The classic value version, written while the cluster's {@code transaction.version} is 0. */
    public static final short VALUE_VERSION_0 = 0;
    /** The flexible value version, written from {@code transaction.version} 1 on (KIP-890). */
    public static final short VALUE_VERSION_1 = 1;

    private static final int TAG_PREVIOUS_PRODUCER_ID = 0;
    private static final int TAG_NEXT_PRODUCER_ID = 1;
    private static final int TAG_CLIENT_TRANSACTION_VERSION = 2;
    private static final int TAG_NEXT_PRODUCER_EPOCH = 3;

    private TransactionRecords() {
    }

    /**
     * A transactional id's state as the coordinator stores it.
     *
     * @param producerId               the producer id in use
     * @param previousProducerId       the producer id of the last committed transaction, or -1 (version 1 only)
     * @param nextProducerId           the producer id last sent to the producer, or -1 (version 1 only)
     * @param producerEpoch            its epoch
     * @param nextProducerEpoch        the epoch of {@code nextProducerId}, or -1 (version 1 only)
     * @param timeoutMs                {@code transaction.timeout.ms}
     * @param state                    the state
     * @param partitions               the partitions in the transaction, partition ids by topic (empty for Empty,
     *                                 which is stored as a null list)
     * @param lastUpdateTimestampMs    when it last changed
     * @param startTimestampMs         when the transaction began, or -1
     * @param clientTransactionVersion the client's transactions version (version 1 only; 0 otherwise)
     */
    public record TransactionValue(long producerId, long previousProducerId, long nextProducerId, short producerEpoch,
                                   short nextProducerEpoch, int timeoutMs, TransactionState state,
                                   Map<String, int[]> partitions, long lastUpdateTimestampMs, long startTimestampMs,
                                   short clientTransactionVersion) {
        /**
         * Checks the fields and copies the partitions, sorted by topic.
         *
         * @param producerId the producer id in use
         * @param previousProducerId the producer id of the last committed transaction, or -1
         * @param nextProducerId the producer id last sent to the producer, or -1
         * @param producerEpoch its epoch
         * @param nextProducerEpoch the epoch of {@code nextProducerId}, or -1
         * @param timeoutMs {@code transaction.timeout.ms}
         * @param state the state
         * @param partitions the partitions in the transaction
         * @param lastUpdateTimestampMs when it last changed
         * @param startTimestampMs when the transaction began, or -1
         * @param clientTransactionVersion the client's transactions version
         */
        public TransactionValue {
            Objects.requireNonNull(state, "state");
            final Map<String, int[]> copy = new TreeMap<>();
            partitions.forEach((topic, ids) -> copy.put(Objects.requireNonNull(topic, "topic"), ids.clone()));
            partitions = java.util.Collections.unmodifiableMap(copy);
        }

        @Override
        public boolean equals(final Object o) {
            if (!(o instanceof TransactionValue v)) {
                return false;
            }
            if (partitions.size() != v.partitions.size()) {
                return false;
            }
            for (final Map.Entry<String, int[]> e : partitions.entrySet()) {
                if (!Arrays.equals(e.getValue(), v.partitions.get(e.getKey()))) {
                    return false;
                }
            }
            return producerId == v.producerId && previousProducerId == v.previousProducerId
                && nextProducerId == v.nextProducerId && producerEpoch == v.producerEpoch
                && nextProducerEpoch == v.nextProducerEpoch && timeoutMs == v.timeoutMs && state == v.state
                && lastUpdateTimestampMs == v.lastUpdateTimestampMs && startTimestampMs == v.startTimestampMs
                && clientTransactionVersion == v.clientTransactionVersion;
        }

        @Override
        public int hashCode() {
            return Objects.hash(producerId, producerEpoch, state, lastUpdateTimestampMs);
        }

        @Override
        public String toString() {
            final StringBuilder parts = new StringBuilder();
            partitions.forEach((t, ids) -> parts.append(t).append(Arrays.toString(ids)));
            return "TransactionValue[producerId=" + producerId + ", previousProducerId=" + previousProducerId
                + ", nextProducerId=" + nextProducerId + ", producerEpoch=" + producerEpoch + ", nextProducerEpoch="
                + nextProducerEpoch + ", timeoutMs=" + timeoutMs + ", state=" + state + ", partitions=" + parts
                + ", lastUpdateTimestampMs=" + lastUpdateTimestampMs + ", startTimestampMs=" + startTimestampMs
                + ", clientTransactionVersion=" + clientTransactionVersion + "]";
        }
    }

    /**
     * A key.
     *
     * @param transactionalId the transactional id
     * @return the key's bytes
     */
    public static byte[] encodeKey(final String transactionalId) {
        final SchemaWriter w = new SchemaWriter();
        w.int16(KEY_VERSION);
        w.string(Objects.requireNonNull(transactionalId, "transactionalId"), false);
        return w.bytes();
    }

    /**
     * Reads a key.
     *
     * @param key the key's bytes, from its position (not moved)
     * @return the transactional id
     * @throws MalformedTransactionRecordException if the key is not Kafka's
     */
    public static String decodeKey(final ByteBuffer key) {
        final SchemaReader r = new SchemaReader(key, "transaction key", MalformedTransactionRecordException::new);
        final short version = r.int16("version");
        if (version != KEY_VERSION) {
            throw r.malformed("version", "version " + version + " is not " + KEY_VERSION);
        }
        final String id = r.string("transactionalId", false, false);
        r.end();
        return id;
    }

    /**
     * A value.
     *
     * @param value   the state
     * @param version {@link #VALUE_VERSION_0} or {@link #VALUE_VERSION_1}
     * @return the value's bytes
     * @throws IllegalArgumentException for another version, an Empty state with partitions, or (version 0) a field
     *     only version 1 has
     */
    public static byte[] encodeValue(final TransactionValue value, final short version) {
        if (version != VALUE_VERSION_0 && version != VALUE_VERSION_1) {
            throw new IllegalArgumentException("value version " + version + " is not 0 or 1");
        }
        if (value.state() == TransactionState.EMPTY && !value.partitions().isEmpty()) {
            throw new IllegalArgumentException("an Empty transaction has no partitions: " + value);
        }
        final boolean flexible = version == VALUE_VERSION_1;
        if (!flexible && (value.previousProducerId() != -1 || value.nextProducerId() != -1
            || value.nextProducerEpoch() != -1 || value.clientTransactionVersion() != 0)) {
            throw new IllegalArgumentException("value version 0 cannot hold the previous or next producer or the"
                + " client's transactions version: " + value);
        }
        final SchemaWriter w = new SchemaWriter();
        w.int16(version);
        w.int64(value.producerId());
        w.int16(value.producerEpoch());
        w.int32(value.timeoutMs());
        w.int8(value.state().id());
        if (value.state() == TransactionState.EMPTY) {
            if (flexible) {
                w.uvarint(0);
            } else {
                w.int32(-1);
            }
        } else {
            if (flexible) {
                w.uvarint(value.partitions().size() + 1);
            } else {
                w.int32(value.partitions().size());
            }
            for (final Map.Entry<String, int[]> e : value.partitions().entrySet()) {
                w.string(e.getKey(), flexible);
                if (flexible) {
                    w.uvarint(e.getValue().length + 1);
                } else {
                    w.int32(e.getValue().length);
                }
                for (final int id : e.getValue()) {
                    w.int32(id);
                }
                if (flexible) {
                    w.uvarint(0);
                }
            }
        }
        w.int64(value.lastUpdateTimestampMs());
        w.int64(value.startTimestampMs());
        if (flexible) {
            writeTags(w, value);
        }
        return w.bytes();
    }

    private static void writeTags(final SchemaWriter w, final TransactionValue value) {
        int tags = 0;
        tags += value.previousProducerId() != -1 ? 1 : 0;
        tags += value.nextProducerId() != -1 ? 1 : 0;
        tags += value.clientTransactionVersion() != 0 ? 1 : 0;
        tags += value.nextProducerEpoch() != -1 ? 1 : 0;
        w.uvarint(tags);
        if (value.previousProducerId() != -1) {
            w.uvarint(TAG_PREVIOUS_PRODUCER_ID);
            w.uvarint(Long.BYTES);
            w.int64(value.previousProducerId());
        }
        if (value.nextProducerId() != -1) {
            w.uvarint(TAG_NEXT_PRODUCER_ID);
            w.uvarint(Long.BYTES);
            w.int64(value.nextProducerId());
        }
        if (value.clientTransactionVersion() != 0) {
            w.uvarint(TAG_CLIENT_TRANSACTION_VERSION);
            w.uvarint(Short.BYTES);
            w.int16(value.clientTransactionVersion());
        }
        if (value.nextProducerEpoch() != -1) {
            w.uvarint(TAG_NEXT_PRODUCER_EPOCH);
            w.uvarint(Short.BYTES);
            w.int16(value.nextProducerEpoch());
        }
    }

    /**
     * Reads a value of version 0 or 1 (a tagged field this class does not know is skipped, as Kafka's classes skip
     * it).
     *
     * @param value the value's bytes, from its position (not moved)
     * @return the state
     * @throws MalformedTransactionRecordException if the value is not Kafka's
     */
    public static TransactionValue decodeValue(final ByteBuffer value) {
        final SchemaReader r = new SchemaReader(value, "transaction value", MalformedTransactionRecordException::new);
        final short version = r.int16("version");
        if (version != VALUE_VERSION_0 && version != VALUE_VERSION_1) {
            throw r.malformed("version", "version " + version + " is not 0 or 1");
        }
        final boolean flexible = version == VALUE_VERSION_1;
        final long producerId = r.int64("producerId");
        final short producerEpoch = r.int16("producerEpoch");
        final int timeoutMs = r.int32("transactionTimeoutMs");
        final byte status = r.int8("transactionStatus");
        final TransactionState state = TransactionState.fromId(status);
        if (state == null) {
            throw r.malformed("transactionStatus", "status " + status + " is not one of 0-7");
        }
        final Map<String, int[]> partitions = readPartitions(r, flexible);
        final long lastUpdate = r.int64("transactionLastUpdateTimestampMs");
        final long start = r.int64("transactionStartTimestampMs");
        final long[] tagged = flexible ? readTags(r) : new long[] {-1, -1, 0, -1};
        r.end();
        return new TransactionValue(producerId, tagged[TAG_PREVIOUS_PRODUCER_ID], tagged[TAG_NEXT_PRODUCER_ID],
            producerEpoch, (short) tagged[TAG_NEXT_PRODUCER_EPOCH], timeoutMs, state, partitions, lastUpdate, start,
            (short) tagged[TAG_CLIENT_TRANSACTION_VERSION]);
    }

    /** The partitions of a value: a nullable array of (topic, partition ids). */
    private static Map<String, int[]> readPartitions(final SchemaReader r, final boolean flexible) {
        final Map<String, int[]> partitions = new TreeMap<>();
        final int topics = flexible ? r.uvarint("transactionPartitions") - 1 : r.int32("transactionPartitions");
        if (topics < -1 || topics > r.remaining()) {
            throw r.malformed("transactionPartitions", topics + " topics cannot fit in " + r.remaining() + " bytes");
        }
        for (int t = 0; t < topics; t++) {
            final String topic = r.string("topic", flexible, false);
            final int count = flexible ? r.compactCount("partitionIds") : r.int32Count("partitionIds");
            if (count > r.remaining() / Integer.BYTES) {
                throw r.malformed("partitionIds", count + " ids cannot fit in " + r.remaining() + " bytes");
            }
            final int[] ids = new int[count];
            for (int i = 0; i < count; i++) {
                ids[i] = r.int32("partitionId");
            }
            if (flexible) {
                r.skipTaggedFields("partitions");
            }
            if (partitions.put(topic, ids) != null) {
                throw r.malformed("topic", "topic " + topic + " listed twice");
            }
        }
        return partitions;
    }

    /** The known tagged fields of a version 1 value, by tag; defaults for those absent, unknown ones skipped. */
    private static long[] readTags(final SchemaReader r) {
        final long[] tagged = {-1, -1, 0, -1};
        final int tags = r.count("taggedFields");
        for (int i = 0; i < tags; i++) {
            final int tag = r.uvarint("tag");
            final int size = r.size("tagSize");
            final int expected = tag == TAG_PREVIOUS_PRODUCER_ID || tag == TAG_NEXT_PRODUCER_ID ? Long.BYTES
                : tag == TAG_CLIENT_TRANSACTION_VERSION || tag == TAG_NEXT_PRODUCER_EPOCH ? Short.BYTES : -1;
            if (expected < 0) {
                r.skip(size, "taggedField");
                continue;
            }
            if (size != expected) {
                throw r.malformed("tag " + tag, "a size of " + size + ", not " + expected);
            }
            tagged[tag] = expected == Long.BYTES ? r.int64("tag " + tag) : r.int16("tag " + tag);
        }
        return tagged;
    }

    /**
     * The {@code __transaction_state} partition that owns a transactional id: Kafka's
     * {@code Utils.abs(transactionalId.hashCode()) % transaction.state.log.num.partitions}.
     *
     * @param transactionalId the transactional id
     * @param partitions      {@code transaction.state.log.num.partitions}
     * @return the partition
     */
    public static int partitionFor(final String transactionalId, final int partitions) {
        final int hash = transactionalId.hashCode();
        // Utils.abs: Math.abs, with Integer.MIN_VALUE taken as 0 (not a mask of the sign bit).
        return (hash == Integer.MIN_VALUE ? 0 : Math.abs(hash)) % partitions;
    }

    /**
     * The partitions of a value as a list of "topic-partition" names (messages).
     *
     * @param value the value
     * @return the names
     */
    static List<String> partitionNames(final TransactionValue value) {
        final List<String> names = new ArrayList<>();
        value.partitions().forEach((t, ids) -> {
            for (final int id : ids) {
                names.add(t + "-" + id);
            }
        });
        return names;
    }
}
