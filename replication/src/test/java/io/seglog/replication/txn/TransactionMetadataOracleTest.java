package io.seglog.replication.txn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.seglog.storage.TopicPartition;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.coordinator.transaction.TxnTransitMetadata;
import org.apache.kafka.server.common.TransactionVersion;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's state machine against Kafka 4.4's {@code TransactionMetadata}, differentially: random sequences
 * of InitProducerId bumps and rotations, fences, AddPartitions, EndTxn commits and aborts (versions 0 to 2, epoch
 * overflows included), completions, partition removals and expirations, applied to Kafka's object and ours from the
 * same start. After every step both refuse alike (the same exception kind) or prepare the same transit, and after every
 * completion they hold the same fields.
 */
class TransactionMetadataOracleTest {
    private static final String ID = "txn-oracle";

    @Test
    void theSameStepsGiveTheSameTransitionsAsKafka() {
        final Map<TransactionState, Integer> completedInto = new EnumMap<>(TransactionState.class);
        int refusals = 0;
        for (long seed = 1; seed <= 400; seed++) {
            final SplittableRandom r = new SplittableRandom(seed);
            final short epoch = r.nextInt(4) == 0 ? (short) (Short.MAX_VALUE - r.nextInt(3)) : (short) r.nextInt(5);
            final short tv = (short) r.nextInt(3);
            final org.apache.kafka.coordinator.transaction.TransactionMetadata kafka =
                new org.apache.kafka.coordinator.transaction.TransactionMetadata(ID, 1000, -1, -1, epoch, (short) -1,
                    60_000, org.apache.kafka.coordinator.transaction.TransactionState.EMPTY, new HashSet<>(), -1, 5,
                    TransactionVersion.fromFeatureLevel(tv));
            final TransactionMetadata ours = new TransactionMetadata(ID, 1000, -1, -1, epoch, (short) -1, 60_000,
                TransactionState.EMPTY, Set.of(), -1, 5, tv);
            long now = 10;
            for (int step = 0; step < 60; step++) {
                now += r.nextInt(1, 100);
                final String at = "seed " + seed + " step " + step + " " + ours;
                final Outcome<TxnTransitMetadata> k;
                final Outcome<TransactionMetadata.Transit> o;
                final int op = r.nextInt(9);
                final long t = now;
                switch (op) {
                    case 0 -> {
                        final int timeout = r.nextInt(1, 100_000);
                        final Optional<Short> expected = r.nextBoolean() ? Optional.empty()
                            : Optional.of((short) (ours.producerEpoch() - r.nextInt(3)));
                        k = Outcome.of(() -> kafka.prepareIncrementProducerEpoch(timeout, expected, t));
                        o = Outcome.of(() -> ours.prepareIncrementProducerEpoch(timeout, expected, t));
                    }
                    case 1 -> {
                        final long pid = 2000 + r.nextInt(100);
                        final boolean recordLast = r.nextBoolean();
                        k = Outcome.of(() -> kafka.prepareProducerIdRotation(pid, 60_000, t, recordLast));
                        o = Outcome.of(() -> ours.prepareProducerIdRotation(pid, 60_000, t, recordLast));
                    }
                    case 2 -> {
                        k = Outcome.of(kafka::prepareFenceProducerEpoch);
                        o = Outcome.of(ours::prepareFenceProducerEpoch);
                    }
                    case 3, 4 -> {
                        final Set<TopicPartition> added = new HashSet<>();
                        for (int n = r.nextInt(1, 4); n > 0; n--) {
                            added.add(new TopicPartition("t" + r.nextInt(2), r.nextInt(3)));
                        }
                        final short version = r.nextInt(4) == 0 ? (short) r.nextInt(3) : tv;
                        k = Outcome.of(() -> kafka.prepareAddPartitions(kafka(added), t,
                            TransactionVersion.fromFeatureLevel(version)));
                        o = Outcome.of(() -> ours.prepareAddPartitions(added, t, version));
                    }
                    case 5 -> {
                        final boolean commit = r.nextBoolean();
                        final short version = r.nextInt(4) == 0 ? (short) r.nextInt(3) : tv;
                        final long next = r.nextBoolean() ? -1 : 3000 + r.nextInt(100);
                        final boolean noPartitionAdded = r.nextInt(4) == 0;
                        k = Outcome.of(() -> kafka.prepareAbortOrCommit(commit
                                ? org.apache.kafka.coordinator.transaction.TransactionState.PREPARE_COMMIT
                                : org.apache.kafka.coordinator.transaction.TransactionState.PREPARE_ABORT,
                            TransactionVersion.fromFeatureLevel(version), next, t, noPartitionAdded));
                        o = Outcome.of(() -> ours.prepareAbortOrCommit(commit ? TransactionState.PREPARE_COMMIT
                            : TransactionState.PREPARE_ABORT, version, next, t, noPartitionAdded));
                    }
                    case 6 -> {
                        k = Outcome.of(() -> kafka.prepareComplete(t));
                        o = Outcome.of(() -> ours.prepareComplete(t));
                    }
                    case 7 -> {
                        if (r.nextInt(8) == 0) {
                            k = Outcome.of(kafka::prepareDead);
                            o = Outcome.of(ours::prepareDead);
                        } else {
                            final TopicPartition tp = new TopicPartition("t" + r.nextInt(2), r.nextInt(3));
                            k = Outcome.of(() -> {
                                kafka.removePartition(new org.apache.kafka.common.TopicPartition(tp.topic(),
                                    tp.partition()));
                                return null;
                            });
                            o = Outcome.of(() -> {
                                ours.removePartition(tp);
                                return null;
                            });
                        }
                    }
                    default -> {
                        kafka.hasFailedEpochFence(true);
                        ours.epochFenceFailed();
                        continue;
                    }
                }
                assertEquals(k.kind(), o.kind(), at + ": op " + op + " " + k.failure + " / " + o.failure);
                if (k.value != null) {
                    assertSame(k.value, o.value, at + ": op " + op);
                    // Complete it (the record was written), or leave it pending (a write in flight) at random.
                    if (r.nextInt(5) > 0) {
                        final Outcome<Object> kc = Outcome.of(() -> {
                            kafka.completeTransitionTo(k.value);
                            return "";
                        });
                        final Outcome<Object> oc = Outcome.of(() -> {
                            ours.completeTransitionTo(o.value);
                            return "";
                        });
                        assertEquals(kc.kind(), oc.kind(), at + ": completing " + o.value + ": " + kc.failure + " / "
                            + oc.failure);
                        if (kc.value != null) {
                            completedInto.merge(ours.state(), 1, Integer::sum);
                        } else if (oc.failure != null) {
                            break; // both refused to complete: the run's objects are stuck, as Kafka's would be
                        }
                    }
                } else {
                    refusals++;
                }
                assertFields(kafka, ours, at);
            }
        }
        for (final TransactionState s : new TransactionState[] {TransactionState.EMPTY, TransactionState.ONGOING,
            TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT, TransactionState.COMPLETE_COMMIT,
            TransactionState.COMPLETE_ABORT}) {
            assertTrue(completedInto.getOrDefault(s, 0) > 20, "transitions completed into " + s + ": "
                + completedInto);
        }
        assertTrue(refusals > 100, "refusals " + refusals);
    }

