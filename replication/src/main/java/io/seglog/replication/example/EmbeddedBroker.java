package io.seglog.replication.example;

import io.seglog.replication.broker.SeglogBroker;
import io.seglog.replication.broker.SeglogBrokerConfig;
import io.seglog.replication.replica.AppendResult;
import io.seglog.replication.replica.ReadResult;
import io.seglog.storage.LogBatch;
import io.seglog.storage.Records;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Embeds a broker: start one on a ZooKeeper, create a topic, produce and fetch without the wire protocol. */
public final class EmbeddedBroker {
    private EmbeddedBroker() {
    }

    /**
     * Runs the example.
     *
     * @param args ZooKeeper's connection string (default 127.0.0.1:2181) and the log directory (default
     *             /tmp/seglog-embedded-broker)
     * @throws Exception if the broker cannot start, or a step fails or times out
     */
    public static void main(final String[] args) throws Exception {
        SeglogBrokerConfig config = SeglogBrokerConfig.fromProperties(Map.of(   // Kafka's server.properties names
            "broker.id", "1",
            "listeners", "PLAINTEXT://127.0.0.1:0",                              // port 0: a free one
            "log.dirs", args.length > 1 ? args[1] : "/tmp/seglog-embedded-broker",
            "zookeeper.connect", args.length > 0 ? args[0] : "127.0.0.1:2181"));
        try (SeglogBroker broker = SeglogBroker.start(config)) {                 // logs, replicas, listener
            broker.awaitRegistered(30_000);                                      // in ZooKeeper, under the controller
            broker.createTopicIfAbsent("orders", 1, 1, 30_000);                 // waits until its leader serves it
            TopicPartition tp = new TopicPartition("orders", 0);
            ByteBuffer batch = Records.builder()
                .add(System.currentTimeMillis(), null, "hello".getBytes(StandardCharsets.UTF_8))
                .build();
            AppendResult appended = broker.produce(tp, batch, (short) -1, 30_000).get();  // acks=all, as a Produce
            System.out.println("appended at offset " + appended.baseOffset() + ": " + appended.error());
            ReadResult read = broker.fetch(tp, appended.baseOffset(), 1 << 20, 1_000).get();  // as a consumer reads
            for (LogBatch b : Records.batches(read.records())) {                 // a zero-copy slice of the segment
                System.out.println("read " + b.records().size() + " record(s) from offset " + b.baseOffset()
                    + ", high watermark " + read.highWatermark());
            }
        }
    }
}
