package io.seglog.replication.example;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The quickstart's verdict on what the producer was told against what the consumer read back: a pure function of the
 * two, so that its rules are tested by tables of cases with no cluster.
 *
 * <p>Records are numbered by the order in which the producer sent them ({@code id} 0, 1, 2, ...). The rules:
 * <ul>
 *   <li><b>lost</b>: an acknowledged record the consumer did not read. Must be 0.</li>
 *   <li><b>misplaced</b>: an acknowledged record not found at the offset its acknowledgement named. Must be 0.</li>
 *   <li><b>order</b>: the first copy of each record read comes after the first copy of every record sent before it
 *       (a single partition keeps the producer's order). Must hold.</li>
 *   <li><b>duplicates</b>: extra copies of a record (a retry of a request whose answer was lost stores it again).
 *       Reported on their own; a failure only for an idempotent producer, whose sequence numbers make the broker
 *       drop such retries.</li>
 *   <li><b>unacknowledged read</b>: records whose send failed or was never answered, yet were stored (the ack was
 *       lost with the leader): allowed, neither lost nor duplicated.</li>
 *   <li>A record read that was never sent is a failure ({@code unknown}).</li>
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
final class DeliveryCheck {
    /** How many offending ids a verdict keeps for its message. */
    static final int EXAMPLES = 5;

    /**
     * One record read by the consumer.
     *
     * @param offset its offset in the partition
     * @param id     the producer's number of the record (parsed from its value)
     */
    record Read(long offset, int id) {
    }

    /**
     * The verdict.
     *
     * @param sent                records the producer was asked to send
     * @param acknowledged        records whose send succeeded (acks=all)
     * @param failed              records whose send failed
     * @param consumed            records the consumer read, copies included
     * @param lost                acknowledged records not read
     * @param misplaced           acknowledged records not at the offset their acknowledgement gave
     * @param duplicates          copies read beyond the first of a record
     * @param unacknowledgedRead  distinct records read whose send was not acknowledged
     * @param unknown             records read that were never sent
     * @param orderKept           whether the first copies were read in the order the records were sent
     * @param examples            a few offending ids per rule broken (for the message), empty when none
     */
    record Verdict(int sent, int acknowledged, int failed, int consumed, int lost, int misplaced, int duplicates,
                   int unacknowledgedRead, int unknown, boolean orderKept, Map<String, List<Integer>> examples) {
        /**
         * Whether the run kept Kafka's promise for acknowledged records.
         *
         * @param idempotent whether the producer was idempotent (then a duplicate is a failure too)
         * @return true when nothing acknowledged was lost, misplaced or reordered and nothing unknown was read
         */
        boolean ok(final boolean idempotent) {
            return lost == 0 && misplaced == 0 && unknown == 0 && orderKept && (!idempotent || duplicates == 0);
        }

        /** Every acknowledged record read exactly once: no loss and no duplicate. */
        boolean exactlyOnce() {
            return lost == 0 && duplicates == 0 && misplaced == 0;
        }

        /** What broke, for a failure message; empty when nothing did. */
        String problems(final boolean idempotent) {
            final List<String> p = new ArrayList<>();
            if (lost > 0) {
                p.add(lost + " acknowledged records lost (e.g. ids " + examples.get("lost") + ")");
            }
            if (misplaced > 0) {
                p.add(misplaced + " acknowledged records not at their acknowledged offset (e.g. ids "
                    + examples.get("misplaced") + ")");
            }
            if (!orderKept) {
                p.add("records read out of send order (first at id " + examples.get("order") + ")");
            }
            if (unknown > 0) {
                p.add(unknown + " records read that were never sent (ids " + examples.get("unknown") + ")");
            }
            if (idempotent && duplicates > 0) {
                p.add(duplicates + " duplicates from an idempotent producer (e.g. ids " + examples.get("duplicates")
                    + ")");
            }
            return String.join("; ", p);
        }
    }

    private DeliveryCheck() {
    }

    /**
     * Compares.
     *
     * @param sent         records sent, numbered {@code 0..sent-1}
     * @param acknowledged id to the offset its acknowledgement gave
     * @param failed       how many sends failed
     * @param read         what the consumer read, in the order read
     * @return the verdict
     */
    static Verdict check(final int sent, final Map<Integer, Long> acknowledged, final int failed,
                         final List<Read> read) {
        final Map<Integer, Integer> copies = new HashMap<>();
        final Map<Long, Integer> atOffset = new HashMap<>();
        final Set<Integer> unknown = new TreeSet<>();
        final Set<Integer> duplicates = new TreeSet<>();
        int extraCopies = 0;
        int lastFirstCopy = -1;
        Integer outOfOrder = null;
        for (final Read r : read) {
            atOffset.put(r.offset(), r.id());
            if (r.id() < 0 || r.id() >= sent) {
                unknown.add(r.id());
                continue;
            }
            final int n = copies.merge(r.id(), 1, Integer::sum);
            if (n > 1) {
                extraCopies++;
                duplicates.add(r.id());
            } else if (r.id() < lastFirstCopy) {
                if (outOfOrder == null) {
                    outOfOrder = r.id();
                }
            } else {
                lastFirstCopy = r.id();
            }
        }
        final Set<Integer> lost = new TreeSet<>();
        final Set<Integer> misplaced = new TreeSet<>();
        for (final Map.Entry<Integer, Long> a : acknowledged.entrySet()) {
            if (!copies.containsKey(a.getKey())) {
                lost.add(a.getKey());
            } else if (!a.getKey().equals(atOffset.get(a.getValue()))) {
                misplaced.add(a.getKey());
            }
        }
        final Set<Integer> unacknowledged = new HashSet<>(copies.keySet());
        unacknowledged.removeAll(acknowledged.keySet());
        final Map<String, List<Integer>> examples = new HashMap<>();
        examples.put("lost", first(lost));
        examples.put("misplaced", first(misplaced));
        examples.put("unknown", first(unknown));
        examples.put("duplicates", first(duplicates));
        examples.put("order", outOfOrder == null ? List.of() : List.of(outOfOrder));
        return new Verdict(sent, acknowledged.size(), failed, read.size(), lost.size(), misplaced.size(),
            extraCopies, unacknowledged.size(), unknown.size(), outOfOrder == null, Map.copyOf(examples));
    }

    private static List<Integer> first(final Set<Integer> ids) {
        return ids.stream().limit(EXAMPLES).toList();
    }
}
