/**
 * Kafka's replication rules as pure functions and values: leader and ISR state, the leader election algorithms,
 * the partition and replica state machines' transition tables, replica assignment for new topics and the leader
 * imbalance check. Nothing here does I/O, talks to ZooKeeper or touches a network: the controller in
 * {@code io.seglog.replication.zk} reads the cluster's state, asks these rules what to do, and writes the result.
 * That keeps every rule testable with plain tables.
 */
package io.seglog.replication.election;
