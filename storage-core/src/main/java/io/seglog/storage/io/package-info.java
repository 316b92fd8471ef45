/**
 * The file-system seam ({@link io.seglog.storage.io.FileIO}) through which the storage core opens, syncs,
 * renames and deletes files, so that embedders can replace it and tests can inject faults. Exported: a
 * {@code PartitionLog} or {@code LogManager} is opened with a {@code FileIO}.
 */
package io.seglog.storage.io;
