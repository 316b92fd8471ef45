/**
 * Controller-to-broker control messages (LeaderAndIsr, UpdateMetadata, StopReplica) and broker-to-controller
 * requests (controlled shutdown), each carrying the controller epoch and the broker epoch so that stale senders
 * are refused, behind a {@link io.seglog.replication.transport.ControlChannel} seam; an in-JVM implementation
 * here, the network one comes with the data path.
 */
package io.seglog.replication.transport;
