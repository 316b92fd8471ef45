package io.seglog.storage;

/**
 * What crash recovery does when it finds corruption that a crash cannot explain: an invalid batch with
 * valid batches after it, or one below the recovery point (data that was already durable). Seglog-specific
 * ({@value LogConfig#CORRUPTION_POLICY_CONFIG}); Kafka always truncates.
 */
public enum CorruptionPolicy {
    /** Refuse to open the partition with a {@link CorruptLogException}; a replica re-fetches it. */
    FAIL("fail"),
    /** Truncate the log at the first invalid batch (Kafka's behaviour) and report what was dropped. */
    TRUNCATE("truncate");

    private final String configName;

    CorruptionPolicy(final String configName) {
        this.configName = configName;
    }

    /**
     * The value as written in a configuration.
     *
     * @return {@code fail} or {@code truncate}
     */
    public String configName() {
        return configName;
    }

    /**
     * Parses a configuration value, ignoring case.
     *
     * @param name {@code fail} or {@code truncate}
     * @return the policy
     * @throws IllegalArgumentException naming the key and value otherwise
     */
    public static CorruptionPolicy fromConfigName(final String name) {
        for (final CorruptionPolicy policy : values()) {
            if (policy.configName.equalsIgnoreCase(name)) {
                return policy;
            }
        }
        throw new IllegalArgumentException(LogConfig.CORRUPTION_POLICY_CONFIG + "=" + name + " must be fail or truncate");
    }
}
