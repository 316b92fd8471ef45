package io.seglog.replication.group;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * The topics a consumer group's members subscribe to, read from their JoinGroup metadata in the consumer protocol
 * (Kafka's {@code ConsumerProtocolSubscription}): as Kafka's {@code ClassicGroup.computeSubscribedTopics}, only the
 * version-0 prefix every version starts with (a version, then the topic names), so a future version is read too.
 * OffsetDelete and offset expiry ask it whether a group still consumes a topic.
 */
final class SubscribedTopics {
    /** The protocol type of kafka-clients' consumers. */
    static final String CONSUMER_PROTOCOL_TYPE = "consumer";

    private SubscribedTopics() {
    }

    /**
     * The topics a group's members subscribe to.
     *
     * @param group the group
     * @return the union of its members' topics; empty (unknown) when the group is not a consumer group, has no
     *         protocol yet, or a member's metadata is not in the consumer protocol
     */
    static Optional<Set<String>> of(final ClassicGroup group) {
        if (!CONSUMER_PROTOCOL_TYPE.equals(group.protocolType())) {
            return Optional.empty();
        }
        if (group.isEmpty()) {
            return Optional.of(Set.of());
        }
        if (group.protocolName() == null) {
            return Optional.empty();
        }
        final Set<String> topics = new HashSet<>();
        for (final GroupMember m : group.members()) {
            final byte[] metadata = m.metadata(group.protocolName());
            if (metadata == null || !read(ByteBuffer.wrap(metadata), topics)) {
                return Optional.empty();
            }
        }
        return Optional.of(topics);
    }

    /**
     * Whether a group consumes a topic (Kafka's {@code isSubscribedToTopic}): a consumer group whose members'
     * topics cannot be read is taken to consume every topic, any other kind of group none.
     *
     * @param group the group
     * @param topic the topic
     * @return whether its offsets must stay
     */
    static boolean isSubscribed(final ClassicGroup group, final String topic) {
        return of(group).map(t -> t.contains(topic)).orElse(CONSUMER_PROTOCOL_TYPE.equals(group.protocolType()));
    }

    /** Reads one subscription's topics into {@code into}; false when the bytes are not a subscription. */
    static boolean read(final ByteBuffer buffer, final Set<String> into) {
        try {
            final short version = buffer.getShort();
            if (version < 0) {
                return false;
            }
            final int count = buffer.getInt();
            // Each name takes at least its two length bytes: a count beyond that is damage, not a reason to loop.
            if (count < 0 || count > buffer.remaining() / 2) {
                return false;
            }
            for (int i = 0; i < count; i++) {
                final int length = buffer.getShort();
                if (length < 0 || length > buffer.remaining()) {
                    return false;
                }
                final ByteBuffer name = buffer.slice(buffer.position(), length);
                buffer.position(buffer.position() + length);
                into.add(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(name).toString());
            }
            return true;
        } catch (final BufferUnderflowException | CharacterCodingException e) {
            return false;
        }
    }
}
