package io.seglog.replication.group;

import io.seglog.replication.records.SchemaReader;
import io.seglog.replication.records.SchemaWriter;
import io.seglog.storage.TopicId;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The records of {@code __consumer_offsets} in Kafka's schemas, so that Kafka's own tools and classes read what a
 * Seglog group coordinator writes and the other way round ({@code GroupCoordinatorRecordSerde} in Kafka 4.4). A key
 * is an int16 record type then the key's fields at version 0: type 1 an offset commit (group, topic, partition), type 2
 * a group's metadata (group); type 0 is the old offset-commit key of the same shape. A value is an int16 version then
 * the value's fields; a null value (tombstone) deletes the key. Written: offset commits at value version 4 (Kafka
 * 4.4's; version 1 when an expire timestamp is given), group metadata at version 3 (Kafka 4.4's). Read: every
 * version Kafka ever wrote (0-4 for both values).
 *
 * <p>Other record types (Kafka's KIP-848 consumer groups, share and streams groups) are answered as
 * {@link OtherKey}, for a loader to skip.
 *
 * <p>Decoding trusts no length: every string, byte array and array count is checked against the bytes left before
 * anything is allocated, and a malformed record is refused with a {@link MalformedGroupRecordException} naming the
 * field and the position.
 */
public final class GroupRecords {
    /** The record type of the old offset-commit key (same fields as type 1). */
    static final short LEGACY_OFFSET_COMMIT = 0;
    /** The record type of an offset commit. */
    static final short OFFSET_COMMIT = 1;
    /** The record type of a group's metadata. */
    static final short GROUP_METADATA = 2;
    /** The offset-commit value version written (Kafka 4.4's; flexible, with a tagged topic id). */
    static final short OFFSET_COMMIT_VALUE_VERSION = 4;
    /** The offset-commit value version written when an expire timestamp is given (the only one that has it). */
    static final short OFFSET_COMMIT_VALUE_EXPIRING_VERSION = 1;
    /** The group-metadata value version written (Kafka 4.4's). */
    static final short GROUP_METADATA_VALUE_VERSION = 3;

    private static final int TOPIC_ID_TAG = 0;

    private GroupRecords() {
    }

    /** A record's key. */
    public sealed interface Key permits OffsetKey, GroupKey, OtherKey {
        /**
         * The group the record belongs to.
         *
         * @return the group id, or null for a record type this class does not read
         */
        String group();
    }

    /**
     * An offset commit's key.
     *
     * @param group     the group id
     * @param topic     the topic
     * @param partition the partition
     */
    public record OffsetKey(String group, String topic, int partition) implements Key {
        /**
         * Checks the fields.
         *
         * @param group the group id
         * @param topic the topic
         * @param partition the partition
         */
        public OffsetKey {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(topic, "topic");
        }
    }

    /**
     * A group's metadata key.
     *
     * @param group the group id
     */
    public record GroupKey(String group) implements Key {
        /**
         * Checks the field.
         *
         * @param group the group id
         */
        public GroupKey {
            Objects.requireNonNull(group, "group");
        }
    }

    /**
     * A key of a record type this class does not read (another kind of group); a loader skips it.
     *
     * @param type the record type
     */
    record OtherKey(short type) implements Key {
        @Override
        public String group() {
            return null;
        }
    }

    /**
     * A committed offset.
     *
     * @param offset          the offset the consumer will read next
     * @param leaderEpoch     the leader epoch of the last record consumed, or -1
     * @param metadata        the client's metadata string (never null; Kafka stores "" for none)
     * @param commitTimestamp when the commit was written, ms since the epoch
     * @param expireTimestamp when it expires (only old clients give one), or -1
     * @param topicId         the topic's id, or null when not known (the zero id is read and written as null)
     */
    record OffsetValue(long offset, int leaderEpoch, String metadata, long commitTimestamp,
                       long expireTimestamp, TopicId topicId) {
        /**
         * Checks the fields.
         *
         * @param offset the offset the consumer will read next
         * @param leaderEpoch the leader epoch of the last record consumed, or -1
         * @param metadata the client's metadata string (never null; Kafka stores "" for none)
         * @param commitTimestamp when the commit was written, ms since the epoch
         * @param expireTimestamp when it expires (only old clients give one), or -1
         * @param topicId the topic's id, or null when not known (the zero id is read and written as null)
         */
        public OffsetValue {
            Objects.requireNonNull(metadata, "metadata");
        }
    }

    /**
     * A classic group's state as the coordinator stores it after each rebalance.
     *
     * @param protocolType          the protocol type ("consumer", "connect", ...)
     * @param generation            the generation
     * @param protocol              the chosen protocol (the assignor's name), or null for an empty group
     * @param leader                the leader member id, or null
     * @param currentStateTimestamp when the group last changed state, ms since the epoch, or -1
     * @param members               the members
     */
    record GroupValue(String protocolType, int generation, String protocol, String leader,
                      long currentStateTimestamp, List<MemberValue> members) {
        /**
         * Checks and copies the fields.
         *
         * @param protocolType the protocol type ("consumer", "connect", ...)
         * @param generation the generation
         * @param protocol the chosen protocol (the assignor's name), or null for an empty group
         * @param leader the leader member id, or null
         * @param currentStateTimestamp when the group last changed state, ms since the epoch, or -1
         * @param members the members
         */
        public GroupValue {
            Objects.requireNonNull(protocolType, "protocolType");
            members = List.copyOf(members);
        }
    }

    /**
     * A member as a group's metadata stores it.
     *
     * @param memberId         the member id
     * @param groupInstanceId  the static member's instance id, or null
     * @param clientId         the client id
     * @param clientHost       the client's host
     * @param rebalanceTimeout the rebalance timeout, ms, or -1
     * @param sessionTimeout   the session timeout, ms
     * @param subscription     the chosen protocol's metadata (the subscription), not copied
     * @param assignment       the member's assignment, not copied
     */
    record MemberValue(String memberId, String groupInstanceId, String clientId, String clientHost,
                       int rebalanceTimeout, int sessionTimeout, byte[] subscription, byte[] assignment) {
        /**
         * Checks the fields.
         *
         * @param memberId the member id
         * @param groupInstanceId the static member's instance id, or null
         * @param clientId the client id
         * @param clientHost the client's host
         * @param rebalanceTimeout the rebalance timeout, ms, or -1
         * @param sessionTimeout the session timeout, ms
         * @param subscription the chosen protocol's metadata (the subscription), not copied
         * @param assignment the member's assignment, not copied
         */
        public MemberValue {
            Objects.requireNonNull(memberId, "memberId");
            Objects.requireNonNull(clientId, "clientId");
            Objects.requireNonNull(clientHost, "clientHost");
            Objects.requireNonNull(subscription, "subscription");
            Objects.requireNonNull(assignment, "assignment");
        }

        @Override
        public boolean equals(final Object o) {
            return o instanceof MemberValue m && memberId.equals(m.memberId)
                && Objects.equals(groupInstanceId, m.groupInstanceId) && clientId.equals(m.clientId)
                && clientHost.equals(m.clientHost) && rebalanceTimeout == m.rebalanceTimeout
                && sessionTimeout == m.sessionTimeout && Arrays.equals(subscription, m.subscription)
                && Arrays.equals(assignment, m.assignment);
        }

        @Override
        public int hashCode() {
            return Objects.hash(memberId, groupInstanceId, clientId, clientHost, rebalanceTimeout, sessionTimeout,
                Arrays.hashCode(subscription), Arrays.hashCode(assignment));
        }

        @Override
        public String toString() {
            return "MemberValue[memberId=" + memberId + ", groupInstanceId=" + groupInstanceId + ", clientId="
                + clientId + ", clientHost=" + clientHost + ", rebalanceTimeout=" + rebalanceTimeout
                + ", sessionTimeout=" + sessionTimeout + ", subscription=" + subscription.length + " bytes, assignment="
                + assignment.length + " bytes]";
        }
    }

    // ------------------------------------------------------------------------------------------------- encode

    /**
     * Encodes an offset commit's key.
     *
     * @param key the key
     * @return the bytes
     */
    static byte[] encode(final OffsetKey key) {
        final SchemaWriter w = new SchemaWriter();
        w.int16(OFFSET_COMMIT);
        w.string(key.group(), false);
        w.string(key.topic(), false);
        w.int32(key.partition());
        return w.bytes();
    }

    /**
     * Encodes a group's metadata key.
     *
     * @param key the key
     * @return the bytes
     */
    static byte[] encode(final GroupKey key) {
        final SchemaWriter w = new SchemaWriter();
        w.int16(GROUP_METADATA);
        w.string(key.group(), false);
        return w.bytes();
    }

    /**
     * Encodes a committed offset: version 4, or version 1 when it has an expire timestamp (as Kafka 4.4 chooses;
     * version 1 has no leader epoch, which is left out as Kafka leaves it out).
     *
     * @param value the value
     * @return the bytes
     */
    static byte[] encode(final OffsetValue value) {
        final short version = value.expireTimestamp() >= 0 ? OFFSET_COMMIT_VALUE_EXPIRING_VERSION
            : OFFSET_COMMIT_VALUE_VERSION;
        final boolean flexible = version >= 4;
        final SchemaWriter w = new SchemaWriter();
        w.int16(version);
        w.int64(value.offset());
        if (version >= 3) {
            w.int32(value.leaderEpoch());
        }
        w.string(value.metadata(), flexible);
        w.int64(value.commitTimestamp());
        if (version == 1) {
            w.int64(value.expireTimestamp());
        }
        if (flexible) {
            if (value.topicId() == null || value.topicId().equals(TopicId.ZERO)) {
                // The zero id is Kafka's default, which it leaves out: no tagged field.
                w.uvarint(0);
            } else {
                w.uvarint(1);
                w.uvarint(TOPIC_ID_TAG);
                w.uvarint(TopicId.LENGTH);
                w.int64(value.topicId().mostSignificantBits());
                w.int64(value.topicId().leastSignificantBits());
            }
        }
        return w.bytes();
    }

    /**
     * Encodes a group's metadata at version 3 (Kafka 4.4's).
     *
     * @param value the value
     * @return the bytes
     */
    static byte[] encode(final GroupValue value) {
        final SchemaWriter w = new SchemaWriter();
        w.int16(GROUP_METADATA_VALUE_VERSION);
        w.string(value.protocolType(), false);
        w.int32(value.generation());
        w.string(value.protocol(), false);
        w.string(value.leader(), false);
        w.int64(value.currentStateTimestamp());
        w.int32(value.members().size());
        for (final MemberValue m : value.members()) {
            w.string(m.memberId(), false);
            w.string(m.groupInstanceId(), false);
            w.string(m.clientId(), false);
            w.string(m.clientHost(), false);
            w.int32(m.rebalanceTimeout());
            w.int32(m.sessionTimeout());
            w.bytes(m.subscription(), false);
            w.bytes(m.assignment(), false);
        }
        return w.bytes();
    }

    // ------------------------------------------------------------------------------------------------- decode

    /**
     * Decodes a key.
     *
     * @param key the key bytes, from its position to its limit (not moved)
     * @return the key; an {@link OtherKey} for a record type this class does not read
     * @throws MalformedGroupRecordException if the bytes are not a key of a known type, or bytes are left over
     */
    public static Key decodeKey(final ByteBuffer key) {
        final SchemaReader r = new SchemaReader(key, "key", MalformedGroupRecordException::new);
        final short type = r.int16("type");
        final Key out = switch (type) {
            case LEGACY_OFFSET_COMMIT, OFFSET_COMMIT ->
                new OffsetKey(r.string("group", false, false), r.string("topic", false, false), r.int32("partition"));
            case GROUP_METADATA -> new GroupKey(r.string("group", false, false));
            default -> {
                if (type < 0) {
                    throw r.malformed("type", "a negative record type " + type);
                }
                yield new OtherKey(type);
            }
        };
        if (!(out instanceof OtherKey)) {
            r.end();
        }
        return out;
    }

    /**
     * Decodes a committed offset, any version Kafka wrote (0-4).
     *
     * @param value the value bytes, from its position to its limit (not moved)
     * @return the value
     * @throws MalformedGroupRecordException if the bytes are not a committed offset, or bytes are left over
     */
    static OffsetValue decodeOffsetValue(final ByteBuffer value) {
        final SchemaReader r = new SchemaReader(value, "offset commit value", MalformedGroupRecordException::new);
        final short version = r.int16("version");
        if (version < 0 || version > OFFSET_COMMIT_VALUE_VERSION) {
            throw r.malformed("version", "version " + version + " is not one of 0-" + OFFSET_COMMIT_VALUE_VERSION);
        }
        final boolean flexible = version >= 4;
        final long offset = r.int64("offset");
        final int leaderEpoch = version >= 3 ? r.int32("leaderEpoch") : -1;
        final String metadata = r.string("metadata", flexible, false);
        final long commitTimestamp = r.int64("commitTimestamp");
        final long expireTimestamp = version == 1 ? r.int64("expireTimestamp") : -1;
        TopicId topicId = null;
        if (flexible) {
            final int tags = r.count("taggedFields");
            for (int i = 0; i < tags; i++) {
                final int tag = r.uvarint("tag");
                final int size = r.size("tagSize");
                if (tag == TOPIC_ID_TAG) {
                    if (size != TopicId.LENGTH) {
                        throw r.malformed("topicId", "a topic id of " + size + " bytes, not " + TopicId.LENGTH);
                    }
                    final TopicId id = new TopicId(r.int64("topicId"), r.int64("topicId"));
                    topicId = id.equals(TopicId.ZERO) ? null : id;
                } else {
                    r.skip(size, "unknown tagged field " + tag);
                }
            }
        }
        r.end();
        return new OffsetValue(offset, leaderEpoch, metadata, commitTimestamp, expireTimestamp, topicId);
    }

    /**
     * Decodes a group's metadata, any version Kafka wrote (0-4).
     *
     * @param value the value bytes, from its position to its limit (not moved)
     * @return the value
     * @throws MalformedGroupRecordException if the bytes are not a group's metadata, or bytes are left over
     */
    static GroupValue decodeGroupValue(final ByteBuffer value) {
        final SchemaReader r = new SchemaReader(value, "group metadata value", MalformedGroupRecordException::new);
        final short version = r.int16("version");
        if (version < 0 || version > 4) {
            throw r.malformed("version", "version " + version + " is not one of 0-4");
        }
        final boolean flexible = version >= 4;
        final String protocolType = r.string("protocolType", flexible, false);
        final int generation = r.int32("generation");
        final String protocol = r.string("protocol", flexible, true);
        final String leader = r.string("leader", flexible, true);
        final long timestamp = version >= 2 ? r.int64("currentStateTimestamp") : -1;
        final int count = flexible ? r.compactCount("members") : r.int32Count("members");
        // Each member takes at least 4 strings and 2 byte arrays' lengths plus a timeout: never more members than
        // bytes can hold, so the list is sized by what is there, not by what the count says.
        final List<MemberValue> members = new ArrayList<>(Math.min(count, r.remaining() / 8));
        for (int i = 0; i < count; i++) {
            final String memberId = r.string("members[" + i + "].memberId", flexible, false);
            final String instanceId = version >= 3 ? r.string("members[" + i + "].groupInstanceId", flexible, true)
                : null;
            final String clientId = r.string("members[" + i + "].clientId", flexible, false);
            final String clientHost = r.string("members[" + i + "].clientHost", flexible, false);
            final int rebalanceTimeout = version >= 1 ? r.int32("members[" + i + "].rebalanceTimeout") : -1;
            final int sessionTimeout = r.int32("members[" + i + "].sessionTimeout");
            final byte[] subscription = r.bytes("members[" + i + "].subscription", flexible);
            final byte[] assignment = r.bytes("members[" + i + "].assignment", flexible);
            if (flexible) {
                r.skipTaggedFields("members[" + i + "]");
            }
            members.add(new MemberValue(memberId, instanceId, clientId, clientHost, rebalanceTimeout, sessionTimeout,
                subscription, assignment));
        }
        if (flexible) {
            r.skipTaggedFields("group");
        }
        r.end();
        return new GroupValue(protocolType, generation, protocol, leader, timestamp, members);
    }}
