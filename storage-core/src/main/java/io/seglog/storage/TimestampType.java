package io.seglog.storage;

/** Which timestamp the log keeps in a batch: the producer's or the broker's at append. */
public enum TimestampType {
    /** Records keep the timestamps their producer set (Kafka's {@code CreateTime}). */
    CREATE_TIME("CreateTime"),
    /** The leader stamps its clock into each batch on append (Kafka's {@code LogAppendTime}). */
    LOG_APPEND_TIME("LogAppendTime");

    private final String kafkaName;

    TimestampType(final String kafkaName) {
        this.kafkaName = kafkaName;
    }

    /**
     * The value of {@code message.timestamp.type} for this type.
     *
     * @return {@code CreateTime} or {@code LogAppendTime}
     */
    public String kafkaName() {
        return kafkaName;
    }

    /**
     * Parses Kafka's name for a timestamp type.
     *
     * @param name {@code CreateTime} or {@code LogAppendTime}
     * @return the type
     * @throws IllegalArgumentException naming the key and the value when the name is neither
     */
    public static TimestampType fromKafkaName(final String name) {
        for (final TimestampType type : values()) {
            if (type.kafkaName.equals(name)) {
                return type;
            }
        }
        throw new IllegalArgumentException(
            LogConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG + "=" + name + " must be CreateTime or LogAppendTime");
    }
}
