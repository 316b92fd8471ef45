package io.seglog.storage;

/**
 * Kafka's {@code cleanup.policy}. With {@code delete}, retention by time and size deletes old segments. With
 * {@code compact}, retention by time and size does not delete (Kafka's rule) and a {@link LogManager} with
 * {@code log.cleaner.enable} compacts the log ({@code io.seglog.storage.cleaner}). Offset gaps between batches
 * (what compaction leaves) are legal under every policy: a topic switched from compact to delete keeps them.
 */
public enum CleanupPolicy {
    /** Retention deletes old segments. */
    DELETE("delete", false, true),
    /** Compacted by the log cleaner; retention does not delete. */
    COMPACT("compact", true, false),
    /** Both: compacted, and retention deletes. */
    COMPACT_DELETE("compact,delete", true, true);

    private final String kafkaName;
    private final boolean compact;
    private final boolean delete;

    CleanupPolicy(final String kafkaName, final boolean compact, final boolean delete) {
        this.kafkaName = kafkaName;
        this.compact = compact;
        this.delete = delete;
    }

    /**
     * The value as Kafka writes it.
     *
     * @return {@code delete}, {@code compact} or {@code compact,delete}
     */
    public String kafkaName() {
        return kafkaName;
    }

    /**
     * Whether the log may be compacted, so offset gaps between batches are legal.
     *
     * @return true for {@code compact} and {@code compact,delete}
     */
    public boolean compact() {
        return compact;
    }

    /**
     * Whether retention by time and size deletes old segments.
     *
     * @return true for {@code delete} and {@code compact,delete}
     */
    public boolean delete() {
        return delete;
    }

    /**
     * Parses Kafka's value: a comma-separated list of {@code delete} and {@code compact}, in any order,
     * ignoring case and spaces.
     *
     * @param value the configured value
     * @return the policy
     * @throws IllegalArgumentException naming the key and value when it holds anything else or nothing
     */
    public static CleanupPolicy fromKafkaName(final String value) {
        boolean compact = false;
        boolean delete = false;
        for (final String part : value.split(",", -1)) {
            final String name = part.trim();
            if (name.equalsIgnoreCase("compact")) {
                compact = true;
            } else if (name.equalsIgnoreCase("delete")) {
                delete = true;
            } else {
                throw new IllegalArgumentException(LogConfig.CLEANUP_POLICY_CONFIG + "=" + value
                    + " must be a list of delete and compact");
            }
        }
        return compact ? (delete ? COMPACT_DELETE : COMPACT) : DELETE;
    }
}
