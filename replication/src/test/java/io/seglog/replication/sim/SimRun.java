package io.seglog.replication.sim;

import io.seglog.storage.TopicPartition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import io.seglog.replication.replica.ReplicaError;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.protocol.Errors;

/**
 * One seeded run of a {@link SimCluster}: producers with acks=all, and a nemesis that crashes brokers (a process
 * crash, or a power loss that keeps only what was fsynced) and restarts them, expires ZooKeeper sessions (a
 * controller's too), cuts links one way or both and resets connections, for a simulated duration, while in half the
 * runs an operator creates a second topic through CreateTopics, which the clients then write and read too; then it
 * heals everything, waits for the replicas to agree, and checks the end invariants. The invariants after every event
 * are checked throughout.
 */
final class SimRun {
    /**
     * What came out of a run.
     *
     * @param seed        the seed
     * @param failure     the violation or failure, or null
     * @param digest      the trace digest (same seed, same digest)
     * @param events      events run
     * @param simulatedMs simulated time
     * @param acked       acknowledged records
     * @param faults      the faults injected, in order
     * @param retries     idempotent batches sent again with the same sequence
     * @param moved       partitions whose replicas at the end differ from those the topic was created with
     * @param consumed    records the consumers read
     * @param wireFrames  request and response frames the simulated network carried as bytes
     * @param topicsCreated topics an operator created during the run
     * @param createdTopicAcks acknowledgements of records in those topics
     * @param offsetCommits offset commits acknowledged to the standalone consumers
     * @param groupSyncs    assignments group members received (SyncGroup answered without error)
     */
    record Result(long seed, Throwable failure, long digest, long events, long simulatedMs, long acked,
                  List<String> faults, long retries, int moved, long consumed, long wireFrames, long topicsCreated,
                  long createdTopicAcks, long offsetCommits, long groupSyncs) {
        boolean failed() {
            return failure != null;
        }
    }

    private SimRun() {
    }

    /**
     * Runs one seed.
     *
     * @param seed       the seed
     * @param dir        a directory of its own for the brokers' disks (deleted after)
     * @param settings   the cluster
     * @param durationMs how long the faults and producers go on (simulated)
     * @return the result
     */
    static Result run(final long seed, final Path dir, final SimCluster.Settings settings, final long durationMs) {
        final List<String> faults = new ArrayList<>();
        SimCluster cluster = null;
        try {
            // Knobs drawn per seed, so that the seeds cover several shapes of run (FoundationDB's "buggify").
            final SplittableRandom knobs = new SplittableRandom(seed);
            final SimCluster.Settings chosen = settings.fetchMaxBytes() > 0 ? settings
                : settings.withFetchMaxBytes(knobs.nextBoolean() ? 1 << 20 : 512);
            final boolean acksOne = knobs.nextBoolean();
            final boolean operations = knobs.nextBoolean();
            final boolean idempotentProducers = knobs.nextBoolean();
            final Profile profile = new Profile(acksOne ? 4 : 0, operations, idempotentProducers, knobs.nextBoolean());
            cluster = new SimCluster(seed, dir, chosen);
            final SimCluster c = cluster;
            final SimScheduler sim = c.sim();
            c.start();
            final Map<Integer, List<Integer>> created = c.assignment().orElseThrow().partitions();
            final long start = sim.nowMs();
            final long end = start + durationMs;
            // Its own random, so that the workload's choices do not shift with the events' draws.
            final SplittableRandom workload = new SplittableRandom(seed ^ 0x5eed_1e55L);
            final long[] next = {0};
            scheduleProducer(c, workload, end, next, profile);
            // Two consumers read every partition throughout, one sending the leader epoch (KIP-320) and one not;
            // their own randoms keep the rest of the run as it would be without them.
            final SplittableRandom consumers = new SplittableRandom(seed ^ 0xc0_45e4L);
            for (final boolean withEpoch : new boolean[] {true, false}) {
                final Map<TopicPartition, long[]> positions = new HashMap<>();
                c.partitions().forEach(tp -> positions.put(tp, new long[] {0, 0}));
                scheduleConsumer(c, consumers, end, withEpoch, positions);
            }
            if (profile.idempotent()) {
                // Their own random too, so that the plain producers' choices stay as they were.
                final SplittableRandom idempotent = new SplittableRandom(seed ^ 0x1de4_9073_e47L);
                for (int name = 1; name <= 2; name++) {
                    final IdempotentProducer producer = new IdempotentProducer(name);
                    if (chosen.initProducerIds()) {
                        initProducerId(c, idempotent, end, producer);
                    } else {
                        producer.producerId = 1000 + name;
                    }
                    scheduleIdempotent(c, idempotent, end, producer);
                    if (chosen.initProducerIds()) {
                        scheduleProducerRestart(c, idempotent, end, producer);
                    }
                }
            }
            scheduleNemesis(c, workload, end, faults, profile);
            // An operator creates a second topic in half the runs over the wire, at a time of its own random's
            // choosing (before it, the run is the same as without it); producers and consumers take it up at once.
            final SplittableRandom topics = new SplittableRandom(seed ^ 0x70_91c5L);
            if (chosen.wire() && topics.nextBoolean()) {
                scheduleTopicCreation(c, topics, end, faults, topics.nextLong(durationMs / 2));
            }
            // In half the runs two standalone consumers commit offsets to their groups from a time of their own
            // random's choosing: the first FindCoordinator has a broker create __consumer_offsets, whose leaders'
            // coordinators then take the commits as acks=all writes.
            // In half the runs a group of three consumers joins, syncs and heartbeats (the classic protocol) and
            // commits in its generations, each member now and then restarting as a new one.
            final SplittableRandom membership = new SplittableRandom(seed ^ 0x3e3b_e45L);
            final Members members = chosen.wire() && membership.nextBoolean() && chosen.groupMembers()
                ? new Members(c, membership, end) : null;
            if (members != null) {
                members.start(membership.nextLong(durationMs / 2));
            }
            final SplittableRandom groups = new SplittableRandom(seed ^ 0x6_4007_c0L);
            final List<Committer> committers = new ArrayList<>();
            if (chosen.wire() && groups.nextBoolean()) {
                final long startAt = groups.nextLong(durationMs / 2);
                for (final String group : List.of("group-a", "group-b")) {
                    final Committer committer = new Committer(group, c.partitions().get(committers.size()
                        % c.partitions().size()));
                    committers.add(committer);
                    sim.schedule("committer start " + group, SimCluster.CLIENT, startAt, () -> {
                        c.awaitTopic("__consumer_offsets");
                        scheduleCommitter(c, groups, end, committer);
                    });
                }
            }
            sim.run(end);
            if (!c.healAndSettle(120_000)) {
                c.checkNoDivergence();
                throw new AssertionError("the cluster did not settle within 120 s after healing:"
                    + c.describe());
            }
            c.checkEnd();
            if (members != null) {
                members.checkConverged();
                members.checkDelivered();
            }
            for (final Committer committer : committers) {
                checkCommitted(c, committer);
            }
            final Map<Integer, List<Integer>> ended = c.assignment().orElseThrow().partitions();
            final int moved = (int) created.keySet().stream()
                .filter(p -> !new TreeSet<>(created.get(p)).equals(new TreeSet<>(ended.get(p)))).count();
            return new Result(seed, null, sim.digest(), sim.eventCount(), sim.nowMs() - start, c.acknowledgedCount(),
                faults, c.idempotentRetries(), moved, c.consumedCount(), c.wireFrames(), c.topicsCreated(),
                c.createdTopicAcks(), committers.stream().mapToLong(x -> x.acked).sum(),
                members == null ? 0 : members.syncs);
        } catch (final RuntimeException | AssertionError e) {
            final SimScheduler sim = cluster == null ? null : cluster.sim();
            return new Result(seed, e, sim == null ? 0 : sim.digest(), sim == null ? 0 : sim.eventCount(),
                0, cluster == null ? 0 : cluster.acknowledgedCount(), faults,
                cluster == null ? 0 : cluster.idempotentRetries(), 0, cluster == null ? 0 : cluster.consumedCount(),
                cluster == null ? 0 : cluster.wireFrames(), cluster == null ? 0 : cluster.topicsCreated(),
                cluster == null ? 0 : cluster.createdTopicAcks(), 0, 0);
        } finally {
            if (cluster != null) {
                cluster.close();
            }
            deleteTree(dir);
        }
    }

