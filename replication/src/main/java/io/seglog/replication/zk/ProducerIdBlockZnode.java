package io.seglog.replication.zk;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The payload of {@code /latest_producer_id_block} (Kafka's {@code ProducerIdBlockZNode}): the last block of producer
 * ids a broker reserved, which the next reservation follows.
 *
 * <pre>
 * {"version":1,"broker":1,"block_start":"0","block_end":"999"}
 * </pre>
 *
 * <p>As Kafka writes it: {@code version} and {@code broker} are JSON numbers, the two bounds are decimal
 * <em>strings</em> (both inclusive). Version history: 1 is the only version (Kafka 0.11 to 3.9's ZooKeeper mode).
 * Kafka's reader ignores the version; ours requires one of 1 or more, as for the other znodes. A broker reserves the
 * block after the current one by a conditional {@code setData} at the version it read (see
 * {@link KafkaZkStore#reserveProducerIdBlock}), so two brokers never get the same block. Kafka creates the znode empty
 * at start; an empty payload means no block was reserved yet.
 *
 * <p>Immutable and thread-safe.
 *
 * @param brokerId        the broker that reserved the block
 * @param firstProducerId the block's first id, inclusive, zero or more
 * @param lastProducerId  the block's last id, inclusive, at least {@code firstProducerId}
 */
public record ProducerIdBlockZnode(int brokerId, long firstProducerId, long lastProducerId) {
    /** The version written. */
    static final int VERSION = 1;
    /** Ids per block: Kafka's {@code ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE}. */
    public static final int BLOCK_SIZE = 1000;

    /**
     * Validates.
     *
     * @param brokerId        the broker id
     * @param firstProducerId the first id
     * @param lastProducerId  the last id
     * @throws IllegalArgumentException naming the values when the broker id or the first id is negative, or the block
     *     is empty or holds more than {@link Integer#MAX_VALUE} ids
     */
    public ProducerIdBlockZnode {
        if (brokerId < 0) {
            throw new IllegalArgumentException("brokerId=" + brokerId + " must be >= 0");
        }
        if (firstProducerId < 0 || lastProducerId < firstProducerId
            || lastProducerId - firstProducerId >= Integer.MAX_VALUE) {
            throw new IllegalArgumentException("block_start=" + firstProducerId + ", block_end=" + lastProducerId
                + " must satisfy 0 <= block_start <= block_end < block_start + " + Integer.MAX_VALUE);
        }
    }

    /**
     * The block that follows {@code previous}, of {@link #BLOCK_SIZE} ids, or the first block ({@code [0, 999]}) when
     * there is none (Kafka's {@code getNewProducerIdBlock}).
     *
     * @param brokerId the broker reserving it
     * @param previous the block in the znode, or null when it holds none
     * @return the next block
     * @throws IllegalStateException when the ids are exhausted (the next block would pass {@link Long#MAX_VALUE})
     */
    static ProducerIdBlockZnode next(final int brokerId, final ProducerIdBlockZnode previous) {
        if (previous == null) {
            return new ProducerIdBlockZnode(brokerId, 0, BLOCK_SIZE - 1);
        }
        if (previous.lastProducerId > Long.MAX_VALUE - BLOCK_SIZE) {
            throw new IllegalStateException("producer ids exhausted: the last block ends at block_end="
                + previous.lastProducerId);
        }
        return new ProducerIdBlockZnode(brokerId, previous.lastProducerId + 1, previous.lastProducerId + BLOCK_SIZE);
    }

    /**
     * The number of ids in the block.
     *
     * @return {@code lastProducerId - firstProducerId + 1}
     */
    public int size() {
        return (int) (lastProducerId - firstProducerId + 1);
    }

    /**
     * Encodes the payload in Kafka's field order.
     *
     * @return compact UTF-8 JSON
     */
    public byte[] toJson() {
        final ObjectNode obj = ZkJson.newObject()
            .put("version", VERSION)
            .put("broker", brokerId)
            .put("block_start", Long.toString(firstProducerId))
            .put("block_end", Long.toString(lastProducerId));
        return ZkJson.write(obj);
    }

    /**
     * Decodes the payload.
     *
     * @param json the payload of {@code /latest_producer_id_block}, not empty (an empty one means no block yet)
     * @return the block
     * @throws MalformedZnodeException naming the field when the payload is not Kafka's format, a bound is not a
     *     decimal string, or the bounds do not make a block
     */
    public static ProducerIdBlockZnode fromJson(final byte[] json) throws MalformedZnodeException {
        final String path = ZkPaths.LATEST_PRODUCER_ID_BLOCK;
        final ObjectNode obj = ZkJson.parseObject(path, json);
        ZkJson.version(path, obj, VERSION, Integer.MAX_VALUE);
        final int brokerId = ZkJson.requiredInt(path, obj, "broker", 0, Integer.MAX_VALUE);
        final long first = ZkJson.parseDecimalLong(path, "block_start", ZkJson.requiredString(path, obj, "block_start"));
        final long last = ZkJson.parseDecimalLong(path, "block_end", ZkJson.requiredString(path, obj, "block_end"));
        if (first < 0) {
            throw new MalformedZnodeException(path, "block_start", "value=" + first + " must be >= 0");
        }
        if (last < first || last - first >= Integer.MAX_VALUE) {
            throw new MalformedZnodeException(path, "block_end", "value=" + last + " must lie in [block_start="
                + first + ", block_start + " + (Integer.MAX_VALUE - 1) + "]");
        }
        return new ProducerIdBlockZnode(brokerId, first, last);
    }
}
