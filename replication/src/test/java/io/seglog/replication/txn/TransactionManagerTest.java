package io.seglog.replication.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.group.ManualGroupScheduler;
import io.seglog.storage.LogConfig;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import io.seglog.storage.format.RecordBatchBuilder;
import io.seglog.storage.io.FileIO;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator's work on one {@code __transaction_state} partition, over real logs: its records go to a real
 * partition log (reloaded by {@link TransactionStateLoader} to check what a new coordinator would find), its markers to
 * real data partition logs (whose last stable offset they move). InitProducerId, AddPartitionsToTxn and EndTxn answer
 * as Kafka's coordinator does (errors included), markers that fail are retried until written, a failed record write
 * changes nothing, a new instance fences and aborts the open transaction, timeouts abort, and a coordinator that
 * takes over a prepared commit finishes it.
 */
class TransactionManagerTest {
    private static final TopicPartition ORDERS0 = new TopicPartition("orders", 0);
    private static final TopicPartition ORDERS1 = new TopicPartition("orders", 1);
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path dir;

    private final ManualGroupScheduler thread = new ManualGroupScheduler();
    private final AtomicLong nextProducerId = new AtomicLong(1000);
    private final AtomicInteger failLogWrites = new AtomicInteger();
    private final AtomicInteger failMarkers = new AtomicInteger();
    private final List<String> markerLog = new ArrayList<>();
    private final Map<TopicPartition, PartitionLog> data = new HashMap<>();
    private PartitionLog stateLog;
    private TransactionManager manager;

    @BeforeEach
    void open() {
        stateLog = PartitionLog.open(dir.resolve("__transaction_state-0"), LogConfig.builder().build(),
            FileIO.system(), InstantSource.system());
        for (final TopicPartition tp : List.of(ORDERS0, ORDERS1)) {
            data.put(tp, PartitionLog.open(dir.resolve(tp.topic() + "-" + tp.partition()), LogConfig.builder().build(),
                FileIO.system(), InstantSource.system()));
        }
        manager = newManager(5);
        assertEquals(TxnError.COORDINATOR_LOAD_IN_PROGRESS, done(manager.initProducerId("app", 60_000, -1,
            (short) -1)).error(), "nothing answered before the partition is read");
        thread.execute(() -> manager.loaded(Map.of()));
        thread.runPending();
    }

    @AfterEach
    void close() {
        stateLog.close();
        data.values().forEach(PartitionLog::close);
    }

    private TransactionManager newManager(final int coordinatorEpoch) {
        return new TransactionManager("__transaction_state-0", coordinatorEpoch, 900_000, 100,
            TransactionRecords.VALUE_VERSION_0, this::appendState, this::writeMarker, nextProducerId::getAndIncrement,
            thread, () -> T0 + thread.nowMs());
    }

    private CompletableFuture<Void> appendState(final byte[] key, final byte[] value) {
        if (failLogWrites.get() > 0) {
            failLogWrites.decrementAndGet();
            return CompletableFuture.failedFuture(new TransactionManager.WriteFailure(
                TxnError.COORDINATOR_NOT_AVAILABLE, "not enough replicas (injected)"));
        }
        final UnsafeBuffer b = RecordBatchBuilder.batchOf(0, new long[] {T0}, new byte[][] {key},
            new byte[][] {value});
        stateLog.appendAsLeader(ByteBuffer.wrap(b.byteArray(), 0, b.capacity()), 0);
        stateLog.updateHighWatermark(stateLog.logEndOffset());
        return CompletableFuture.completedFuture(null);
    }