    /**
     * The shape of one run, drawn from its seed.
     *
     * @param acksOneEvery one record in this many is sent with acks=1 (0: none)
     * @param operations   whether controlled shutdowns, full disks and slow disks are among the faults
     * @param idempotent   whether two idempotent producers (acks=all, one batch in flight per partition, retried
     *                     with the same sequence until acknowledged) write beside the others
     * @param admin        whether an operator reassigns partitions (to two or three replicas, in any order) and asks
     *                     for preferred-leader elections among the faults
     */
    private record Profile(int acksOneEvery, boolean operations, boolean idempotent, boolean admin) {
    }

    /**
     * An idempotent producer as kafka-clients runs one with {@code max.in.flight.requests.per.connection=1}: per
     * partition one batch in flight, retried with the same sequence after a retriable error (after
     * {@value #RETRY_BACKOFF_MS} ms) or after {@value #REQUEST_TIMEOUT_MS} ms without an answer (a crashed leader, a cut
     * link; the late answer of a timed-out attempt is ignored, as the client closes that connection), until it is
     * acknowledged. It asks a broker for its producer id (InitProducerId: the broker hands one out of the block it
     * reserved in ZooKeeper) before its first batch, and now and then restarts as a new instance: in-flight batches
     * are abandoned and it starts over with a new id and sequence 0. Its epoch is 0.
     */
    private static final class IdempotentProducer {
        final int name;
        /** Its producer id, or -1 while it waits for one. */
        long producerId = -1;
        /** Bumped at each InitProducerId attempt and restart: an older attempt's answer is ignored. */
        int initAttempt;
        Map<TopicPartition, Lane> lanes = new HashMap<>();

        IdempotentProducer(final int name) {
            this.name = name;
        }
    }

    /** One partition's sequence of an idempotent producer. */
    private static final class Lane {
        int sequence;
        int attempt;
        boolean inFlight;
        boolean retry;
    }

    private static final long RETRY_BACKOFF_MS = 100;
    private static final long REQUEST_TIMEOUT_MS = 3_000;

    private static void scheduleProducer(final SimCluster c, final SplittableRandom r, final long end,
                                         final long[] counter, final Profile profile) {
        final SimScheduler sim = c.sim();
        final long delay = 5 + r.nextInt(20);
        if (sim.nowMs() + delay > end) {
            return;
        }
        sim.schedule("producer", SimCluster.CLIENT, delay, () -> {
            final List<TopicPartition> tps = c.partitions();
            final TopicPartition tp = tps.get(r.nextInt(tps.size()));
            final boolean acksOne = profile.acksOneEvery() > 0 && r.nextInt(profile.acksOneEvery()) == 0;
            c.produce(tp, "record-" + c.sim().seed() + "-" + counter[0]++, acksOne ? (short) 1 : (short) -1);
            scheduleProducer(c, r, end, counter, profile);
        });
    }

    /**
     * A consumer's next poll of one partition: position[0] is the next offset, position[1] 1 while a fetch is out.
     * It keeps polling through the healing (a fetch without an answer is given up after a while).
     */
    private static void scheduleConsumer(final SimCluster c, final SplittableRandom r, final long end,
                                         final boolean withEpoch, final Map<TopicPartition, long[]> positions) {
        final SimScheduler sim = c.sim();
        final long delay = 20 + r.nextInt(60);
        if (c.healing() || sim.nowMs() + delay > end + 60_000) {
            return;
        }
        sim.schedule("consumer", SimCluster.CLIENT, delay, () -> {
            final List<TopicPartition> tps = c.partitions();
            final TopicPartition tp = tps.get(r.nextInt(tps.size()));
            final long[] position = positions.computeIfAbsent(tp, k -> new long[] {0, 0});
            if (position[1] == 0 || sim.nowMs() - position[1] > REQUEST_TIMEOUT_MS) {
                final long sentAt = sim.nowMs();
                position[1] = sentAt;
                c.consume(tp, position[0], withEpoch, next -> {
                    if (position[1] == sentAt) {
                        position[1] = 0;
                        if (next >= 0) {
                            position[0] = next;
                        }
                    }
                });
            }
            scheduleConsumer(c, r, end, withEpoch, positions);
        });
    }

