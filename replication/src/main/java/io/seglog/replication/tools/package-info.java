/**
 * The {@code seglog} command line for operators ({@link io.seglog.replication.tools.SeglogCommand}): dump and verify
 * log directories, run recovery as an explicit step, and read a cluster's state from ZooKeeper.
 */
package io.seglog.replication.tools;
