package io.seglog.replication.wire;

import io.seglog.storage.LogSlice;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.RecordsSend;

/**
 * A Fetch response's records as a {@link LogSlice} of a segment file: the generated {@code FetchResponseData} holds
 * it as its records field and sizes it, and {@link ResponseWriter} sends it with {@code FileChannel.transferTo}
 * between the encoded bytes before and after it, never copied into a heap buffer. The one kafka-clients interface
 * beyond the message classes that Seglog implements ({@code BaseRecords}: the records field's type).
 *
 * @param slice the batches, whole, as they sit on disk
 */
record SliceRecords(LogSlice slice) implements BaseRecords {
    @Override
    public int sizeInBytes() {
        return slice.sizeInBytes();
    }

    /** Not used: Seglog's {@link ResponseWriter} sends the slice itself. */
    @Override
    public RecordsSend<? extends BaseRecords> toSend() {
        throw new UnsupportedOperationException("a Seglog slice is sent by ResponseWriter, not by a kafka-clients Send");
    }
}