    /** InitProducerId to a broker drawn at random, again after a back-off or a timeout until an id comes. */
    private static void initProducerId(final SimCluster c, final SplittableRandom r, final long end,
                                       final IdempotentProducer producer) {
        final SimScheduler sim = c.sim();
        final int attempt = ++producer.initAttempt;
        final List<Integer> ids = c.brokerIds();
        final Runnable again = () -> sim.schedule("init-producer-id retry " + producer.name, SimCluster.CLIENT,
            RETRY_BACKOFF_MS, () -> {
                if (producer.initAttempt == attempt && sim.nowMs() < end + 60_000) {
                    initProducerId(c, r, end, producer);
                }
            });
        c.initProducerId(ids.get(r.nextInt(ids.size())), id -> {
            if (producer.initAttempt != attempt) {
                return;
            }
            if (id >= 0) {
                producer.producerId = id;
                producer.initAttempt++;
            } else {
                again.run(); // no id at hand yet (the broker is reserving a block): the client retries
            }
        });
        sim.schedule("init-producer-id timeout " + producer.name, SimCluster.CLIENT, REQUEST_TIMEOUT_MS, () -> {
            if (producer.initAttempt == attempt) {
                initProducerId(c, r, end, producer);
            }
        });
    }

    /** Now and then the producer's process restarts: in-flight batches are abandoned, a new id is asked for. */
    private static void scheduleProducerRestart(final SimCluster c, final SplittableRandom r, final long end,
                                                final IdempotentProducer producer) {
        final SimScheduler sim = c.sim();
        final long delay = 3_000 + r.nextInt(6_000);
        if (sim.nowMs() + delay > end) {
            return;
        }
        sim.schedule("idempotent producer restart " + producer.name, SimCluster.CLIENT, delay, () -> {
            for (final Lane lane : producer.lanes.values()) {
                lane.attempt++; // its pending retries and answers are the old instance's
                lane.inFlight = false;
            }
            producer.lanes = new HashMap<>();
            if (producer.producerId >= 0) {
                c.clientEnded(SimCluster.idempotentClientId(producer.producerId)); // the old process's connections
            }
            producer.producerId = -1;
            initProducerId(c, r, end, producer);
            scheduleProducerRestart(c, r, end, producer);
        });
    }

    private static void scheduleIdempotent(final SimCluster c, final SplittableRandom r, final long end,
                                           final IdempotentProducer producer) {
        final SimScheduler sim = c.sim();
        final long delay = 10 + r.nextInt(40);
        if (sim.nowMs() + delay > end) {
            return;
        }
        sim.schedule("idempotent producer " + producer.name, SimCluster.CLIENT, delay, () -> {
            final List<TopicPartition> tps = c.partitions();
            final TopicPartition tp = tps.get(r.nextInt(tps.size()));
            final Lane lane = producer.lanes.computeIfAbsent(tp, k -> new Lane());
            if (producer.producerId >= 0 && !lane.inFlight) {
                lane.inFlight = true;
                attempt(c, producer, tp, lane);
            }
            scheduleIdempotent(c, r, end, producer);
        });
    }

    /** Sends the lane's batch (again); an acknowledgement moves it to the next sequence. */
    private static void attempt(final SimCluster c, final IdempotentProducer producer, final TopicPartition tp,
                                final Lane lane) {
        final SimScheduler sim = c.sim();
        final int attempt = ++lane.attempt;
        final int sequence = lane.sequence;
        final long producerId = producer.producerId;
        if (lane.retry) {
            c.countIdempotentRetry();
        }
        lane.retry = true;
        final Runnable retry = () -> sim.schedule("idempotent retry " + producer.name, SimCluster.CLIENT,
            RETRY_BACKOFF_MS, () -> {
                if (lane.attempt == attempt) {
                    attempt(c, producer, tp, lane);
                }
            });
        final boolean sent = c.produceIdempotent(tp, producerId, sequence, result -> {
            if (lane.attempt != attempt) {
                return;
            }
            if (result != null && result.error() == ReplicaError.NONE) {
                lane.sequence++;
                lane.attempt++;
                lane.inFlight = false;
                lane.retry = false;
            } else if (result != null && (result.error() == ReplicaError.OUT_OF_ORDER_SEQUENCE_NUMBER
                || result.error() == ReplicaError.INVALID_PRODUCER_EPOCH)) {
                // Only acknowledged sequences come before this one, and every acknowledged batch is on every ISR
                // member: a leader that finds a gap has lost one of them, or the producer's state.
                throw new ReplicationInvariants.Violation("produce " + tp, "producer " + producerId
                    + " retrying sequence " + sequence + " was refused: " + result.error() + " " + result.message()
                    + "; its batches from sequence " + Math.max(0, sequence - 3) + " on (sequence@offset/epoch):"
                    + c.locateIdempotent(tp, producerId, Math.max(0, sequence - 3)) + c.describe());
            } else {
                retry.run();
            }
        });
        if (!sent) {
            retry.run();
            return;
        }
        sim.schedule("idempotent timeout " + producer.name, SimCluster.CLIENT, REQUEST_TIMEOUT_MS, () -> {
            if (lane.attempt == attempt) {
                attempt(c, producer, tp, lane);
            }
        });
    }

    /**
     * A consumer that commits one partition's offsets to its group without joining it (generation -1, as
     * {@code KafkaConsumer.assign} users commit), one request at a time, each offset above the last one sent; now and
     * then it reads its committed offset back. It finds its coordinator with FindCoordinator, and again after
     * NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE or {@value #REQUEST_TIMEOUT_MS} ms without an answer.
     */
    private static final class Committer {
        final String group;
        final TopicPartition tp;
        final String clientId;
        int coordinator = -1;
        boolean busy;
        int attempt;
        long maxSent = -1;
        /** The highest offset whose commit was answered without error (-1: none). */
        long lastAcked = -1;
        /** Offsets sent whose commit was not answered without error: each may have landed, now or later. */
        final Set<Long> uncertain = new TreeSet<>();
        final Set<Long> sent = new TreeSet<>();
        long commits;
        long acked;
        long reads;

        Committer(final String group, final TopicPartition tp) {
            this.group = group;
            this.tp = tp;
            this.clientId = "committer-" + group;
        }

        /** An answer read back: an offset this consumer committed, or none before any commit. */
        void checkRead(final long offset, final String where) {
            if (offset != -1 && !sent.contains(offset)) {
                throw new ReplicationInvariants.Violation("offset-fetch", group + " " + tp + ": " + where
                    + " answered committed offset " + offset + ", which was never committed (sent: " + sent + ")");
            }
        }
    }

