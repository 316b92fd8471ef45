/**
 * Everything that touches ZooKeeper: Kafka's ZooKeeper-mode layout ({@link io.seglog.replication.zk.ZkPaths}), the
 * JSON payloads of its znodes (the {@code *Znode} records and {@link io.seglog.replication.zk.BrokerRegistration}),
 * and the live client code built on Curator. The payload classes are pure: they encode and decode bytes, and
 * every decoder turns a malformed payload into a {@link io.seglog.replication.zk.MalformedZnodeException} that
 * names the path and the field, so that a znode written by some other client can be logged and skipped.
 */
package io.seglog.replication.zk;
