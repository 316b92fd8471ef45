package io.seglog.replication.data;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A history checker for a consumer group under churn: it is told every acknowledged produce and everything each member
 * saw (assignments, revocations, every record polled with the generation the member was in, every commit sent and
 * whether it was acknowledged), in the order the events happened, and {@link #check} replays them against the
 * guarantees a Kafka group gives:
 * <ul>
 *   <li>a member is handed records only of partitions it owns (between its assignment and its revocation or close);
 *   <li>no partition is consumed by two members in one generation (a static member's incarnations are one member);
 *   <li>within one ownership the offsets follow each other (no gap, no step back);
 *   <li>an owner starts at or before the last commit that could have been in force (the largest commit sent before
 *       its first record, whatever its outcome: a commit whose answer was lost, refused after a retry or never
 *       reported by a killed member may have been written; offset 0 when there was none): nothing is skipped past
 *       what someone committed;
 *   <li>re-delivery stays within the uncommitted window: an owner is never handed an offset below the largest commit
 *       acknowledged before it took the partition;
 *   <li>a killed member's commit, sent when it comes back after its session expired (a zombie's), is refused (the
 *       generation a member reports cannot judge other commits: kafka-clients sends the generation its heartbeat thread
 *       last synced, which can be ahead of {@code groupMetadata()} until the next poll);
 *   <li>each offset holds the value that was acknowledged there, every acknowledged record was consumed, and the group's
 *       final committed offsets are the partitions' end offsets.
 * </ul>
 * The order is the order of the calls; a member's acknowledgement may be recorded later than it happened, which only
 * makes the lower bound (commits acknowledged before an assignment) smaller, so no correct history fails. Thread-safe: the recording methods are synchronized.
 */
final class ChurnChecker {
    private sealed interface Event permits Produced, Owned, Polled, CommitSent, CommitDone, Killed, Closed {
    }

    private record Produced(int partition, long offset, long value) implements Event {
    }

    /** An assignment ({@code gained}) or a revocation or loss. */
    private record Owned(String member, int generation, int[] partitions, boolean gained) implements Event {
    }

    private record Polled(String member, int generation, int partition, long offset, long value) implements Event {
    }

    private record CommitSent(String member, long id, int generation, Map<Integer, Long> offsets) implements Event {
    }

    private record CommitDone(String member, long id, boolean acknowledged) implements Event {
    }

    private record Killed(String member) implements Event {
    }

    private record Closed(String member) implements Event {
    }

    /** One member's ownership of one partition, from its assignment to its revocation. */
    private static final class Ownership {
        final int generation;
        /** The largest commit acknowledged before the assignment: nothing below it may be handed out again. */
        final long floor;
        long first = -1;
        long last = -1;

        Ownership(final int generation, final long floor) {
            this.generation = generation;
            this.floor = floor;
        }
    }

    private final List<Event> events = new ArrayList<>();
    /** Member (one run of a consumer) to the identity the generation rule compares: the instance id when static. */
    private final Map<String, String> identities = new HashMap<>();
    /** Failed commits by the exception kafka-clients gave (for the summary). */
    private final Map<String, Integer> failures = new TreeMap<>();

    /**
     * Names a member; a member never named is its own identity.
     *
     * @param member   one run of a consumer
     * @param identity what makes two runs the same member (a static member's {@code group.instance.id})
     */
    synchronized void member(final String member, final String identity) {
        identities.put(member, identity);
    }

    /** A produce acknowledged at this offset. */
    synchronized void produced(final int partition, final long offset, final long value) {
        events.add(new Produced(partition, offset, value));
    }

    /** The partitions given to a member ({@code onPartitionsAssigned}). */
    synchronized void assigned(final String member, final int generation, final int... partitions) {
        events.add(new Owned(member, generation, partitions.clone(), true));
    }

    /** The partitions taken from a member ({@code onPartitionsRevoked} or {@code onPartitionsLost}). */
    synchronized void revoked(final String member, final int generation, final int... partitions) {
        events.add(new Owned(member, generation, partitions.clone(), false));
    }

    /** A record a member's poll returned. */
    synchronized void polled(final String member, final int generation, final int partition, final long offset,
                             final long value) {
        events.add(new Polled(member, generation, partition, offset, value));
    }

    /** A commit about to be sent (partition to the next offset to read). */
    synchronized void commitSent(final String member, final long id, final int generation,
                                 final Map<Integer, Long> offsets) {
        events.add(new CommitSent(member, id, generation, Map.copyOf(offsets)));
    }

    /** A commit's outcome. */
    synchronized void commitDone(final String member, final long id, final boolean acknowledged) {
        events.add(new CommitDone(member, id, acknowledged));
    }

    /** A member stopped dead (it polls, heartbeats and commits nothing until the test lets it close). */
    synchronized void killed(final String member) {
        events.add(new Killed(member));
    }

    /** A member's consumer closed (or was abandoned): it owns nothing any more. */
    synchronized void closed(final String member) {
        events.add(new Closed(member));
    }

    /**
     * Records one event of {@code ConsumerDriver}'s sink.
     *
     * @param member  the member that reported it
     * @param kind    the driver's event kind
     * @param numbers its numbers
     */
    synchronized void driverEvent(final String member, final String kind, final long[] numbers) {
        if (kind.startsWith("commitFailed:")) {
            failures.merge(kind.substring("commitFailed:".length()), 1, Integer::sum);
            commitDone(member, numbers[0], false);
            return;
        }
        switch (kind) {
            case "assigned" -> assigned(member, (int) numbers[0], partitions(numbers));
            case "revoked", "lost" -> revoked(member, (int) numbers[0], partitions(numbers));
            case "polled" -> polled(member, (int) numbers[0], (int) numbers[1], numbers[2], numbers[3]);
            case "commitSent" -> {
                final Map<Integer, Long> offsets = new HashMap<>();
                for (int i = 2; i < numbers.length; i += 2) {
                    offsets.put((int) numbers[i], numbers[i + 1]);
                }
                commitSent(member, numbers[0], (int) numbers[1], offsets);
            }
            case "committed" -> commitDone(member, numbers[0], true);
            case "closed" -> closed(member);
            case "killed" -> killed(member);
            default -> throw new IllegalArgumentException("unknown event kind=" + kind + " from member " + member);
        }
    }

    private static int[] partitions(final long[] numbers) {
        final int[] out = new int[numbers.length - 1];
        for (int i = 1; i < numbers.length; i++) {
            out[i - 1] = (int) numbers[i];
        }
        return out;
    }

    /**
     * The number of records polled so far (for a test's progress condition).
     *
     * @return the count
     */
    synchronized long polledCount() {
        return events.stream().filter(e -> e instanceof Polled).count();
    }

    /**
     * The distinct values polled so far.
     *
     * @return the values
     */
    synchronized Set<Long> consumedValues() {
        final Set<Long> out = new HashSet<>();
        events.forEach(e -> {
            if (e instanceof Polled p) {
                out.add(p.value());
            }
        });
        return out;
    }

    /**
     * Per partition, the largest offset of any acknowledged commit so far.
     *
     * @return partition to offset
     */
    synchronized Map<Integer, Long> acknowledgedCommits() {
        final Map<String, CommitSent> sent = new HashMap<>();
        final Map<Integer, Long> out = new TreeMap<>();
        for (final Event e : events) {
            if (e instanceof CommitSent c) {
                sent.put(c.member() + "#" + c.id(), c);
            } else if (e instanceof CommitDone d && d.acknowledged()) {
                sent.get(d.member() + "#" + d.id()).offsets().forEach((p, o) -> out.merge(p, o, Math::max));
            }
        }
        return out;
    }

    /**
     * What the history exercised, for a test's log: records polled and re-delivered, assignments, commits by outcome,
     * the newest generation.
     *
     * @return one line
     */
    synchronized String summary() {
        final Set<String> places = new HashSet<>();
        long polls = 0;
        long again = 0;
        long assignments = 0;
        long sentCount = 0;
        long acked = 0;
        long refused = 0;
        int generation = -1;
        final Map<String, Long> sinceCommit = new HashMap<>();
        long leftByKilled = 0;
        for (final Event e : events) {
            if (e instanceof Killed k) {
                leftByKilled += sinceCommit.getOrDefault(k.member(), 0L);
            } else if (e instanceof CommitSent c) {
                sinceCommit.put(c.member(), 0L);
            }
            if (e instanceof Polled p) {
                sinceCommit.merge(p.member(), 1L, Long::sum);
                polls++;
                again += places.add(p.partition() + "@" + p.offset()) ? 0 : 1;
                generation = Math.max(generation, p.generation());
            } else if (e instanceof Owned o && o.gained()) {
                assignments += o.partitions().length;
            } else if (e instanceof CommitSent) {
                sentCount++;
            } else if (e instanceof CommitDone d) {
                acked += d.acknowledged() ? 1 : 0;
                refused += d.acknowledged() ? 0 : 1;
            }
        }
        return polls + " records polled (" + again + " re-delivered; " + leftByKilled + " left uncommitted by killed"
            + " members), " + assignments + " partition assignments, "
            + sentCount + " commits (" + acked + " acknowledged, " + refused + " failed, " + (sentCount - acked - refused)
            + " unanswered; failures " + failures + "), generations up to " + generation;
    }

    /**
     * Replays the history.
     *
     * @param endOffsets      per partition, its end offset once everything was produced (null: not checked)
     * @param finalCommitted  per partition, the group's committed offset at the end (null: not checked)
     * @return every violation found, each naming the members, partition, offset and generation involved
     */
    synchronized List<String> check(final Map<Integer, Long> endOffsets, final Map<Integer, Long> finalCommitted) {
        final List<String> violations = new ArrayList<>();
        final Map<String, CommitSent> sent = new HashMap<>();
        final Map<Integer, Long> ackedMax = new HashMap<>();
        final Map<Integer, Long> sentMax = new HashMap<>();
        final Map<String, Map<Integer, Ownership>> owned = new HashMap<>();
        final Map<String, String> consumerOf = new HashMap<>();
        final Map<String, Long> valueAt = new HashMap<>();
        final Map<Long, String> placeOf = new HashMap<>();
        final Set<String> consumedOnce = new HashSet<>();
        final Set<Long> consumed = new HashSet<>();
        final Set<String> dead = new HashSet<>();
        final Set<String> zombies = new HashSet<>();
        for (final Event e : events) {
            if (e instanceof Produced p) {
                final String place = p.partition() + "@" + p.offset();
                final Long before = valueAt.put(place, p.value());
                if (before != null && before != p.value()) {
                    violations.add("offset " + place + " acknowledged with two values: " + before + " and "
                        + p.value());
                }
                final String elsewhere = placeOf.put(p.value(), place);
                if (elsewhere != null && !elsewhere.equals(place)) {
                    violations.add("value " + p.value() + " acknowledged at " + elsewhere + " and " + place);
                }
            } else if (e instanceof Owned o) {
                final Map<Integer, Ownership> mine = owned.computeIfAbsent(o.member(), m -> new HashMap<>());
                for (final int partition : o.partitions()) {
                    if (o.gained()) {
                        mine.put(partition, new Ownership(o.generation(), ackedMax.getOrDefault(partition, 0L)));
                    } else {
                        mine.remove(partition);
                    }
                }
            } else if (e instanceof Polled p) {
                checkPoll(p, owned, consumerOf, sentMax, violations, consumedOnce);
                consumed.add(p.value());
                final String place = p.partition() + "@" + p.offset();
                final Long expected = valueAt.get(place);
                final String where = placeOf.get(p.value());
                if (expected != null && expected != p.value() || where != null && !where.equals(place)) {
                    violations.add(p.member() + " polled value " + p.value() + " at " + place + ", where "
                        + expected + " was acknowledged (value " + p.value() + " acknowledged at " + where + ")");
                }
            } else if (e instanceof CommitSent c) {
                sent.put(c.member() + "#" + c.id(), c);
                if (dead.contains(c.member())) {
                    zombies.add(c.member() + "#" + c.id());
                }
                c.offsets().forEach((p, o) -> sentMax.merge(p, o, Math::max));
            } else if (e instanceof CommitDone d && d.acknowledged()) {
                final CommitSent c = sent.get(d.member() + "#" + d.id());
                if (c == null) {
                    violations.add(d.member() + ": commit " + d.id() + " acknowledged but never sent");
                } else {
                    c.offsets().forEach((p, o) -> ackedMax.merge(p, o, Math::max));
                    if (zombies.contains(d.member() + "#" + d.id())) {
                        violations.add(d.member() + " committed " + c.offsets() + " (commit " + d.id()
                            + ", generation " + c.generation() + ") after it was killed, and it was acknowledged");
                    }
                }
            } else if (e instanceof Killed k) {
                dead.add(k.member());
            } else if (e instanceof Closed c) {
                owned.remove(c.member());
            }
        }
        for (final Map.Entry<Long, String> p : new TreeMap<>(placeOf).entrySet()) {
            if (!consumed.contains(p.getKey())) {
                violations.add("value " + p.getKey() + " acknowledged at " + p.getValue() + " was never consumed");
            }
        }
        if (endOffsets != null && finalCommitted != null) {
            for (final Map.Entry<Integer, Long> end : new TreeMap<>(endOffsets).entrySet()) {
                final Long committed = finalCommitted.get(end.getKey());
                if (committed == null || committed.longValue() != end.getValue()) {
                    violations.add("partition " + end.getKey() + ": final committed offset " + committed
                        + ", end offset " + end.getValue());
                }
            }
        }
        return violations;
    }

    private void checkPoll(final Polled p, final Map<String, Map<Integer, Ownership>> owned,
                           final Map<String, String> consumerOf, final Map<Integer, Long> sentMax,
                           final List<String> violations, final Set<String> consumedOnce) {
        final String where = "partition " + p.partition() + " offset " + p.offset() + " (generation "
            + p.generation() + ")";
        final String again = consumedOnce.add(p.partition() + "@" + p.offset()) ? "" : ", a re-delivery";
        final Ownership own = owned.getOrDefault(p.member(), Map.of()).get(p.partition());
        if (own == null) {
            violations.add(p.member() + " polled " + where + " without owning the partition");
            return;
        }
        final String identity = identities.getOrDefault(p.member(), p.member());
        final String key = p.generation() + "/" + p.partition();
        final String other = consumerOf.putIfAbsent(key, identity);
        if (other != null && !other.equals(identity)) {
            violations.add("partition " + p.partition() + " consumed by " + other + " and " + identity
                + " in generation " + p.generation());
            consumerOf.put(key, identity);
        }
        if (own.first < 0) {
            own.first = p.offset();
            final long ceiling = sentMax.getOrDefault(p.partition(), 0L);
            if (p.offset() > ceiling) {
                violations.add(p.member() + " started " + where + " past every commit sent before ("
                    + ceiling + "; assigned in generation " + own.generation + "): records skipped");
            }
        } else if (p.offset() != own.last + 1) {
            violations.add(p.member() + " polled " + where + " after offset " + own.last
                + " within one assignment: " + (p.offset() > own.last ? "records skipped" : "went back"));
        }
        own.last = p.offset();
        if (p.offset() < own.floor) {
            violations.add(p.member() + " was handed " + where + " below the commit " + own.floor
                + " acknowledged before it took the partition (assigned in generation " + own.generation + ")"
                + again);
        }
    }
}