    private static void scheduleCommitter(final SimCluster c, final SplittableRandom r, final long end,
                                          final Committer committer) {
        final SimScheduler sim = c.sim();
        final long delay = 50 + r.nextInt(200);
        if (sim.nowMs() + delay > end) {
            return;
        }
        sim.schedule("committer " + committer.group, SimCluster.CLIENT, delay, () -> {
            if (!committer.busy) {
                committerStep(c, r, committer, r.nextInt(4) == 0, null);
            }
            scheduleCommitter(c, r, end, committer);
        });
    }

    /**
     * One request of a committer: a FindCoordinator when it knows none, else a commit or (with {@code read}) a read of
     * its committed offset; {@code readBack} (for the end check) receives a read's offset.
     */
    private static void committerStep(final SimCluster c, final SplittableRandom r, final Committer committer,
                                      final boolean read, final java.util.function.LongConsumer readBack) {
        final SimScheduler sim = c.sim();
        final int mine = ++committer.attempt;
        committer.busy = true;
        final Runnable done = () -> committer.busy = false;
        final int coordinator = committer.coordinator;
        if (coordinator < 0) {
            final List<Integer> ids = c.brokerIds();
            c.findCoordinator(committer.clientId, ids.get(r.nextInt(ids.size())), committer.group, (error, id) -> {
                if (committer.attempt == mine) {
                    if (error == Errors.NONE) {
                        committer.coordinator = id;
                    }
                    done.run();
                }
            });
        } else if (read) {
            committer.reads++;
            c.fetchOffset(committer.clientId, coordinator, committer.group, committer.tp, (error, offset) -> {
                if (committer.attempt != mine) {
                    return;
                }
                if (error == Errors.NONE) {
                    committer.checkRead(offset, "broker " + coordinator);
                    if (readBack != null) {
                        readBack.accept(offset);
                    }
                } else if (error == Errors.NOT_COORDINATOR || error == Errors.COORDINATOR_NOT_AVAILABLE) {
                    committer.coordinator = -1;
                }
                done.run();
            });
        } else {
            final long offset = committer.maxSent + 1 + r.nextInt(5);
            committer.maxSent = offset;
            committer.sent.add(offset);
            committer.uncertain.add(offset);
            committer.commits++;
            c.commitOffset(committer.clientId, coordinator, committer.group, committer.tp, offset, error -> {
                if (error == Errors.NONE) {
                    // A late answer counts too: the offset was committed.
                    committer.uncertain.remove(offset);
                    committer.acked++;
                    committer.lastAcked = Math.max(committer.lastAcked, offset);
                }
                if (committer.attempt != mine) {
                    return;
                }
                if (error == Errors.NOT_COORDINATOR || error == Errors.COORDINATOR_NOT_AVAILABLE) {
                    committer.coordinator = -1;
                }
                done.run();
            });
        }
        sim.schedule("committer timeout " + committer.group, SimCluster.CLIENT, REQUEST_TIMEOUT_MS, () -> {
            if (committer.attempt == mine && committer.busy) {
                committer.coordinator = -1;
                done.run();
            }
        });
    }

    /**
     * After the cluster settled: the committed offset read back is the last one acknowledged, or a later one sent, or
     * an earlier one whose commit was never acknowledged (a request that reached a coordinator late lands over a newer
     * commit in Kafka too); anything else is an acknowledged commit lost.
     */
    private static void checkCommitted(final SimCluster c, final Committer committer) {
        if (committer.commits == 0) {
            return;
        }
        final SimScheduler sim = c.sim();
        final long[] read = {Long.MIN_VALUE};
        final SplittableRandom r = new SplittableRandom(committer.group.hashCode());
        final boolean answered = sim.runUntil(() -> {
            if (read[0] == Long.MIN_VALUE && !committer.busy) {
                committerStep(c, r, committer, true, offset -> read[0] = offset);
            }
            return read[0] != Long.MIN_VALUE;
        }, sim.nowMs() + 60_000);
        if (!answered) {
            throw new AssertionError(committer.group + ": no committed offset could be read within 60 s after the "
                + "cluster settled" + c.describe());
        }
        if (read[0] < committer.lastAcked && !committer.uncertain.contains(read[0])) {
            throw new ReplicationInvariants.Violation("the end", committer.group + " " + committer.tp
                + ": the committed offset read back is " + read[0] + " but " + committer.lastAcked
                + " was acknowledged (and " + read[0] + " was " + (read[0] == -1 ? "none" : "acknowledged before it")
                + "): an acknowledged commit was lost" + c.describe());
        }
    }

    /**
     * A consumer group of three members running the classic protocol as kafka-clients' ConsumerCoordinator does:
     * FindCoordinator, JoinGroup v9 (the first without a member id, answered MEMBER_ID_REQUIRED), SyncGroup v5 (the
     * leader assigns {@link SimCluster#TOPIC}'s partitions round-robin over the members in id order), Heartbeat v4
     * every second, and OffsetCommit v8 of its partitions in its generation; it joins again after
     * REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION or UNKNOWN_MEMBER_ID (the last with a new id), finds the coordinator
     * again after NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE or {@value #REQUEST_TIMEOUT_MS} ms without an answer,
     * and now and then restarts as a new member (the old one expires after its session). Checked: the assignments
     * delivered in one generation (SyncGroup answered without error, so the generation was written) give no
     * partition to two members and each member what that generation's leader assigned it.
     */
    private static final class Members {
        private static final String GROUP = "members";
        private static final int SESSION_MS = 10_000;
        private final SimCluster c;
        private final SplittableRandom r;
        private final long end;
        /** Members step until then: the end of the faults, or the end check's deadline. */
        private long until;
        private final List<Member> all = new ArrayList<>();
        /** Per generation, what its leader assigned (member id to partitions), as the leader sent it. */
        private final Map<Integer, Map<String, List<Integer>>> assigned = new HashMap<>();
        /** Per generation, partition to the member it was delivered to. */
        private final Map<Integer, Map<Integer, String>> delivered = new HashMap<>();
        long syncs;

        Members(final SimCluster c, final SplittableRandom r, final long end) {
            this.c = c;
            this.r = r;
            this.end = end;
            this.until = end;
        }

