package io.seglog.replication.zk;

/**
 * A znode's data and stat, read together.
 *
 * @param path the path (without chroot)
 * @param data the data, never null (an empty array for a znode without data)
 * @param stat the stat of the same read
 */
public record ZkNode(String path, byte[] data, ZkStat stat) {
}
