package io.seglog.replication.example;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The quickstart's verdict on its consumer group: a pure function of who owned what after the rebalance, what each
 * member read, what the group committed and where each partition ends, so that its rules are tested by tables of
 * cases with no cluster.
 *
 * <p>The rules, for a topic of partitions {@code 0..partitions-1}:
 * <ul>
 *   <li><b>shared</b>: a partition owned by more than one member after the rebalance. Must be none.</li>
 *   <li><b>unowned</b>: a partition owned by no member after the rebalance. Must be none.</li>
 *   <li><b>committed</b>: each partition's committed offset equals its end offset (a missing commit differs). Must
 *       hold for every partition.</li>
 *   <li><b>read once</b>: every offset below a partition's end offset read by exactly one member, once (the members
 *       resume at the committed offsets, so a rebalance makes no one read a record again); an offset not read is
 *       <b>missed</b>, a second read is <b>read twice</b>, a read at or past the end offset is <b>beyond the
 *       end</b>. Must be none of any.</li>
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
final class GroupCheck {
    /** How many offending examples a verdict keeps for its message. */
    static final int EXAMPLES = 5;

    /**
     * One record read by a member.
     *
     * @param member    the member's name in the tour ({@code "A"})
     * @param partition the record's partition
     * @param offset    its offset
     */
    record Read(String member, int partition, long offset) {
    }

    /**
     * The verdict.
     *
     * @param shared          partitions owned by more than one member after the rebalance
     * @param unowned         partitions owned by no member after the rebalance
     * @param committedWrong  partition to its committed offset (-1 when none) where that is not the end offset
     * @param missed          offsets below the end not read, counted over all partitions
     * @param readTwice       reads beyond the first of an offset, counted over all partitions
     * @param beyondEnd       reads of an offset at or past its partition's end offset, or of no partition of the topic
     * @param examples        a few offending {@code partition@offset} per rule broken (for the message)
     */
    record Verdict(Set<Integer> shared, Set<Integer> unowned, Map<Integer, Long> committedWrong, long missed,
                   long readTwice, long beyondEnd, Map<String, List<String>> examples) {
        /** Whether the group kept every rule. */
        boolean ok() {
            return shared.isEmpty() && unowned.isEmpty() && committedWrong.isEmpty() && missed == 0 && readTwice == 0
                && beyondEnd == 0;
        }

        /** What broke, for a failure message; empty when nothing did. */
        String problems() {
            final List<String> p = new ArrayList<>();
            if (!shared.isEmpty()) {
                p.add("partitions " + shared + " owned by more than one member after the rebalance");
            }
            if (!unowned.isEmpty()) {
                p.add("partitions " + unowned + " owned by no member after the rebalance");
            }
            if (!committedWrong.isEmpty()) {
                p.add("committed offsets differ from the end offsets (partition=committed, -1 for none): "
                    + committedWrong);
            }
            if (missed > 0) {
                p.add(missed + " records below the end offset read by no member (e.g. " + examples.get("missed")
                    + ")");
            }
            if (readTwice > 0) {
                p.add(readTwice + " records read again (e.g. " + examples.get("readTwice") + ")");
            }
            if (beyondEnd > 0) {
                p.add(beyondEnd + " records read at or past their partition's end offset (e.g. "
                    + examples.get("beyondEnd") + ")");
            }
            return String.join("; ", p);
        }
    }

    private GroupCheck() {
    }

    /**
     * Compares.
     *
     * @param partitions the topic's partition count
     * @param owners     each member's partitions after the rebalance
     * @param committed  partition to the group's committed offset (absent when none)
     * @param ends       partition to its end offset
     * @param reads      every record the members read, in any order
     * @return the verdict
     */
    static Verdict check(final int partitions, final Map<String, Set<Integer>> owners, final Map<Integer, Long> committed,
                         final Map<Integer, Long> ends, final List<Read> reads) {
        final Map<Integer, Integer> ownerCount = new HashMap<>();
        for (final Set<Integer> owned : owners.values()) {
            for (final int p : owned) {
                ownerCount.merge(p, 1, Integer::sum);
            }
        }
        final Set<Integer> shared = new TreeSet<>();
        final Set<Integer> unowned = new TreeSet<>();
        final Map<Integer, Long> committedWrong = new TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            final int n = ownerCount.getOrDefault(p, 0);
            if (n > 1) {
                shared.add(p);
            } else if (n == 0) {
                unowned.add(p);
            }
            final long end = ends.getOrDefault(p, 0L);
            final Long c = committed.get(p);
            if (c == null || c != end) {
                committedWrong.put(p, c == null ? -1L : c);
            }
        }
        final Map<Integer, Map<Long, Integer>> copies = new HashMap<>();
        for (final Read r : reads) {
            copies.computeIfAbsent(r.partition(), k -> new HashMap<>()).merge(r.offset(), 1, Integer::sum);
        }
        long missed = 0;
        long readTwice = 0;
        final List<String> missedExamples = new ArrayList<>();
        final List<String> twiceExamples = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            final Map<Long, Integer> read = copies.getOrDefault(p, Map.of());
            final long end = ends.getOrDefault(p, 0L);
            for (long offset = 0; offset < end; offset++) {
                final int n = read.getOrDefault(offset, 0);
                if (n == 0) {
                    missed++;
                    example(missedExamples, p, offset);
                } else if (n > 1) {
                    readTwice += n - 1;
                    example(twiceExamples, p, offset);
                }
            }
        }
        // A read of an offset the end offsets say is not there (or of a partition outside the topic): the end
        // offsets and the reads disagree, and the commits cannot be judged against them.
        long beyondEnd = 0;
        final List<String> beyondExamples = new ArrayList<>();
        for (final Map.Entry<Integer, Map<Long, Integer>> e : copies.entrySet()) {
            final long end = e.getKey() >= 0 && e.getKey() < partitions ? ends.getOrDefault(e.getKey(), 0L) : 0L;
            for (final Map.Entry<Long, Integer> o : e.getValue().entrySet()) {
                if (o.getKey() < 0 || o.getKey() >= end) {
                    beyondEnd += o.getValue();
                    example(beyondExamples, e.getKey(), o.getKey());
                }
            }
        }
        return new Verdict(shared, unowned, committedWrong, missed, readTwice, beyondEnd,
            Map.of("missed", List.copyOf(missedExamples), "readTwice", List.copyOf(twiceExamples), "beyondEnd",
                List.copyOf(beyondExamples)));
    }

    private static void example(final List<String> into, final int partition, final long offset) {
        if (into.size() < EXAMPLES) {
            into.add(partition + "@" + offset);
        }
    }
}