    private static Set<org.apache.kafka.common.TopicPartition> kafka(final Set<TopicPartition> partitions) {
        return partitions.stream().map(p -> new org.apache.kafka.common.TopicPartition(p.topic(), p.partition()))
            .collect(Collectors.toSet());
    }

    private static Set<TopicPartition> ours(final Set<org.apache.kafka.common.TopicPartition> partitions) {
        return partitions.stream().map(p -> new TopicPartition(p.topic(), p.partition())).collect(Collectors.toSet());
    }

    private static void assertSame(final TxnTransitMetadata k, final TransactionMetadata.Transit o, final String at) {
        if (o == null) {
            fail(at + ": Kafka prepared " + k + ", ours nothing");
        }
        assertEquals(k.producerId(), o.producerId(), at + " producerId");
        assertEquals(k.prevProducerId(), o.previousProducerId(), at + " prevProducerId");
        assertEquals(k.nextProducerId(), o.nextProducerId(), at + " nextProducerId");
        assertEquals(k.producerEpoch(), o.producerEpoch(), at + " producerEpoch");
        assertEquals(k.lastProducerEpoch(), o.lastProducerEpoch(), at + " lastProducerEpoch");
        assertEquals(k.txnTimeoutMs(), o.timeoutMs(), at + " timeout");
        assertEquals(k.txnState().id(), o.state().id(), at + " state");
        assertEquals(ours(k.topicPartitions()), o.partitions(), at + " partitions");
        assertEquals(k.txnStartTimestamp(), o.startTimestampMs(), at + " start");
        assertEquals(k.txnLastUpdateTimestamp(), o.lastUpdateTimestampMs(), at + " lastUpdate");
        assertEquals(k.clientTransactionVersion().featureLevel(), o.clientVersion(), at + " clientVersion");
    }

    /** Kafka's metadata and ours hold the same fields (the loader's test compares its loads with it too). */
    static void assertFields(final org.apache.kafka.coordinator.transaction.TransactionMetadata k,
                             final TransactionMetadata o, final String at) {
        assertEquals(k.producerId(), o.producerId(), at);
        assertEquals(k.prevProducerId(), o.previousProducerId(), at);
        assertEquals(k.producerEpoch(), o.producerEpoch(), at);
        assertEquals(k.lastProducerEpoch(), o.lastProducerEpoch(), at);
        assertEquals(k.txnTimeoutMs(), o.timeoutMs(), at);
        assertEquals(k.state().id(), o.state().id(), at);
        assertEquals(k.pendingState().map(s -> (int) s.id()).orElse(-1),
            o.pendingState() == null ? -1 : o.pendingState().id(), at + " pending");
        assertEquals(ours(k.topicPartitions()), o.partitions(), at);
        assertEquals(k.txnStartTimestamp(), o.startTimestampMs(), at);
        assertEquals(k.txnLastUpdateTimestamp(), o.lastUpdateTimestampMs(), at);
        assertEquals(k.clientTransactionVersion().featureLevel(), o.clientVersion(), at);
    }

    /** A step's result: a value, or the kind of its refusal. */
    private static final class Outcome<T> {
        final T value;
        final RuntimeException failure;

        private Outcome(final T value, final RuntimeException failure) {
            this.value = value;
            this.failure = failure;
        }

        static <T> Outcome<T> of(final Supplier<T> step) {
            try {
                return new Outcome<>(step.get(), null);
            } catch (final RuntimeException e) {
                return new Outcome<>(null, e);
            }
        }

        String kind() {
            if (failure == null) {
                return "ok";
            }
            if (failure instanceof ProducerFencedException
                || failure instanceof TransactionMetadata.FencedProducerException) {
                return "fenced";
            }
            return failure.getClass().getSimpleName();
        }
    }
}
