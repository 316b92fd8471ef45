/**
 * The data path's rules as pure functions and small values: how a leader tracks each follower's progress
 * ({@link io.seglog.replication.policy.FollowerProgress}), where its high watermark may go and which followers
 * leave or join the ISR ({@link io.seglog.replication.policy.IsrRules}), how it answers a follower's fetch whose
 * last fetched epoch may have diverged ({@link io.seglog.replication.policy.FetchDivergence}), and how far a follower
 * truncates on a leader's epoch answer ({@link io.seglog.replication.policy.FollowerTruncation}). Kafka's rules
 * (its {@code Partition}, {@code Replica} and {@code AbstractFetcherThread}), taken one by one and tested with tables.
 * Nothing here locks, reads a clock, writes a file, talks to ZooKeeper or touches a network: the replica layer
 * ({@code io.seglog.replication.replica}) holds the state, passes the time in, and acts on the answers.
 */
package io.seglog.replication.policy;
