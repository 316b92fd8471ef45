package io.seglog.storage.log;

import io.seglog.storage.producer.ProducerCheckSink;

/**
 * Where the {@link Appender} reports how a leader append ended: appended, refused because the leader is fenced, or
 * (through {@link ProducerCheckSink}) a duplicate or a producer-state refusal. The partition log's one answer object
 * implements it; exactly one method is called per append that returns normally, by the writer under the log's append
 * lock.
 */
public interface LeaderAppendSink extends ProducerCheckSink {
    /**
     * The batches were appended at {@code [firstOffset, lastOffset]}.
     *
     * @param firstOffset     the first offset assigned
     * @param lastOffset      the last offset assigned
     * @param logAppendTimeMs the broker time stamped into the batches under {@code LogAppendTime}, else -1
     */
    void appended(long firstOffset, long lastOffset, long logAppendTimeMs);

    /**
     * Nothing was appended: the append's leader epoch is below the log's latest, so a newer leader's records (or its
     * epoch) reached this log and this leader is fenced.
     *
     * @param leaderEpoch       the append's leader epoch
     * @param latestLeaderEpoch the log's latest leader epoch
     */
    void fencedLeaderEpoch(int leaderEpoch, int latestLeaderEpoch);
}