        void start(final long atMs) {
            for (int i = 0; i < 3; i++) {
                final Member m = new Member(i);
                all.add(m);
                m.ticking = true;
                c.sim().schedule("member start " + i, SimCluster.CLIENT, atMs, () -> {
                    c.awaitTopic("__consumer_offsets");
                    tick(m);
                });
            }
        }

        /** One member as a client process. */
        private final class Member {
            final int index;
            int incarnation;
            String memberId = "";
            int generation = -1;
            int coordinator = -1;
            boolean joined;
            boolean stable;
            Map<String, List<Integer>> toAssign = Map.of();
            List<Integer> owned = List.of();
            boolean busy;
            boolean ticking;
            int attempt;
            long lastHeartbeatMs;
            long commitOffset;

            Member(final int index) {
                this.index = index;
            }

            String clientId() {
                return "member-" + index + "-" + incarnation;
            }
        }

        private void tick(final Member m) {
            final SimScheduler sim = c.sim();
            final long delay = 100 + r.nextInt(200);
            if (sim.nowMs() + delay > until) {
                m.ticking = false;
                return;
            }
            sim.schedule("member " + m.index, SimCluster.CLIENT, delay, () -> {
                if (r.nextInt(150) == 0 && sim.nowMs() < end) {
                    // The process restarts: a new member; the old one expires after its session.
                    c.clientEnded(m.clientId());
                    m.incarnation++;
                    m.attempt++;
                    m.busy = false;
                    m.memberId = "";
                    m.joined = false;
                    m.stable = false;
                    m.coordinator = -1;
                } else if (!m.busy) {
                    step(m);
                }
                tick(m);
            });
        }

        private void rejoin(final Member m, final boolean newId) {
            m.joined = false;
            m.stable = false;
            if (newId) {
                m.memberId = "";
            }
        }

        /** Reacts to an error every request may answer; true when it was one of those. */
        private boolean common(final Member m, final Errors error) {
            if (error == Errors.NOT_COORDINATOR || error == Errors.COORDINATOR_NOT_AVAILABLE) {
                m.coordinator = -1;
                return true;
            }
            if (error == Errors.REBALANCE_IN_PROGRESS || error == Errors.ILLEGAL_GENERATION) {
                rejoin(m, false);
                return true;
            }
            if (error == Errors.UNKNOWN_MEMBER_ID || error == Errors.FENCED_INSTANCE_ID) {
                rejoin(m, true);
                return true;
            }
            return error == Errors.COORDINATOR_LOAD_IN_PROGRESS;
        }

        private void step(final Member m) {
            final SimScheduler sim = c.sim();
            final int mine = ++m.attempt;
            m.busy = true;
            final Runnable done = () -> {
                if (m.attempt == mine) {
                    m.busy = false;
                }
            };
            final int coordinator = m.coordinator;
            final String clientId = m.clientId();
            if (coordinator < 0) {
                final List<Integer> ids = c.brokerIds();
                c.findCoordinator(clientId, ids.get(r.nextInt(ids.size())), GROUP, (error, id) -> {
                    if (m.attempt == mine && error == Errors.NONE) {
                        m.coordinator = id;
                    }
                    done.run();
                });
            } else if (!m.joined) {
                final org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
                    new org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection();
                protocols.add(new org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol()
                    .setName("range").setMetadata(new byte[] {1}));
                c.request(clientId, coordinator, org.apache.kafka.common.protocol.ApiKeys.JOIN_GROUP, (short) 9,
                    new org.apache.kafka.common.message.JoinGroupRequestData().setGroupId(GROUP)
                        .setSessionTimeoutMs(SESSION_MS).setRebalanceTimeoutMs(SESSION_MS).setMemberId(m.memberId)
                        .setGroupInstanceId(null).setProtocolType("consumer").setProtocols(protocols).setReason("sim"),
                    "JoinGroup",
                    answer -> {
                        if (m.attempt != mine) {
                            return;
                        }
                        final org.apache.kafka.common.message.JoinGroupResponseData resp =
                            (org.apache.kafka.common.message.JoinGroupResponseData) answer;
                        final Errors error = Errors.forCode(resp.errorCode());
                        if (error == Errors.MEMBER_ID_REQUIRED) {
                            m.memberId = resp.memberId();
                        } else if (error == Errors.NONE) {
                            m.memberId = resp.memberId();
                            m.generation = resp.generationId();
                            m.joined = true;
                            m.toAssign = Map.of();
                            if (resp.leader().equals(resp.memberId())) {
                                final List<String> ids = resp.members().stream()
                                    .map(org.apache.kafka.common.message.JoinGroupResponseData
                                        .JoinGroupResponseMember::memberId).sorted().toList();
                                final Map<String, List<Integer>> plan = new java.util.TreeMap<>();
                                ids.forEach(id -> plan.put(id, new ArrayList<>()));
                                for (int p = 0; p < c.partitionCount(SimCluster.TOPIC); p++) {
                                    plan.get(ids.get(p % ids.size())).add(p);
                                }
                                m.toAssign = plan;
                            }
                        } else if (!common(m, error)) {
                            rejoin(m, false);
                        }
                        done.run();
                    });
            } else if (!m.stable) {
                final org.apache.kafka.common.message.SyncGroupRequestData data =
                    new org.apache.kafka.common.message.SyncGroupRequestData().setGroupId(GROUP)
                        .setGenerationId(m.generation).setMemberId(m.memberId).setGroupInstanceId(null)
                        .setProtocolType("consumer").setProtocolName("range");
                final Map<String, List<Integer>> plan = m.toAssign;
                plan.forEach((id, ps) -> data.assignments().add(
                    new org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment()
                        .setMemberId(id).setAssignment(encode(ps))));
                final int generation = m.generation;
                final String memberId = m.memberId;
                c.request(clientId, coordinator, org.apache.kafka.common.protocol.ApiKeys.SYNC_GROUP, (short) 5, data,
                    "SyncGroup",
                    answer -> {
                        final org.apache.kafka.common.message.SyncGroupResponseData resp =
                            (org.apache.kafka.common.message.SyncGroupResponseData) answer;
                        final Errors error = Errors.forCode(resp.errorCode());
                        if (error == Errors.NONE) {
                            if (!plan.isEmpty()) {
                                assigned.putIfAbsent(generation, plan);
                            }
                            delivered(generation, memberId, decode(resp.assignment()));
                        }
                        if (m.attempt != mine) {
                            return;
                        }
                        if (error == Errors.NONE) {
                            m.owned = decode(resp.assignment());
                            m.stable = true;
                            m.lastHeartbeatMs = sim.nowMs();
                        } else if (!common(m, error)) {
                            rejoin(m, false);
                        }
                        done.run();
                    });
            } else if (sim.nowMs() - m.lastHeartbeatMs >= 1_000 || m.owned.isEmpty()) {
                m.lastHeartbeatMs = sim.nowMs();
                c.request(clientId, coordinator, org.apache.kafka.common.protocol.ApiKeys.HEARTBEAT, (short) 4,
                    new org.apache.kafka.common.message.HeartbeatRequestData().setGroupId(GROUP)
                        .setGenerationId(m.generation).setMemberId(m.memberId).setGroupInstanceId(null), "Heartbeat",
                    answer -> {
                        if (m.attempt != mine) {
                            return;
                        }
                        common(m, Errors.forCode(((org.apache.kafka.common.message.HeartbeatResponseData) answer)
                            .errorCode()));
                        done.run();
                    });
            } else {
                m.commitOffset += 1 + r.nextInt(5);
                final org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic topic =
                    new org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic()
                        .setName(SimCluster.TOPIC);
                for (final int p : m.owned) {
                    topic.partitions().add(new org.apache.kafka.common.message.OffsetCommitRequestData
                        .OffsetCommitRequestPartition().setPartitionIndex(p).setCommittedOffset(m.commitOffset)
                        .setCommittedLeaderEpoch(-1).setCommittedMetadata(""));
                }
                c.request(clientId, coordinator, org.apache.kafka.common.protocol.ApiKeys.OFFSET_COMMIT, (short) 8,
                    new org.apache.kafka.common.message.OffsetCommitRequestData().setGroupId(GROUP)
                        .setGenerationIdOrMemberEpoch(m.generation).setMemberId(m.memberId).setGroupInstanceId(null)
                        .setTopics(List.of(topic)), "OffsetCommit",
                    answer -> {
                        if (m.attempt != mine) {
                            return;
                        }
                        for (final var t : ((org.apache.kafka.common.message.OffsetCommitResponseData) answer)
                            .topics()) {
                            for (final var p : t.partitions()) {
                                common(m, Errors.forCode(p.errorCode()));
                            }
                        }
                        done.run();
                    });
            }
            // A JoinGroup may wait for the rebalance: kafka-clients gives it the rebalance timeout and 5 s more.
            final long timeoutMs = coordinator >= 0 && !m.joined ? SESSION_MS + 5_000 : REQUEST_TIMEOUT_MS;
            sim.schedule("member timeout " + m.index, SimCluster.CLIENT, timeoutMs, () -> {
                if (m.attempt == mine && m.busy) {
                    m.coordinator = -1;
                    m.busy = false;
                }
            });
        }

