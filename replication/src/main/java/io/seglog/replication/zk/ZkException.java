package io.seglog.replication.zk;

/**
 * A failed ZooKeeper call: names the error and the path. Unchecked because the controller's event loop
 * handles every ZooKeeper failure in one place.
 */
public class ZkException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ZkError error;
    private final String path;

    /**
     * Creates the exception.
     *
     * @param error the outcome
     * @param path  the znode path (without chroot), or a description of a multi-op
     * @param cause the underlying failure, may be null
     */
    public ZkException(final ZkError error, final String path, final Throwable cause) {
        super(error + " path=" + path + (cause != null && cause.getMessage() != null ? ": " + cause.getMessage() : ""),
            cause);
        this.error = error;
        this.path = path;
    }

    /**
     * The outcome.
     *
     * @return the error
     */
    public ZkError error() {
        return error;
    }

    /**
     * The path the call was about.
     *
     * @return the znode path
     */
    public String path() {
        return path;
    }
}
