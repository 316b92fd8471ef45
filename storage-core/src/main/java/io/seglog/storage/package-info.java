/**
 * Seglog's storage core: an append-only segmented log whose files are byte-compatible with Kafka's log
 * directories (v2 record batches, sparse offset and time indexes, Kafka's checkpoint files).
 *
 * <p>The public API lives in this package; the sub-packages are implementation.
 */
package io.seglog.storage;