        /** A member got its assignment in a generation: no partition to two members, what the leader assigned. */
        private void delivered(final int generation, final String memberId, final List<Integer> partitions) {
            syncs++;
            final Map<String, List<Integer>> plan = assigned.get(generation);
            if (plan != null && plan.containsKey(memberId) && !plan.get(memberId).equals(partitions)) {
                throw new ReplicationInvariants.Violation("sync-group", GROUP + " generation " + generation + ": "
                    + memberId + " was given " + partitions + " but its leader assigned it " + plan.get(memberId)
                    + c.describe());
            }
            final Map<Integer, String> owners = delivered.computeIfAbsent(generation, g -> new HashMap<>());
            for (final int p : partitions) {
                final String other = owners.putIfAbsent(p, memberId);
                if (other != null && !other.equals(memberId)) {
                    throw new ReplicationInvariants.Violation("sync-group", GROUP + " generation " + generation
                        + ": partition " + p + " was given to " + memberId + " and to " + other + c.describe());
                }
            }
        }

        /**
         * After the cluster settled (and the members stopped restarting): within 60 s every member is Stable in one
         * generation, owning {@link SimCluster#TOPIC}'s partitions between them, each once.
         */
        void checkConverged() {
            if (all.stream().allMatch(m -> m.memberId.isEmpty() && !m.joined)) {
                return; // the group never started (the run ended first)
            }
            final SimScheduler sim = c.sim();
            until = sim.nowMs() + 60_000;
            for (final Member m : all) {
                if (!m.ticking) {
                    m.ticking = true;
                    tick(m);
                }
            }
            if (!sim.runUntil(this::converged, until)) {
                final StringBuilder state = new StringBuilder();
                all.forEach(m -> state.append("\nmember ").append(m.index).append(" id=").append(m.memberId)
                    .append(" generation=").append(m.generation).append(" coordinator=").append(m.coordinator)
                    .append(" joined=").append(m.joined).append(" stable=").append(m.stable).append(" owns=")
                    .append(m.owned));
                throw new AssertionError(GROUP + " did not converge within 60 s after the cluster settled:" + state
                    + c.describe());
            }
            until = sim.nowMs(); // the members stop
        }

        private boolean converged() {
            final int generation = all.get(0).generation;
            final java.util.Set<Integer> owned = new java.util.TreeSet<>();
            int count = 0;
            for (final Member m : all) {
                if (!m.stable || m.generation != generation) {
                    return false;
                }
                owned.addAll(m.owned);
                count += m.owned.size();
            }
            return count == owned.size() && owned.size() == c.partitionCount(SimCluster.TOPIC);
        }

        /** After the run: every delivered assignment matches the plan its generation's leader sent. */
        void checkDelivered() {
            delivered.forEach((generation, owners) -> {
                final Map<String, List<Integer>> plan = assigned.get(generation);
                if (plan == null) {
                    return;
                }
                owners.forEach((p, memberId) -> {
                    if (!plan.getOrDefault(memberId, List.of()).contains(p)) {
                        throw new ReplicationInvariants.Violation("the end", GROUP + " generation " + generation
                            + ": partition " + p + " was given to " + memberId + " but its leader assigned " + plan);
                    }
                });
            });
        }

        private static byte[] encode(final List<Integer> partitions) {
            final java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(4 * partitions.size());
            partitions.forEach(b::putInt);
            return b.array();
        }

        private static List<Integer> decode(final byte[] bytes) {
            final List<Integer> out = new ArrayList<>();
            final java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(bytes == null ? new byte[0] : bytes);
            while (b.remaining() >= 4) {
                out.add(b.getInt());
            }
            return out;
        }
    }

