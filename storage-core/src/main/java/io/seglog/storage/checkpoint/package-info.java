/**
 * Kafka's small text checkpoint files ({@code version}, {@code count}, one entry per line), written
 * atomically (temp file, fsync, rename, fsync of the directory) and read strictly with memory bounded by
 * the file's size: the recovery-point, replication (high watermark) and log-start offset checkpoints, the
 * leader-epoch checkpoint, and the clean-shutdown marker.
 *
 * <p>All file access goes through {@link io.seglog.storage.io.FileIO}, which is how the tests inject
 * faults. The formats and the fallbacks a caller applies when a file is missing or corrupt are described
 * in {@code docs/checkpoints.md}. Owns the checkpoint files' formats; what goes in them is the log manager's and
 * the epoch cache's. Internal; not exported.
 */
package io.seglog.storage.checkpoint;
