package io.seglog.storage;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * One record of a log, as an embedder reads it without the batch flyweights ({@link Records}). The key, value and
 * header values are read-only views of the batch's bytes (copied out of the segment once per read), so keeping a
 * record keeps its batch's bytes alive.
 *
 * @param offset    the record's offset
 * @param timestamp its timestamp (the batch's log-append time when the batch uses it), -1 when none
 * @param key       its key, or null
 * @param value     its value, or null
 * @param headers   its headers, in order
 */
public record LogRecord(long offset, long timestamp, ByteBuffer key, ByteBuffer value, List<Header> headers) {
    /**
     * Copies the header list.
     *
     * @param offset    the record's offset
     * @param timestamp its timestamp
     * @param key       its key, or null
     * @param value     its value, or null
     * @param headers   its headers
     */
    public LogRecord {
        headers = List.copyOf(headers);
    }

    /**
     * One record header.
     *
     * @param key   the header key (UTF-8 on the wire)
     * @param value the header value, or null
     */
    public record Header(String key, ByteBuffer value) {
    }
}
