/**
 * The log cleaner: Kafka's compaction for logs whose {@code cleanup.policy} includes {@code compact}. A
 * {@link io.seglog.storage.cleaner.LogCleaner} picks the dirtiest log, a {@code Cleaner} maps each key of its dirty
 * section to its last offset ({@code OffsetMap}) and copies the older segments without the superseded records into
 * {@code .cleaned} files, which a crash-safe {@code .cleaned} &rarr; {@code .swap} &rarr; {@code .log} protocol puts in
 * place of the originals. The first dirty offset of each log is kept in the log directory's
 * {@code cleaner-offset-checkpoint}. See {@code docs/cleaner.md}.
 */
package io.seglog.storage.cleaner;
