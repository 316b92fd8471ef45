package io.seglog.replication.zk;

import io.seglog.storage.TopicPartition;
import java.util.Set;

/**
 * The payload of {@code /admin/preferred_replica_election}: an administrator's request to move leadership of
 * these partitions back to their preferred (first) replica. The controller watches for the znode's creation and
 * deletes it when done.
 *
 * <pre>
 * {"version":1,"partitions":[{"topic":"t","partition":0}]}
 * </pre>
 *
 * <p>Version history: 1 is the only version. Written sorted; repeated partitions read as one. Immutable and
 * thread-safe.
 *
 * @param partitions the partitions (copied, sorted, immutable)
 */
record PreferredReplicaElectionZnode(Set<TopicPartition> partitions) {
    /** The version written. */
    public static final int VERSION = 1;

    /**
     * Copies.
     *
     * @param partitions the partitions
     * @throws IllegalArgumentException when the set is null or holds null
     */
    public PreferredReplicaElectionZnode {
        partitions = IsrChangeNotificationZnode.sortedCopy(partitions);
    }

    /**
     * Encodes the payload.
     *
     * @return compact UTF-8 JSON
     */
    public byte[] toJson() {
        return ZkJson.writePartitionSet(partitions);
    }

    /**
     * Decodes the payload of {@link ZkPaths#PREFERRED}.
     *
     * @param json the payload
     * @return the request
     * @throws MalformedZnodeException when the payload is not a valid request
     */
    public static PreferredReplicaElectionZnode fromJson(final byte[] json) throws MalformedZnodeException {
        return new PreferredReplicaElectionZnode(ZkJson.partitionSet(ZkPaths.PREFERRED, json));
    }
}
