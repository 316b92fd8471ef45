package io.seglog.replication.zk;

/**
 * A controller write was refused because {@code /controller_epoch} is no longer at the version this controller
 * wrote when it was elected: another controller has been elected since, so this one must resign (KAFKA-6082).
 */
public final class ControllerMovedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int expectedEpochZkVersion;

    /**
     * Creates the exception.
     *
     * @param expectedEpochZkVersion the version of {@code /controller_epoch} this controller expected
     * @param detail                 what was being written
     */
    public ControllerMovedException(final int expectedEpochZkVersion, final String detail) {
        super("controller moved: " + ZkPaths.CONTROLLER_EPOCH + " is no longer at version="
            + expectedEpochZkVersion + " (" + detail + ")");
        this.expectedEpochZkVersion = expectedEpochZkVersion;
    }

    /**
     * The fencing token that no longer holds.
     *
     * @return the expected {@code /controller_epoch} version
     */
    int expectedEpochZkVersion() {
        return expectedEpochZkVersion;
    }
}
