package io.seglog.storage.config;

/**
 * The names of the topic-level keys that layers below the API print in their messages (the appender names the
 * timestamp bounds a batch broke; recovery names the corruption policy that would let a log open). The keys
 * themselves (type, default, range, documentation) are defined once, in {@code io.seglog.storage.LogConfig}'s table,
 * under these names; this class only lets the lower layers spell them without reaching up to the API package.
 */
public final class TopicKeyNames {
    /** Kafka's {@code message.timestamp.before.max.ms}. */
    public static final String MESSAGE_TIMESTAMP_BEFORE_MAX_MS = "message.timestamp.before.max.ms";
    /** Kafka's {@code message.timestamp.after.max.ms}. */
    public static final String MESSAGE_TIMESTAMP_AFTER_MAX_MS = "message.timestamp.after.max.ms";
    /** Seglog's {@code seglog.corruption.policy}. */
    public static final String CORRUPTION_POLICY = "seglog.corruption.policy";

    private TopicKeyNames() {
    }
}
