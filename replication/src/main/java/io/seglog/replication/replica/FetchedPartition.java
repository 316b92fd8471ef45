package io.seglog.replication.replica;

import io.seglog.storage.EpochEndOffset;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;

/**
 * One partition of a fetch response as a follower receives it.
 *
 * @param tp             the partition
 * @param error          NONE or the leader's error
 * @param highWatermark  the leader's high watermark
 * @param logStartOffset the leader's log start offset
 * @param divergingEpoch the leader's diverging epoch, or {@link EpochEndOffset#UNDEFINED}
 * @param records        the batches, or null; valid until the {@link FetchResponse} carrying them is closed
 */
public record FetchedPartition(TopicPartition tp, ReplicaError error, long highWatermark, long logStartOffset,
                               EpochEndOffset divergingEpoch, ByteBuffer records) {
}
