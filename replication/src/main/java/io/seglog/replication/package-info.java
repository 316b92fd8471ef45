/**
 * Seglog's replication layer: a ZooKeeper-coordinated controller, partition leader election, follower
 * replication, high watermark and consumer-group assignment, built on {@code io.seglog.storage}.
 */
package io.seglog.replication;
