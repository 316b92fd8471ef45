package io.seglog.replication.zk;

/**
 * A one-shot ZooKeeper watch callback. It runs on ZooKeeper's event thread, so implementations only
 * enqueue work (the controller's event loop re-reads the znode and re-arms the watch).
 */
@FunctionalInterface
public interface ZkWatch {
    /**
     * Called once when the watched znode (or its children) changed or the watch was triggered.
     *
     * @param path the path the watch was set on
     */
    void onChange(String path);
}
