package io.seglog.replication.zk;

/**
 * A znode's payload is not what Kafka's ZooKeeper-mode layout says it should be: not JSON, a missing field, a
 * field of the wrong type, a negative broker id, a list that is too long, and so on. It is checked on purpose:
 * the data comes from outside (any ZooKeeper client can write it), so the caller must decide to log and skip it
 * rather than let one bad znode crash a controller or a broker.
 *
 * <p>Immutable and thread-safe.
 */
public final class MalformedZnodeException extends Exception {
    private static final long serialVersionUID = 1L;

    /** The value of {@link #field()} when the whole payload is at fault rather than one field. */
    static final String WHOLE_PAYLOAD = "<payload>";

    private final String path;
    private final String field;

    /**
     * Creates the exception.
     *
     * @param path   the znode's path (or a description of it when the caller did not say which znode it read)
     * @param field  the field at fault, as a JSON path such as {@code partitions.0[1]}, or {@link #WHOLE_PAYLOAD}
     * @param reason what is wrong, with the value found and the limit where there is one
     */
    MalformedZnodeException(final String path, final String field, final String reason) {
        this(path, field, reason, null);
    }

    /**
     * Creates the exception with the parser's failure as its cause.
     *
     * @param path   the znode's path
     * @param field  the field at fault, or {@link #WHOLE_PAYLOAD}
     * @param reason what is wrong
     * @param cause  the underlying parser failure, or {@code null}
     */
    MalformedZnodeException(final String path, final String field, final String reason, final Throwable cause) {
        super("malformed znode " + path + ": field=" + field + ": " + reason, cause);
        this.path = path;
        this.field = field;
    }

    /**
     * The znode that holds the bad payload.
     *
     * @return the path, as given by the decoder's caller
     */
    public String path() {
        return path;
    }

    /**
     * The field at fault.
     *
     * @return a JSON path such as {@code isr[2]}, or {@link #WHOLE_PAYLOAD}
     */
    public String field() {
        return field;
    }
}
