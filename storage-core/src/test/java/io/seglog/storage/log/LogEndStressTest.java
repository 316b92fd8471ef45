package io.seglog.storage.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The sequence lock of {@link LogEnd} under contention: the writer publishes ends whose fields agree (offset
 * {@code k} at position {@code k}), readers take snapshots and count those that are a mix of two ends.
 *
 * <p>The checker is shown to catch the protocol with one ordering removed: a writer that does not make the
 * sequence odd before it rewrites the fields (a reader can then read a half-written end between two equal
 * sequence values). Rounds are bounded by default; {@code -Dseglog.stress.rounds=N} runs longer.
 */
@Timeout(120)
class LogEndStressTest {
    private static final int ROUNDS = Integer.getInteger("seglog.stress.rounds", 20_000) * 50;
    private static final int READERS = 2;

    /** What the checker drives: a writer's publication and a reader's snapshot of {offset, position}. */
    interface End {
        void publish(long offset, int position);

        /** A reader's snapshot; each reader passes its own {@code into}. */
        void snapshot(long[] into);
    }

    private static End real() {
        final LogEnd end = new LogEnd(0, null, 0);
        return new End() {
            @Override
            public void publish(final long offset, final int position) {
                end.publish(offset, null, position);
            }

            @Override
            public void snapshot(final long[] into) {
                final LogEnd.Snapshot snapshot = end.snapshot(new LogEnd.Snapshot());
                into[0] = snapshot.offset();
                into[1] = snapshot.position();
            }
        };
    }

    /** The broken copy: the same fields and checks, but no odd sequence before the rewrite. */
    private static End noOddSequence() {
        return new End() {
            private volatile int seq;
            private volatile long offset;
            private volatile int position;

            @Override
            public void publish(final long newOffset, final int newPosition) {
                offset = newOffset;
                position = newPosition;
                seq = seq + 2;
            }

            @Override
            public void snapshot(final long[] into) {
                int s;
                do {
                    s = seq;
                    into[0] = offset;
                    Thread.onSpinWait(); // the window a real reader has between its loads, a little wider
                    into[1] = position;
                } while (s != seq);
            }
        };
    }

    /** Runs the writer against the readers; returns the number of torn snapshots they saw. */
    private static long tornSnapshots(final End end) throws InterruptedException {
        final AtomicBoolean done = new AtomicBoolean();
        final AtomicLong torn = new AtomicLong();
        final AtomicLong snapshots = new AtomicLong();
        final Thread[] readers = new Thread[READERS];
        for (int r = 0; r < READERS; r++) {
            readers[r] = new Thread(() -> {
                final long[] seen = new long[2];
                while (!done.get()) {
                    end.snapshot(seen);
                    if (seen[0] != seen[1]) {
                        torn.incrementAndGet();
                    }
                    snapshots.incrementAndGet();
                }
            }, "end-reader-" + r);
            readers[r].start();
        }
        for (int k = 1; k <= ROUNDS; k++) {
            end.publish(k, k);
        }
        done.set(true);
        for (final Thread reader : readers) {
            reader.join();
        }
        assertTrue(snapshots.get() > 0, "the readers read");
        return torn.get();
    }

    @Test
    void noReaderSeesAMixOfTwoEnds() throws InterruptedException {
        final End end = real();
        end.publish(5, 5);
        final long[] seen = new long[2];
        end.snapshot(seen);
        assertEquals(5, seen[0]);
        assertEquals(0, tornSnapshots(end), "torn snapshots of the real sequence lock");
    }

    @Test
    void theCheckerCatchesAWriterThatSkipsTheOddSequence() throws InterruptedException {
        long seen = 0;
        for (int attempt = 0; attempt < 20 && seen == 0; attempt++) {
            seen = tornSnapshots(noOddSequence());
        }
        assertTrue(seen > 0, "the checker must see torn snapshots of the broken sequence lock");
    }
}