    private CompletableFuture<TransactionManager.MarkerOutcome> writeMarker(final TopicPartition tp, final long pid,
                                                                            final short epoch,
                                                                            final int coordinatorEpoch,
                                                                            final boolean commit) {
        if (failMarkers.get() > 0) {
            failMarkers.decrementAndGet();
            if (failMarkers.get() % 2 == 0) {
                throw new IllegalStateException("the channel is closed (injected, thrown)");
            }
            return CompletableFuture.failedFuture(new IllegalStateException("NOT_LEADER_OR_FOLLOWER (injected)"));
        }
        final PartitionLog log = data.get(tp);
        if (log == null) {
            return CompletableFuture.completedFuture(TransactionManager.MarkerOutcome.PARTITION_GONE);
        }
        log.appendTransactionMarker(pid, epoch, coordinatorEpoch, commit, 0);
        log.updateHighWatermark(log.logEndOffset());
        markerLog.add((commit ? "COMMIT " : "ABORT ") + tp + " " + pid + "/" + epoch);
        return CompletableFuture.completedFuture(TransactionManager.MarkerOutcome.WRITTEN);
    }

    private <T> T done(final CompletableFuture<T> answer) {
        thread.runPending();
        assertTrue(answer.isDone(), "answered");
        return answer.join();
    }

    /** The producer's transactional batch into a data partition (as its produce would write it). */
    private void produce(final TopicPartition tp, final long pid, final short epoch, final int seq) {
        final MemoryRecords records = MemoryRecords.withTransactionalRecords(Compression.NONE, pid, epoch, seq,
            new SimpleRecord(T0, null, "v".getBytes()));
        final PartitionLog log = data.get(tp);
        log.appendAsLeader(ByteBuffer.allocate(records.sizeInBytes()).put(records.buffer()).flip(), 0);
        log.updateHighWatermark(log.logEndOffset());
    }

    /** What a new coordinator would load from the partition. */
    private Map<String, TransactionMetadata> reload() {
        final Map<String, TransactionMetadata> loaded = new HashMap<>();
        try (TransactionStateLoader loader = new TransactionStateLoader(1 << 20)) {
            final var reader = stateLog.reader();
            long offset = 0;
            while (offset < stateLog.logEndOffset() && reader.read(offset, 1 << 20, Long.MAX_VALUE, true)) {
                final ByteBuffer bytes = ByteBuffer.allocate(reader.sizeInBytes());
                reader.readInto(bytes);
                offset = loader.load(bytes.flip(), loaded, "__transaction_state-0");
            }
        } catch (final java.io.IOException e) {
            throw new AssertionError(e);
        }
        return loaded;
    }

    @Test
    void errorCodesAreKafkas() {
        for (final TxnError e : TxnError.values()) {
            assertEquals(Errors.valueOf(e.name()).code(), e.code(), e.name());
        }
    }

    @Test
    void aTransactionIsCommittedThroughItsMarkersAndSurvivesAReload() {
        final TransactionManager.InitResult init = done(manager.initProducerId("app", 60_000, -1, (short) -1));
        assertEquals(TxnError.NONE, init.error());
        assertEquals(1000, init.producerId());
        assertEquals(0, init.producerEpoch());
        final long pid = init.producerId();
        final short epoch = init.producerEpoch();

        assertEquals(TxnError.NONE, done(manager.addPartitions("app", pid, epoch, Set.of(ORDERS0, ORDERS1),
            (short) 0)));
        produce(ORDERS0, pid, epoch, 0);
        produce(ORDERS1, pid, epoch, 0);
        assertEquals(0, data.get(ORDERS0).lastStableOffset(), "the open transaction holds the LSO");
        // Refusals, as Kafka's: a stale epoch, an unknown producer, an EndTxn of the other kind while one is prepared.
        assertEquals(TxnError.PRODUCER_FENCED, done(manager.addPartitions("app", pid, (short) (epoch - 1),
            Set.of(ORDERS0), (short) 0)));
        assertEquals(TxnError.INVALID_PRODUCER_ID_MAPPING, done(manager.addPartitions("app", pid + 1, epoch,
            Set.of(ORDERS0), (short) 0)));
        assertEquals(TxnError.INVALID_PRODUCER_ID_MAPPING, done(manager.endTransaction("nobody", pid, epoch, true,
            (short) 0)));

        failMarkers.set(3); // the leaders refuse three markers: retried until written
        final CompletableFuture<TxnError> commit = manager.endTransaction("app", pid, epoch, true, (short) 0);
        assertEquals(TxnError.NONE, done(commit), "answered once PrepareCommit is written");
        assertEquals(TransactionState.PREPARE_COMMIT, manager.metadata("app").orElseThrow().state());
        assertEquals(TxnError.CONCURRENT_TRANSACTIONS, done(manager.endTransaction("app", pid, epoch, true,
            (short) 0)), "markers in flight");
        thread.advance(1_000);
        assertEquals(TransactionState.COMPLETE_COMMIT, manager.metadata("app").orElseThrow().state());
        assertEquals(2, markerLog.size(), "one marker per partition: " + markerLog);
        assertEquals(data.get(ORDERS0).logEndOffset(), data.get(ORDERS0).lastStableOffset(), "committed");
        assertEquals(TxnError.NONE, done(manager.endTransaction("app", pid, epoch, true, (short) 0)),
            "a retried commit is done");
        assertEquals(TxnError.INVALID_TXN_STATE, done(manager.endTransaction("app", pid, epoch, false, (short) 0)));

        final TransactionMetadata loaded = reload().get("app");
        assertEquals(TransactionState.COMPLETE_COMMIT, loaded.state());
        assertEquals(pid, loaded.producerId());
        assertEquals(epoch, loaded.producerEpoch());
        assertEquals(Set.of(), loaded.partitions());
    }

