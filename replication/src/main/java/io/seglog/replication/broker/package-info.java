/**
 * The broker side of the control plane: a broker's ZooKeeper session, registration and controller candidacy
 * ({@link io.seglog.replication.broker.ReplicationBroker}), and the handler that applies control messages and
 * refuses stale ones ({@link io.seglog.replication.broker.BrokerControlHandler}), and the whole broker
 * ({@link io.seglog.replication.broker.SeglogBroker}) with its topics' configurations applied to their logs.
 */
package io.seglog.replication.broker;
