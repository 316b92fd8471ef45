/**
 * Seglog's storage core: an append-only segmented log whose files are Kafka's log-directory files byte for byte.
 *
 * <p>Exported: {@code io.seglog.storage} (the API: {@code LogManager}, {@code PartitionLog}, {@code LogReader},
 * configuration, errors, read-only views), {@code io.seglog.storage.format} (the v2 record-batch flyweights, the
 * builder and the validator, for code that builds or reads batches), {@code io.seglog.storage.io} (the file
 * seam, for fault injection), {@code io.seglog.storage.inspect} (a log directory verified and dumped without a
 * broker, for operators' tools) and {@code io.seglog.storage.config} (the configuration table every component's
 * keys are defined in, for the broker layer's configuration and the generated reference docs/configuration.md). Everything else (the partition-log internals, segments, indexes, checkpoints, the
 * leader-epoch cache, the directory lock) is implementation, free to change. docs/architecture.md draws it.
 */
module io.seglog.storage {
    // Transitive: the format package's flyweights are Agrona buffers' views, so their users read Agrona too.
    requires transitive org.agrona.core;
    requires org.slf4j;
    // Agrona's UnsafeAccess: the record parser's unchecked reads (format.UncheckedReads).
    requires jdk.unsupported;
    // The codec libraries, optional (see the pom): absent, a compressed batch of that codec is refused by name.
    requires static snappy.java;
    requires static org.lz4.java;
    requires static com.github.luben.zstd_jni;

    exports io.seglog.storage;
    exports io.seglog.storage.format;
    exports io.seglog.storage.io;
    exports io.seglog.storage.inspect;
    exports io.seglog.storage.config;
}
