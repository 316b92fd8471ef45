package io.seglog.replication.zk;

/** One operation of an atomic {@link ZkClient#multi multi}; package-private so only this package builds writes. */
sealed interface ZkOp {
    /** @return the path the operation acts on */
    String path();

    /** Creates a znode. */
    record Create(String path, byte[] data, boolean ephemeral) implements ZkOp {
    }

    /** Creates a persistent-sequential znode (the path is the name prefix). */
    record CreateSequential(String path, byte[] data) implements ZkOp {
    }

    /** Sets data at an expected version ({@code -1} = any). */
    record SetData(String path, byte[] data, int version) implements ZkOp {
    }

    /** Deletes a znode at an expected version ({@code -1} = any). */
    record Delete(String path, int version) implements ZkOp {
    }

    /** Checks that a znode is at the expected version. */
    record Check(String path, int version) implements ZkOp {
    }
}
