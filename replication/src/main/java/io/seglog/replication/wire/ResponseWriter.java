package io.seglog.replication.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Encodes a response as the parts Netty writes in order: the size, the response header and the body go into one
 * buffer, cut where each {@link SliceRecords} field sits, and each slice goes between the cuts as a
 * {@link SliceRegion} (zero copy). A response without slices is one buffer. Kafka's {@code SendBuilder} does the same
 * with its {@code Send}s.
 */
final class ResponseWriter implements Writable {
    private final ByteBufferAccessor out;
    private final List<Integer> cuts = new ArrayList<>();
    private final List<SliceRecords> slices = new ArrayList<>();

    private ResponseWriter(final ByteBuffer buffer) {
        this.out = new ByteBufferAccessor(buffer);
    }

    /**
     * The parts of one response frame, in order: {@link ByteBuf}s and {@link SliceRegion}s, each owned by the caller
     * (written to the channel, or released).
     */
    static List<Object> encode(final ByteBufAllocator alloc, final ApiKeys api, final short version,
                               final int correlationId, final ApiMessage body) {
        final ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        final short headerVersion = api.responseHeaderVersion(version);
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final MessageSizeAccumulator size = new MessageSizeAccumulator();
        header.addSize(size, cache, headerVersion);
        body.addSize(size, cache, version);
        final int inline = Integer.BYTES + size.sizeExcludingZeroCopy();
        final ByteBuf buf = alloc.ioBuffer(inline);
        try {
            buf.writeInt(size.totalSize());
            final ByteBuffer view = buf.nioBuffer(Integer.BYTES, inline - Integer.BYTES);
            final ResponseWriter writer = new ResponseWriter(view);
            header.write(writer, cache, headerVersion);
            body.write(writer, cache, version);
            if (view.hasRemaining()) {
                throw new IllegalStateException(api + " v" + version + " response wrote " + view.position() + " of "
                    + (inline - Integer.BYTES) + " inline bytes");
            }
            buf.writerIndex(inline);
            return writer.parts(buf);
        } catch (final RuntimeException | Error e) {
            buf.release();
            throw e;
        }
    }

    /** Cuts the buffer at the slices (the buffer's reference passes to the parts). */
    private List<Object> parts(final ByteBuf buf) {
        if (slices.isEmpty()) {
            return List.of(buf);
        }
        final List<Object> parts = new ArrayList<>(2 * slices.size() + 1);
        int from = 0;
        for (int i = 0; i < slices.size(); i++) {
            final int cut = Integer.BYTES + cuts.get(i);
            if (cut > from) {
                parts.add(buf.retainedSlice(from, cut - from));
            }
            parts.add(new SliceRegion(slices.get(i).slice()));
            from = cut;
        }
        if (buf.writerIndex() > from) {
            parts.add(buf.retainedSlice(from, buf.writerIndex() - from));
        }
        buf.release();
        return parts;
    }

    @Override
    public void writeRecords(final BaseRecords records) {
        if (records instanceof SliceRecords slice) {
            if (slice.sizeInBytes() > 0) {
                cuts.add(out.buffer().position());
                slices.add(slice);
            }
        } else if (records instanceof MemoryRecords memory) {
            out.writeByteBuffer(memory.buffer().duplicate());
        } else {
            throw new IllegalArgumentException("records of type " + records.getClass().getName() + " cannot be sent");
        }
    }

    @Override
    public void writeByte(final byte val) {
        out.writeByte(val);
    }

    @Override
    public void writeShort(final short val) {
        out.writeShort(val);
    }

    @Override
    public void writeInt(final int val) {
        out.writeInt(val);
    }

    @Override
    public void writeLong(final long val) {
        out.writeLong(val);
    }

    @Override
    public void writeDouble(final double val) {
        out.writeDouble(val);
    }

    @Override
    public void writeByteArray(final byte[] arr) {
        out.writeByteArray(arr);
    }

    @Override
    public void writeUnsignedVarint(final int i) {
        out.writeUnsignedVarint(i);
    }

    @Override
    public void writeByteBuffer(final ByteBuffer buf) {
        out.writeByteBuffer(buf);
    }

    @Override
    public void writeVarint(final int i) {
        out.writeVarint(i);
    }

    @Override
    public void writeVarlong(final long i) {
        out.writeVarlong(i);
    }
}
