/**
 * The owners of one partition log's state, each the only writer of its fields: {@link
 * io.seglog.storage.log.Segments} (the copy-on-write segment array; roll, truncate, retire, replace),
 * {@link io.seglog.storage.log.LogEnd} (the sequence-locked end that readers snapshot, and the truncation count),
 * {@link io.seglog.storage.log.Watermarks} (log start offset, high watermark), {@link io.seglog.storage.log.Durability}
 * (flush lock, flushed offset, group commit) and {@link io.seglog.storage.log.RetiredSegments} (segments renamed
 * {@code .deleted}, waiting to be unlinked); and the paths that change them in order: {@link
 * io.seglog.storage.log.Appender}, {@link io.seglog.storage.log.Truncation}, {@link io.seglog.storage.log.Retention},
 * {@link io.seglog.storage.log.LogOpening}. The API's {@code PartitionLog} composes them.
 *
 * <p>Nothing here imports the API package: I/O failures come back as {@link
 * io.seglog.storage.log.LogWriteException}, and the partition log decides that the log goes offline. Internal; not
 * exported.
 */
package io.seglog.storage.log;