    /** The second topic's name. */
    static final String CREATED_TOPIC = "created";

    /**
     * The operator creates {@value #CREATED_TOPIC} (one to three partitions, two or three replicas, by count or by an
     * explicit assignment) through a broker drawn at random, and asks again, of another broker drawn, after a retriable
     * error or {@value #ADMIN_TIMEOUT_MS} ms without an answer (the AdminClient's retries), until it has an answer:
     * created, or already there (an earlier attempt's). A topic the broker reports created must be in ZooKeeper as it
     * was asked for.
     */
    private static void scheduleTopicCreation(final SimCluster c, final SplittableRandom r, final long end,
                                              final List<String> faults, final long atMs) {
        final List<Integer> ids = c.brokerIds();
        final int partitions = 1 + r.nextInt(3);
        final int replicationFactor = 2 + r.nextInt(ids.size() - 1);
        final CreateTopicsRequestData.CreatableTopic request = new CreateTopicsRequestData.CreatableTopic()
            .setName(CREATED_TOPIC);
        if (r.nextBoolean()) {
            request.setNumPartitions(partitions).setReplicationFactor((short) replicationFactor);
        } else {
            request.setNumPartitions(-1).setReplicationFactor((short) -1);
            for (int p = 0; p < partitions; p++) {
                final List<Integer> shuffled = new ArrayList<>(ids);
                for (int i = shuffled.size() - 1; i > 0; i--) {
                    final int j = r.nextInt(i + 1);
                    shuffled.set(i, shuffled.set(j, shuffled.get(i)));
                }
                request.assignments().add(new CreateTopicsRequestData.CreatableReplicaAssignment().setPartitionIndex(p)
                    .setBrokerIds(List.copyOf(shuffled.subList(0, replicationFactor))));
            }
        }
        final int[] attempt = {0};
        final boolean[] done = {false};
        final Runnable[] ask = new Runnable[1];
        ask[0] = () -> {
            if (done[0] || c.sim().nowMs() > end + 120_000) {
                return;
            }
            final int mine = ++attempt[0];
            final int broker = ids.get(r.nextInt(ids.size()));
            faults.add(c.sim().nowMs() + " create topic " + CREATED_TOPIC + " at " + broker + " (" + (request
                .assignments().isEmpty() ? partitions + "x" + replicationFactor : "assigned") + ")");
            c.createTopic(broker, CREATED_TOPIC, request, 5_000, result -> {
                if (done[0] || attempt[0] != mine) {
                    return;
                }
                final Errors error = Errors.forCode(result.errorCode());
                if (error == Errors.NONE) {
                    c.checkCreatedTopic(CREATED_TOPIC, request);
                }
                if (error == Errors.NONE || error == Errors.TOPIC_ALREADY_EXISTS
                    || (error == Errors.REQUEST_TIMED_OUT && c.assignment(CREATED_TOPIC).isPresent())) {
                    done[0] = true;
                    faults.add(c.sim().nowMs() + " topic " + CREATED_TOPIC + " answered " + error);
                    c.topicCreationAnswered(CREATED_TOPIC);
                } else if (RETRIABLE_CREATE.contains(error)) {
                    // Too few brokers registered for the factor or the assignment, ZooKeeper lost under the broker,
                    // or no leaders in time: the operator asks again after a back-off.
                    attempt[0]++;
                    c.sim().schedule("create-topics retry", SimCluster.CLIENT, 1_000, ask[0]);
                } else {
                    throw new ReplicationInvariants.Violation("create-topics", "broker " + broker + " refused the "
                        + "operator's topic " + request + ": " + error + " " + result.errorMessage());
                }
            });
            c.sim().schedule("create-topics timeout", SimCluster.CLIENT, ADMIN_TIMEOUT_MS, () -> {
                if (!done[0] && attempt[0] == mine) {
                    ask[0].run();
                }
            });
        };
        c.sim().schedule("create topic", SimCluster.CLIENT, atMs, ask[0]);
    }

    /** The errors after which the operator asks again (any other answer to a valid request is a violation). */
    private static final Set<Errors> RETRIABLE_CREATE = Set.of(Errors.INVALID_REPLICATION_FACTOR,
        Errors.INVALID_REPLICA_ASSIGNMENT, Errors.UNKNOWN_SERVER_ERROR, Errors.REQUEST_TIMED_OUT, Errors.NOT_CONTROLLER);

    /** How long the operator's client waits for a CreateTopics answer before it asks again. */
    private static final long ADMIN_TIMEOUT_MS = 10_000;

    /** Crashes a broker now (a process crash, or a power loss when the run allows it) and restarts it later. */
    private static void crashAndRestart(final SimCluster c, final SplittableRandom r, final int target,
                                        final List<String> faults, final String why) {
        final SimScheduler sim = c.sim();
        final List<Integer> ids = c.brokerIds();
        final long down = ids.stream().filter(id -> !c.node(id).up).count();
        if (c.healing() || !c.node(target).up || down >= ids.size() - 1) {
            return;
        }
        final boolean powerLoss = r.nextBoolean() && c.powerLoss();
        faults.add(sim.nowMs() + " crash " + target + (powerLoss ? " (power loss)" : "") + why);
        c.crash(target, powerLoss);
        sim.schedule("restart " + target, target, 100 + r.nextInt(4_000), () -> {
            faults.add(sim.nowMs() + " restart " + target);
            c.restart(target);
        });
    }

    private static void scheduleNemesis(final SimCluster c, final SplittableRandom r, final long end,
                                        final List<String> faults, final Profile profile) {
        final SimScheduler sim = c.sim();
        // A leader that has just taken a follower back into its ISR sometimes dies at once: the window where a
        // follower that joined too early (KAFKA-7128) is all that is left.
        c.onIsrExpanded((leader, tp) -> {
            if (sim.nowMs() < end && r.nextInt(4) == 0) {
                sim.schedule("nemesis after ISR expansion", SimScheduler.NO_NODE, r.nextInt(30),
                    () -> crashAndRestart(c, r, leader, faults, " (just expanded the ISR of " + tp + ")"));
            }
        });
        scheduleFaults(c, r, end, faults, profile);
    }

