/**
 * Seglog's storage core: an append-only segmented log whose files are byte-compatible with Kafka's log
 * directories (v2 record batches, sparse offset and time indexes, Kafka's checkpoint files).
 *
 * <p>This package is the API (with {@code io.seglog.storage.format} for record batches and
 * {@code io.seglog.storage.io} for the file seam, the module exports nothing else): {@link
 * io.seglog.storage.LogManager} opens log directories; {@link io.seglog.storage.PartitionLog} is one partition's
 * log, appending, truncating, retaining and reporting durability; {@link io.seglog.storage.LogReader} is a reader's
 * cursor; {@link io.seglog.storage.LogSlice}, {@link io.seglog.storage.Records} and the record types are what reads
 * return; {@link io.seglog.storage.LogConfig} and {@link io.seglog.storage.LogManagerConfig} configure, with Kafka's
 * property names; the exceptions say what failed, naming file, position and offset. {@code PartitionLog} owns the
 * lifecycle (append lock, close, offline state) and composes the owners of the partition's state, which live in
 * {@code io.seglog.storage.log}; nothing below this package depends on it (docs/architecture.md).
 */
package io.seglog.storage;
