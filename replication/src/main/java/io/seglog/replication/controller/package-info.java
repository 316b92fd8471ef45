/**
 * The controller: one broker at a time, elected through ZooKeeper, runs Kafka's ZooKeeper-mode controller logic
 * on a single-threaded event loop ({@link io.seglog.replication.controller.Controller}); topic administration
 * ({@link io.seglog.replication.controller.TopicAdmin}) writes requests that the controller carries out.
 */
package io.seglog.replication.controller;
