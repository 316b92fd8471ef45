package io.seglog.replication.wire;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.ReferenceCounted;
import io.seglog.storage.LogManager;
import io.seglog.storage.LogManagerConfig;
import io.seglog.storage.LogSlice;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Fetch response whose records are slices of real segment files ({@link SliceRecords}) is written by
 * {@link ResponseWriter} as buffers with a {@link SliceRegion} between them, and the bytes those parts write are,
 * byte for byte, the frame kafka-clients encodes for the same response with the same batches in memory
 * ({@code MemoryRecords}). A slice whose bytes a truncation removed fails its transfer instead of writing short.
 */
@Timeout(60)
class ZeroCopyFetchTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final int LEADER_EPOCH = 2;
    private static final TopicPartition T_0 = new TopicPartition("t", 0);
    private static final TopicPartition T_1 = new TopicPartition("t", 1);
    private static final TopicPartition T_2 = new TopicPartition("t", 2);
    private static final TopicPartition U_0 = new TopicPartition("u", 0);

    @TempDir
    Path dir;

    private LogManager logs;
    /** The batches appended to each partition, as stamped in place by the log: what its segment file holds. */
    private final Map<TopicPartition, List<byte[]>> appended = new LinkedHashMap<>();

    @BeforeEach
    void open() {
        logs = LogManager.open(LogManagerConfig.builder().logDirs(dir).build());
        append(T_0, 3);
        append(T_0, 1);
        append(T_0, 2); // t-0: three batches, offsets 0-5
        logs.getOrCreate(T_1); // t-1: empty
        append(T_2, 4); // t-2: one batch, offsets 0-3
        append(U_0, 1);
        append(U_0, 5);
    }

    @AfterEach
    void close() {
        logs.close();
    }

    private void append(final TopicPartition tp, final int records) {
        final PartitionLog log = logs.getOrCreate(tp);
        final SimpleRecord[] batch = new SimpleRecord[records];
        for (int i = 0; i < records; i++) {
            batch[i] = new SimpleRecord(T0 + log.logEndOffset() + i, ("k" + i).getBytes(UTF_8),
                (tp + "@" + (log.logEndOffset() + i)).getBytes(UTF_8));
        }
        final ByteBuffer buffer = MemoryRecords.withRecords(Compression.NONE, batch).buffer();
        log.appendAsLeader(buffer, LEADER_EPOCH);
        final byte[] stored = new byte[buffer.remaining()];
        buffer.duplicate().get(stored); // stamped in place (offsets, epoch): now as on disk
        appended.computeIfAbsent(tp, t -> new ArrayList<>()).add(stored);
    }

    private byte[] appendedBytes(final TopicPartition tp) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        appended.getOrDefault(tp, List.of()).forEach(out::writeBytes);
        return out.toByteArray();
    }

    private LogSlice slice(final TopicPartition tp) {
        final PartitionLog log = logs.getOrCreate(tp);
        return log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE, true);
    }

    /**
     * A response over the given partitions (in order), with each partition's records made by {@code records}; at v12
     * the last partition carries a diverging epoch, a tagged field written after its records.
     */
    private FetchResponseData response(final short version, final List<TopicPartition> partitions,
                                       final Function<TopicPartition, BaseRecords> records) {
        final FetchResponseData resp = new FetchResponseData().setThrottleTimeMs(3).setErrorCode((short) 0)
            .setSessionId(0);
        final Map<String, FetchResponseData.FetchableTopicResponse> topics = new LinkedHashMap<>();
        for (final TopicPartition tp : partitions) {
            final PartitionLog log = logs.getOrCreate(tp);
            final FetchResponseData.PartitionData p = new FetchResponseData.PartitionData()
                .setPartitionIndex(tp.partition()).setErrorCode((short) 0).setHighWatermark(log.logEndOffset())
                .setLastStableOffset(log.logEndOffset()).setLogStartOffset(log.logStartOffset())
                .setAbortedTransactions(null).setPreferredReadReplica(-1).setRecords(records.apply(tp));
            if (version >= 12 && tp.equals(partitions.get(partitions.size() - 1))) {
                p.setDivergingEpoch(new FetchResponseData.EpochEndOffset().setEpoch(1).setEndOffset(2));
            }
            // v13+ name topics by id (KIP-516): the frame then carries the 16-byte id instead of the name.
            topics.computeIfAbsent(tp.topic(), t -> version >= 13
                    ? new FetchResponseData.FetchableTopicResponse().setTopicId(new Uuid(0x5e61L, t.hashCode()))
                    : new FetchResponseData.FetchableTopicResponse().setTopic(t))
                .partitions().add(p);
        }
        resp.setResponses(new ArrayList<>(topics.values()));
        return resp;
    }

    /** The frame as kafka-clients encodes it: size, response header, body (what {@code ResponseWriter} does without slices). */
    private static byte[] kafkaFrame(final short version, final int correlationId, final FetchResponseData body) {
        final ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        final short headerVersion = ApiKeys.FETCH.responseHeaderVersion(version);
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final MessageSizeAccumulator size = new MessageSizeAccumulator();
        header.addSize(size, cache, headerVersion);
        body.addSize(size, cache, version);
        final ByteBuffer frame = ByteBuffer.allocate(Integer.BYTES + size.totalSize());
        frame.putInt(size.totalSize());
        final ByteBufferAccessor writer = new ByteBufferAccessor(frame);
        header.write(writer, cache, headerVersion);
        body.write(writer, cache, version);
        assertFalse(frame.hasRemaining(), "kafka-clients wrote the size it announced");
        return frame.array();
    }

    /** Writes the parts as Netty would: buffers as they are, regions through a channel. */
    private static byte[] write(final List<Object> parts) throws IOException {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final WritableByteChannel channel = Channels.newChannel(out);
        for (final Object part : parts) {
            if (part instanceof ByteBuf buf) {
                buf.getBytes(buf.readerIndex(), out, buf.readableBytes());
            } else if (part instanceof SliceRegion region) {
                long position = 0;
                while (position < region.count()) {
                    final long written = region.transferTo(channel, position);
                    if (written <= 0) {
                        fail("the region wrote " + written + " bytes at " + position + " of " + region.count());
                    }
                    position += written;
                }
                assertEquals(region.count(), region.transferred(), "transferred");
            } else {
                fail("a part of type " + part.getClass().getName());
            }
        }
        return out.toByteArray();
    }

    /** Releases every part and checks nothing is left referenced (the buffer the parts were cut from included). */
    private static void release(final List<Object> parts) {
        final Map<ReferenceCounted, Boolean> roots = new IdentityHashMap<>();
        for (final Object part : parts) {
            if (part instanceof ByteBuf buf) {
                roots.put(buf.unwrap() != null ? buf.unwrap() : buf, true);
            }
            roots.put((ReferenceCounted) part, true);
        }
        parts.forEach(ReferenceCountUtil::release);
        roots.keySet().forEach(r -> assertEquals(0, r.refCnt(), "still referenced after release: " + r));
    }

    /** The kinds of the parts, in order: "buf" and "slice". */
    private static List<String> kinds(final List<Object> parts) {
        return parts.stream().map(p -> p instanceof SliceRegion ? "slice" : p instanceof ByteBuf ? "buf"
            : p.getClass().getName()).toList();
    }

    /**
     * Encodes the response with slices and without, and checks the parts' kinds, each slice's length and the bytes.
     *
     * @param emptyAsSlice whether the empty partitions carry an empty {@link SliceRecords} (else
     *                     {@code MemoryRecords.EMPTY}, as {@link KafkaApis} answers an empty read)
     */
    private void assertSameFrame(final short version, final List<TopicPartition> partitions,
                                 final boolean emptyAsSlice, final List<String> expectedKinds) throws IOException {
        final String at = "Fetch v" + version + " " + partitions + (emptyAsSlice ? " (empty slices)" : "");
        final int correlationId = 1000 + version;
        final FetchResponseData zeroCopy = response(version, partitions, tp -> {
            final LogSlice slice = slice(tp);
            return slice.isEmpty() && !emptyAsSlice ? MemoryRecords.EMPTY : new SliceRecords(slice);
        });
        final FetchResponseData inMemory = response(version, partitions,
            tp -> MemoryRecords.readableRecords(ByteBuffer.wrap(appendedBytes(tp))));
        final List<Object> parts = ResponseWriter.encode(ByteBufAllocator.DEFAULT, ApiKeys.FETCH, version,
            correlationId, zeroCopy);
        try {
            assertEquals(expectedKinds, kinds(parts), at + ": parts");
            final List<Long> sliceLengths = new ArrayList<>();
            final List<Long> expectedLengths = new ArrayList<>();
            for (final Object part : parts) {
                if (part instanceof SliceRegion region) {
                    sliceLengths.add(region.count());
                } else {
                    assertTrue(((ByteBuf) part).readableBytes() > 0, at + ": an empty buffer part");
                }
            }
            partitions.stream().map(this::appendedBytes).filter(b -> b.length > 0)
                .forEach(b -> expectedLengths.add((long) b.length));
            assertEquals(expectedLengths, sliceLengths, at + ": one slice per partition with records, whole");
            assertArrayEquals(kafkaFrame(version, correlationId, inMemory), write(parts), at + ": the frame");
        } finally {
            release(parts);
        }
    }

    @Test
    void onePartitionIsABufferTheSliceAndTheTailAtEveryVersion() throws IOException {
        for (short v = KafkaApis.FETCH_MIN; v <= KafkaApis.FETCH_MAX; v++) {
            // Before v12 the records are the last field of the response; v12 has tagged fields after them.
            final List<String> kinds = v >= 12 ? List.of("buf", "slice", "buf") : List.of("buf", "slice");
            assertSameFrame(v, List.of(T_0), false, kinds);
        }
    }

    @Test
    void severalPartitionsWithAnEmptyOneBetweenAreCutAtEachSliceAtEveryVersion() throws IOException {
        final List<TopicPartition> partitions = List.of(T_0, T_1, T_2, U_0);
        for (short v = KafkaApis.FETCH_MIN; v <= KafkaApis.FETCH_MAX; v++) {
            // t-1 is empty: no slice of its own, its bytes travel in the buffer between t-0's and t-2's slices.
            final List<String> kinds = new ArrayList<>(List.of("buf", "slice", "buf", "slice", "buf", "slice"));
            if (v >= 12) {
                kinds.add("buf");
            }
            assertSameFrame(v, partitions, false, kinds);
            assertSameFrame(v, partitions, true, kinds);
        }
    }

    @Test
    void aResponseWithoutRecordsIsOneBuffer() throws IOException {
        for (final short v : new short[] {KafkaApis.FETCH_MIN, KafkaApis.FETCH_MAX}) {
            assertSameFrame(v, List.of(T_1), true, List.of("buf"));
            assertSameFrame(v, List.of(T_1), false, List.of("buf"));
        }
    }

    @Test
    void theSliceBytesAreTheStoredBatches() throws IOException {
        // The oracle above is the batches as appended; here the slice is checked against it through a plain read.
        for (final TopicPartition tp : List.of(T_0, T_2, U_0)) {
            final LogSlice slice = slice(tp);
            final ByteBuffer read = ByteBuffer.allocate(slice.sizeInBytes());
            slice.readInto(read);
            assertArrayEquals(appendedBytes(tp), read.array(), tp.toString());
        }
    }

    @Test
    void aSliceWhoseFileWasTruncatedAfterTheReadFailsItsTransfer() throws IOException {
        for (final short v : new short[] {KafkaApis.FETCH_MIN, KafkaApis.FETCH_MAX}) {
            // Each round appends again what the last one truncated, so every version reads a whole t-0.
            if (logs.getOrCreate(T_0).logEndOffset() < 6) {
                appended.get(T_0).subList(1, appended.get(T_0).size()).clear();
                append(T_0, 1);
                append(T_0, 2);
            }
            final FetchResponseData body = response(v, List.of(T_0), tp -> new SliceRecords(slice(tp)));
            final List<Object> parts = ResponseWriter.encode(ByteBufAllocator.DEFAULT, ApiKeys.FETCH, v, 1, body);
            try {
                final SliceRegion region = assertInstanceOf(SliceRegion.class, parts.get(1), "Fetch v" + v);
                assertEquals(appendedBytes(T_0).length, region.count(), "Fetch v" + v);
                // A follower's truncation to offset 3 (the second batch's base) removes the last two batches.
                assertEquals(3, logs.getOrCreate(T_0).truncateTo(3), "Fetch v" + v);
                final ByteArrayOutputStream out = new ByteArrayOutputStream();
                final IOException e = assertThrows(IOException.class,
                    () -> region.transferTo(Channels.newChannel(out), 0), "Fetch v" + v + ": a short, silent write");
                assertTrue(e.getMessage().contains("truncation"), e.getMessage());
                assertTrue(out.size() < region.count(), "Fetch v" + v + ": wrote " + out.size());
                assertTrue(region.transferred() < region.count(), "Fetch v" + v + ": counted as whole");
            } finally {
                release(parts);
            }
        }
    }

    @Test
    void aSliceTruncatedAwayEntirelyFailsItsTransfer() throws IOException {
        final FetchResponseData body = response(KafkaApis.FETCH_MAX, List.of(T_2), tp -> new SliceRecords(slice(tp)));
        final List<Object> parts = ResponseWriter.encode(ByteBufAllocator.DEFAULT, ApiKeys.FETCH, KafkaApis.FETCH_MAX,
            1, body);
        try {
            final SliceRegion region = assertInstanceOf(SliceRegion.class, parts.get(1));
            logs.getOrCreate(T_2).truncateTo(0);
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            assertThrows(IOException.class, () -> region.transferTo(Channels.newChannel(out), 0));
            assertEquals(0, out.size(), "nothing of the slice is left to write");
            // Resuming part-way (as Netty does after a partial write) fails the same way.
            assertThrows(IOException.class, () -> region.transferTo(Channels.newChannel(out), region.count() / 2));
        } finally {
            release(parts);
        }
    }
}
