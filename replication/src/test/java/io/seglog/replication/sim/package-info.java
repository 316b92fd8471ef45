/**
 * Deterministic simulation (issue 15), test code only: one seeded scheduler on one thread runs the production
 * replication code on a simulated clock, with in-memory stand-ins for what it reaches through seams (ZooKeeper
 * first). One seed gives one run: the same events in the same order, summed up in a trace digest.
 */
package io.seglog.replication.sim;
