/**
 * The README's main job: {@link io.seglog.replication.example.SeglogDemo} walks through the storage core (append,
 * read by offset and by timestamp, durability, close and reopen) and the replication control plane (three brokers
 * in one JVM over a real ZooKeeper: controller election, topic creation, controller failover and leader moves).
 * It uses only public APIs, so it also reads as an embedding guide.
 */
package io.seglog.replication.example;
