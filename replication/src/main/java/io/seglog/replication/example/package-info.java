/**
 * The README's main job: {@link io.seglog.replication.example.SeglogDemo} runs Kafka's quickstart on Seglog (three
 * brokers over ZooKeeper, a real kafka-clients producer and consumer, the leader killed mid-stream, the election and
 * the check that nothing acknowledged was lost, then a consumer group rebalancing when a second member joins and its
 * committed offsets checked against the end offsets), optionally after a tour of the storage core (append, read by offset
 * and by timestamp, durability, close and reopen) and of the replication control plane (controller election and
 * failover). It uses only public APIs, so it also reads as an embedding guide.
 */
package io.seglog.replication.example;