    @Test
    void aNewInstanceFencesAndAbortsTheOpenTransaction() {
        final TransactionManager.InitResult first = done(manager.initProducerId("app", 60_000, -1, (short) -1));
        assertEquals(TxnError.NONE, done(manager.addPartitions("app", first.producerId(), first.producerEpoch(),
            Set.of(ORDERS0), (short) 0)));
        produce(ORDERS0, first.producerId(), first.producerEpoch(), 0);

        // The new instance is told to retry; meanwhile the old transaction is aborted under a bumped epoch.
        assertEquals(TxnError.CONCURRENT_TRANSACTIONS, done(manager.initProducerId("app", 60_000, -1,
            (short) -1)).error());
        thread.advance(1_000);
        assertEquals(List.of("ABORT orders-0 1000/1"), markerLog);
        assertEquals(TransactionState.COMPLETE_ABORT, manager.metadata("app").orElseThrow().state());
        final TransactionManager.InitResult second = done(manager.initProducerId("app", 60_000, -1, (short) -1));
        assertEquals(TxnError.NONE, second.error());
        assertEquals(first.producerId(), second.producerId());
        assertEquals(2, second.producerEpoch(), "bumped past the fence's epoch");
        // The zombie is fenced everywhere.
        assertEquals(TxnError.PRODUCER_FENCED, done(manager.addPartitions("app", first.producerId(),
            first.producerEpoch(), Set.of(ORDERS1), (short) 0)));
        assertEquals(TxnError.PRODUCER_FENCED, done(manager.endTransaction("app", first.producerId(),
            first.producerEpoch(), true, (short) 0)));
        assertEquals(data.get(ORDERS0).logEndOffset(), data.get(ORDERS0).lastStableOffset(), "aborted, decided");
    }

    @Test
    void aTransactionPastItsTimeoutIsAborted() {
        final TransactionManager.InitResult init = done(manager.initProducerId("slow", 1_000, -1, (short) -1));
        assertEquals(TxnError.NONE, done(manager.addPartitions("slow", init.producerId(), init.producerEpoch(),
            Set.of(ORDERS1), (short) 0)));
        thread.advance(500);
        assertEquals(0, manager.abortTimedOutTransactions(), "not yet");
        thread.advance(600);
        assertEquals(1, manager.abortTimedOutTransactions());
        thread.runPending();
        assertEquals(TransactionState.COMPLETE_ABORT, manager.metadata("slow").orElseThrow().state());
        assertEquals(List.of("ABORT orders-1 1000/1"), markerLog);
        assertEquals(TxnError.PRODUCER_FENCED, done(manager.endTransaction("slow", init.producerId(),
            init.producerEpoch(), true, (short) 0)), "the late producer finds itself fenced");
    }