    private static void scheduleFaults(final SimCluster c, final SplittableRandom r, final long end,
                                       final List<String> faults, final Profile profile) {
        final SimScheduler sim = c.sim();
        final long delay = 200 + r.nextInt(2_000);
        if (sim.nowMs() + delay > end) {
            return;
        }
        sim.schedule("nemesis", SimScheduler.NO_NODE, delay, () -> {
            final List<Integer> ids = c.brokerIds();
            final int target = ids.get(r.nextInt(ids.size()));
            // The same draws as before for the kinds a profile leaves out, so that seeds keep their runs.
            int kind = r.nextInt(12 + (profile.operations() ? 3 : 0) + (profile.admin() ? 2 : 0));
            if (kind >= 12 && !profile.operations()) {
                kind += 3;
            }
            if (kind < 4) {
                crashAndRestart(c, r, target, faults, "");
            } else if (kind < 5 && c.node(target).up) {
                faults.add(sim.nowMs() + " session expiry " + target);
                c.expireSession(target);
            } else if (kind < 6) {
                c.activeController().ifPresent(controller -> {
                    faults.add(sim.nowMs() + " controller session expiry " + controller);
                    c.expireSession(controller);
                });
            } else if (kind < 7) {
                // The controller stops for longer than its session just as a broker's failure reaches it; the
                // broker comes back meanwhile and another controller finds nothing to do: the resumed zombie then
                // acts on the failure it was holding (KAFKA-6082).
                c.activeController().ifPresent(controller -> {
                    final int victim = ids.get(r.nextInt(ids.size()));
                    if (victim != controller) {
                        final long pauseMs = 4_500 + r.nextInt(4_000);
                        faults.add(sim.nowMs() + " pause " + controller + " for " + pauseMs + " ms at its next work");
                        c.pauseOnControllerWork(controller, pauseMs);
                        crashAndRestart(c, r, victim, faults, " (its controller stops)");
                    }
                });
            } else if (kind < 8) {
                // A long stop of the controller, and meanwhile another broker dies: the controller resumes as a
                // zombie with that broker's failure to handle before it hears that its session expired.
                final int paused = c.activeController().orElse(target);
                final long pauseMs = 1_000 + r.nextInt(7_000);
                faults.add(sim.nowMs() + " pause " + paused + " for " + pauseMs + " ms");
                c.pause(paused, pauseMs);
                final int victim = ids.get(r.nextInt(ids.size()));
                if (victim != paused && r.nextBoolean()) {
                    sim.schedule("nemesis during pause", SimScheduler.NO_NODE, r.nextInt(3_000),
                        () -> crashAndRestart(c, r, victim, faults, " (during a pause of " + paused + ")"));
                }
            } else if (kind == 12) {
                final long down = ids.stream().filter(id -> !c.node(id).up).count();
                if (c.node(target).up && down < ids.size() - 1) {
                    faults.add(sim.nowMs() + " controlled shutdown " + target);
                    c.controlledShutdown(target, 3, () -> {
                        faults.add(sim.nowMs() + " stopped " + target);
                        sim.schedule("restart " + target, target, 500 + r.nextInt(3_000), () -> {
                            faults.add(sim.nowMs() + " restart " + target);
                            c.restart(target);
                        });
                    });
                }
            } else if (kind == 13) {
                if (c.node(target).up) {
                    // The disk fills: its writes fail and its log directory goes offline; the operator frees space
                    // and restarts the broker a little later.
                    faults.add(sim.nowMs() + " disk full " + target);
                    c.fillDisk(target);
                    sim.schedule("free disk " + target, SimScheduler.NO_NODE, 500 + r.nextInt(3_000),
                        () -> crashAndRestart(c, r, target, faults, " (to free its disk)"));
                }
            } else if (kind == 14) {
                if (c.node(target).up) {
                    final long slowMs = 1_000 + r.nextInt(5_000);
                    final long fsyncMs = 50 + r.nextInt(1_000);
                    final long writeMs = 1 + r.nextInt(50);
                    faults.add(sim.nowMs() + " slow disk " + target + " for " + slowMs + " ms (fsync " + fsyncMs
                        + " ms, write " + writeMs + " ms)");
                    c.slowDisk(target, slowMs, fsyncMs, writeMs);
                }
            } else if (kind == 15) {
                // Move a partition to two or three of the brokers, in any order: replicas are added (they catch up
                // from nothing and join the ISR) and removed (their logs deleted), and the leader may move.
                final List<TopicPartition> tps = c.partitions();
                final TopicPartition tp = tps.get(r.nextInt(tps.size()));
                final List<Integer> shuffled = new ArrayList<>(ids);
                for (int i = shuffled.size() - 1; i > 0; i--) {
                    final int j = r.nextInt(i + 1);
                    shuffled.set(i, shuffled.set(j, shuffled.get(i)));
                }
                final List<Integer> chosen = List.copyOf(shuffled.subList(0, 2 + r.nextInt(ids.size() - 1)));
                if (c.reassign(tp, chosen)) {
                    faults.add(sim.nowMs() + " reassign " + tp + " to " + chosen);
                }
            } else if (kind == 16) {
                final Set<TopicPartition> all = new TreeSet<>(ReplicationInvariants.BY_TP);
                all.addAll(c.partitions());
                if (c.requestPreferredElection(all)) {
                    faults.add(sim.nowMs() + " preferred election");
                }
            } else {
                final int other = ids.get(r.nextInt(ids.size()));
                if (other != target) {
                    final boolean oneWay = r.nextBoolean();
                    faults.add(sim.nowMs() + " cut " + target + (oneWay ? ">" : "<>") + other);
                    c.cut(target, other);
                    if (!oneWay) {
                        c.cut(other, target);
                    }
                    sim.schedule("heal " + target + "-" + other, SimScheduler.NO_NODE, 500 + r.nextInt(4_000),
                        () -> {
                            faults.add(sim.nowMs() + " heal links");
                            c.healLinks();
                        });
                } else if (c.node(target).up) {
                    // No draw of its own, so that the object transport (seeds 1056, 2199) keeps its runs.
                    final int reset = c.resetConnections(target);
                    if (reset > 0) {
                        faults.add(sim.nowMs() + " reset " + target + "'s " + reset + " connections");
                    }
                }
            }
            scheduleFaults(c, r, end, faults, profile);
        });
    }

    private static void deleteTree(final Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(final Path file, final BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(final Path d, final IOException e) throws IOException {
                    Files.delete(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
