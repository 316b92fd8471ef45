/**
 * The controller: one broker at a time, elected through ZooKeeper, runs Kafka's ZooKeeper-mode controller logic
 * on a single-threaded event loop ({@link io.seglog.replication.controller.Controller}); topic administration
 * ({@link io.seglog.replication.controller.TopicAdmin}) writes requests that the controller carries out: topic
 * creation, partition addition, deletion (Kafka's TopicDeletionManager: znodes go only once every replica is
 * deleted), preferred-leader election and partition reassignment ({@code /admin/reassign_partitions}).
 *
 * <p>Who owns what: {@code Controller} owns the broker's registration, its seat in {@code /controller}, the event
 * thread and when timed work runs; {@code ControllerTerm} owns what happens while the broker is active (the failover
 * and the event handlers) and the active term's {@code ControllerContext}, which its state machines
 * ({@code PartitionStateMachine}, {@code TopicDeletionManager}, {@code ReassignmentManager}) share as Kafka's do.
 */
package io.seglog.replication.controller;