    @Test
    void aFailedWriteChangesNothingAndTheRetrySucceeds() {
        failLogWrites.set(1);
        assertEquals(TxnError.COORDINATOR_NOT_AVAILABLE, done(manager.initProducerId("app", 60_000, -1,
            (short) -1)).error());
        assertEquals(0, stateLog.logEndOffset(), "nothing written");
        final TransactionManager.InitResult init = done(manager.initProducerId("app", 60_000, -1, (short) -1));
        assertEquals(TxnError.NONE, init.error());
        assertEquals(0, init.producerEpoch());
        failLogWrites.set(1);
        assertEquals(TxnError.COORDINATOR_NOT_AVAILABLE, done(manager.addPartitions("app", init.producerId(),
            init.producerEpoch(), Set.of(ORDERS0), (short) 0)));
        assertEquals(TransactionState.EMPTY, manager.metadata("app").orElseThrow().state());
        assertEquals(TxnError.INVALID_TXN_STATE, done(manager.endTransaction("app", init.producerId(),
            init.producerEpoch(), true, (short) 0)), "nothing to commit");
        assertEquals(TxnError.INVALID_TRANSACTION_TIMEOUT, done(manager.initProducerId("app", 900_001, -1,
            (short) -1)).error());
        assertEquals(TxnError.INVALID_REQUEST, done(manager.initProducerId("", 60_000, -1, (short) -1)).error());
    }

    @Test
    void aDeletedPartitionCompletesWithoutItsMarkerAndVersion2IsServedAsVersion1() {
        final TransactionManager.InitResult init = done(manager.initProducerId("app", 60_000, -1, (short) -1));
        final TopicPartition deleted = new TopicPartition("deleted", 0);
        assertEquals(TxnError.NONE, done(manager.addPartitions("app", init.producerId(), init.producerEpoch(),
            Set.of(ORDERS0, deleted), (short) 2)));
        assertEquals(TxnError.NONE, done(manager.endTransaction("app", init.producerId(), init.producerEpoch(), true,
            (short) 2)));
        thread.runPending();
        assertEquals(TransactionState.COMPLETE_COMMIT, manager.metadata("app").orElseThrow().state());
        assertEquals(List.of("COMMIT orders-0 1000/0"), markerLog, "no epoch bumped behind the client's back");
        assertEquals(TxnError.NONE, done(manager.addPartitions("app", init.producerId(), init.producerEpoch(),
            Set.of(ORDERS1), (short) 2)), "the same epoch goes on");
    }

    @Test
    void aNewCoordinatorFinishesAPreparedCommit() {
        final TransactionManager.InitResult init = done(manager.initProducerId("app", 60_000, -1, (short) -1));
        assertEquals(TxnError.NONE, done(manager.addPartitions("app", init.producerId(), init.producerEpoch(),
            Set.of(ORDERS0, ORDERS1), (short) 0)));
        produce(ORDERS0, init.producerId(), init.producerEpoch(), 0);
        failMarkers.set(Integer.MAX_VALUE); // the old coordinator never gets a marker through
        assertEquals(TxnError.NONE, done(manager.endTransaction("app", init.producerId(), init.producerEpoch(), true,
            (short) 0)));
        manager.stop(); // it loses the partition
        failMarkers.set(0);
        thread.advance(1_000);
        assertTrue(markerLog.isEmpty(), "the deposed coordinator wrote no marker");

        final TransactionManager next = newManager(6);
        assertEquals(TxnError.COORDINATOR_LOAD_IN_PROGRESS, done(next.endTransaction("app", init.producerId(),
            init.producerEpoch(), true, (short) 0)));
        final Map<String, TransactionMetadata> loaded = reload();
        assertEquals(TransactionState.PREPARE_COMMIT, loaded.get("app").state());
        thread.execute(() -> next.loaded(loaded));
        thread.advance(1_000);
        assertEquals(TransactionState.COMPLETE_COMMIT, next.metadata("app").orElseThrow().state());
        assertEquals(2, markerLog.size(), markerLog.toString());
        assertEquals(data.get(ORDERS0).logEndOffset(), data.get(ORDERS0).lastStableOffset());
        assertEquals(TransactionState.COMPLETE_COMMIT, reload().get("app").state());
    }
}
