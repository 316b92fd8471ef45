package io.seglog.replication.zk;

/**
 * One operation of an atomic {@link ZkConnection#multi multi}. Public so that a {@link ZkConnection} outside this
 * package (the simulation's in-memory ZooKeeper) can run them; in the main code only this package builds writes
 * (an architecture rule).
 */
public sealed interface ZkOp {
    /**
     * The path the operation acts on.
     *
     * @return the path (for {@link CreateSequential}, the name prefix)
     */
    String path();

    /**
     * Creates a znode.
     *
     * @param path      the path; its parent must exist
     * @param data      the data
     * @param ephemeral whether it lives only as long as the session
     */
    record Create(String path, byte[] data, boolean ephemeral) implements ZkOp {
    }

    /**
     * Creates a persistent-sequential znode: the name is the prefix followed by the parent's child version in ten
     * digits.
     *
     * @param path the name prefix
     * @param data the data
     */
    record CreateSequential(String path, byte[] data) implements ZkOp {
    }

    /**
     * Sets data at an expected version.
     *
     * @param path    the path
     * @param data    the data
     * @param version the expected version, {@code -1} = any
     */
    record SetData(String path, byte[] data, int version) implements ZkOp {
    }

    /**
     * Deletes a znode at an expected version.
     *
     * @param path    the path
     * @param version the expected version, {@code -1} = any
     */
    record Delete(String path, int version) implements ZkOp {
    }

    /**
     * Checks that a znode is at the expected version.
     *
     * @param path    the path
     * @param version the expected version
     */
    record Check(String path, int version) implements ZkOp {
    }
}
