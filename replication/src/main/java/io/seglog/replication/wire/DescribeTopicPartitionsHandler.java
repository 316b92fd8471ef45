package io.seglog.replication.wire;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.storage.TopicId;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's DescribeTopicPartitions (API 75, v0, KIP-966), which the 4.x admin client's {@code describeTopics} uses when
 * a broker offers it: topics in name order with their ids, partitions paged by a partition limit and a cursor, as
 * Kafka's {@code DescribeTopicPartitionsRequestHandler} and {@code KRaftMetadataCache} answer (an empty topic list means
 * every topic and skips unknown ones; a named unknown topic is answered UNKNOWN_TOPIC_OR_PARTITION; a cursor whose
 * topic is not among the named ones, or whose partition is negative, makes the request invalid). Seglog has no
 * eligible leader replicas (a KRaft feature): both ELR lists are empty. From the metadata cache only; stateless.
 */
final class DescribeTopicPartitionsHandler {
    /** Kafka's {@code max.request.partition.size.limit} default: the most partitions one answer holds. */
    static final int MAX_PARTITIONS = 2000;

    private final ClusterView cluster;

    DescribeTopicPartitionsHandler(final ClusterView cluster) {
        this.cluster = cluster;
    }

    ApiMessage describe(final KafkaRequest request) {
        final DescribeTopicPartitionsRequestData req = (DescribeTopicPartitionsRequestData) request.body();
        final Map<TopicPartition, PartitionStateInfo> states = cluster.partitions();
        final Map<Integer, LiveBroker> live = cluster.liveBrokers();
        final Map<String, TopicId> ids = cluster.topicIds();
        final Map<String, TreeMap<Integer, PartitionStateInfo>> byTopic = new TreeMap<>();
        states.forEach((tp, s) -> byTopic.computeIfAbsent(tp.topic(), t -> new TreeMap<>()).put(tp.partition(), s));

        final boolean all = req.topics().isEmpty();
        final DescribeTopicPartitionsRequestData.Cursor cursor = req.cursor();
        final String cursorTopic = cursor == null ? "" : cursor.topicName();
        final TreeSet<String> names = new TreeSet<>();
        if (all) {
            byTopic.keySet().stream().filter(t -> t.compareTo(cursorTopic) >= 0).forEach(names::add);
        } else {
            req.topics().forEach(t -> {
                if (t.name() != null && t.name().compareTo(cursorTopic) >= 0) {
                    names.add(t.name());
                }
            });
        }
        if (cursor != null && (!all && !names.contains(cursor.topicName()) || cursor.partitionIndex() < 0)) {
            return invalid(req); // Kafka throws InvalidRequestException: every named topic gets the error
        }
        final DescribeTopicPartitionsResponseData resp = new DescribeTopicPartitionsResponseData();
        int remaining = Math.max(Math.min(MAX_PARTITIONS, req.responsePartitionLimit()), 1);
        for (final String name : names) {
            if (remaining == 0) {
                // The previous topic was answered whole: the next answer starts at this topic.
                resp.setNextCursor(new DescribeTopicPartitionsResponseData.Cursor().setTopicName(name)
                    .setPartitionIndex(0));
                break;
            }
            final TreeMap<Integer, PartitionStateInfo> parts = byTopic.get(name);
            if (parts == null) {
                if (!all) {
                    resp.topics().add(new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic()
                        .setName(name).setErrorCode(legal(name) ? Errors.UNKNOWN_TOPIC_OR_PARTITION.code()
                            : Errors.INVALID_TOPIC_EXCEPTION.code()).setIsInternal(false));
                }
                continue;
            }
            final int start = name.equals(cursorTopic) ? cursor.partitionIndex() : 0;
            final int upper = (int) Math.min(parts.size(), (long) start + remaining);
            final List<DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition> answered =
                new ArrayList<>();
            for (int p = start; p < upper; p++) {
                final PartitionStateInfo state = parts.get(p);
                if (state != null) {
                    answered.add(partition(p, state, live));
                }
            }
            resp.topics().add(new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic()
                .setName(name).setErrorCode(Errors.NONE.code()).setIsInternal(false)
                .setTopicId(TopicIds.uuid(ids.getOrDefault(name, TopicId.ZERO))).setPartitions(answered));
            if (upper < parts.size()) {
                resp.setNextCursor(new DescribeTopicPartitionsResponseData.Cursor().setTopicName(name)
                    .setPartitionIndex(upper));
                break;
            }
            remaining -= answered.size();
        }
        return resp;
    }

    private static DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition partition(
        final int index, final PartitionStateInfo state, final Map<Integer, LiveBroker> live) {
        final LeaderAndIsr lai = state.leaderAndIsr();
        final List<Integer> offline = new ArrayList<>();
        state.replicas().forEach(r -> {
            if (!live.containsKey(r)) {
                offline.add(r);
            }
        });
        return new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition()
            .setPartitionIndex(index)
            .setErrorCode(Errors.NONE.code())
            .setLeaderId(lai.hasLeader() && live.containsKey(lai.leader()) ? lai.leader() : -1)
            .setLeaderEpoch(lai.leaderEpoch())
            .setReplicaNodes(state.replicas())
            .setIsrNodes(lai.isr())
            .setEligibleLeaderReplicas(new ArrayList<>())
            .setLastKnownElr(new ArrayList<>())
            .setOfflineReplicas(offline);
    }

    private static ApiMessage invalid(final DescribeTopicPartitionsRequestData req) {
        final DescribeTopicPartitionsResponseData resp = new DescribeTopicPartitionsResponseData();
        req.topics().forEach(t -> resp.topics().add(
            new DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic().setName(t.name())
                .setErrorCode(Errors.INVALID_REQUEST.code())));
        return resp;
    }

    private static boolean legal(final String name) {
        try {
            TopicPartition.validateTopic(name);
            return true;
        } catch (final IllegalArgumentException e) {
            return false;
        }
    }
}
