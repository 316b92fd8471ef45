package io.seglog.storage.mapping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The retire handshake of {@link SharedMapping} under contention: readers acquire whatever mapping the owner
 * publishes, check it is still mapped while they hold it, and release; the owner keeps replacing and retiring
 * mappings (as an index resize does). The unmap is a fake that records it, so a broken protocol shows up as a
 * reader holding an unmapped mapping rather than as a dead JVM.
 *
 * <p>The checker is shown to catch a protocol with one ordering removed: an acquire that counts the reader in
 * without testing the retired bit first (a reader can then get into a mapping the owner has already unmapped).
 * Rounds are bounded by default; {@code -Dseglog.stress.rounds=N} runs longer.
 */
@Timeout(120)
class SharedMappingStressTest {
    private static final int ROUNDS = Integer.getInteger("seglog.stress.rounds", 20_000);
    private static final int READERS = 3;
    /** One real mapping behind every lease: the fake unmap never unmaps it. */
    private static final MappedByteBuffer FAKE = fakeMapping();

    /** The operations the checker drives; implemented by the real protocol and by a broken one. */
    interface Lease {
        boolean acquire();

        void release();

        void retire();

        boolean unmapped();
    }

    /** The real protocol, with a fake unmap that only records that it happened. */
    private static Lease real() {
        final AtomicInteger unmaps = new AtomicInteger();
        final SharedMapping mapping = new SharedMapping(FAKE, m -> unmaps.incrementAndGet());
        return new Lease() {
            @Override
            public boolean acquire() {
                return mapping.acquire();
            }

            @Override
            public void release() {
                mapping.release();
            }

            @Override
            public void retire() {
                mapping.retire();
            }

            @Override
            public boolean unmapped() {
                if (unmaps.get() > 1) {
                    throw new AssertionError("unmapped " + unmaps.get() + " times");
                }
                return unmaps.get() == 1;
            }
        };
    }

    /** A broken copy: the reader is counted in unconditionally and backs out if it finds the mapping retired. */
    private static Lease brokenAcquire() {
        return new Lease() {
            private final AtomicInteger readers = new AtomicInteger();
            private volatile boolean retired;
            private volatile boolean gone;

            @Override
            public boolean acquire() {
                readers.incrementAndGet(); // the missing step: test "retired" before counting in
                if (retired && readers.get() == 1 && gone) {
                    readers.decrementAndGet();
                    return false;
                }
                return true;
            }

            @Override
            public void release() {
                if (readers.decrementAndGet() == 0 && retired) {
                    gone = true;
                }
            }

            @Override
            public void retire() {
                retired = true;
                if (readers.get() == 0) {
                    gone = true;
                }
            }

            @Override
            public boolean unmapped() {
                return gone;
            }
        };
    }

    private static MappedByteBuffer fakeMapping() {
        // Eight bytes of a deleted temporary file: the fake unmap never touches it, and view()/bytes() stay valid.
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(
            java.nio.file.Files.createTempFile("shared-mapping", ".bin"), java.nio.file.StandardOpenOption.READ,
            java.nio.file.StandardOpenOption.WRITE, java.nio.file.StandardOpenOption.DELETE_ON_CLOSE)) {
            channel.write(ByteBuffer.allocate(8), 0);
            return channel.map(java.nio.channels.FileChannel.MapMode.READ_ONLY, 0, 8);
        } catch (final java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Runs readers against an owner that publishes a fresh lease and retires the old one, {@code rounds} times.
     *
     * @return how many times a reader held a lease that was already unmapped
     */
    private static long violations(final java.util.function.Supplier<Lease> leases, final int rounds)
        throws InterruptedException {
        final AtomicReference<Lease> current = new AtomicReference<>(leases.get());
        final AtomicLong violations = new AtomicLong();
        final AtomicLong reads = new AtomicLong();
        final AtomicInteger done = new AtomicInteger();
        final Thread[] readers = new Thread[READERS];
        for (int r = 0; r < READERS; r++) {
            readers[r] = new Thread(() -> {
                while (done.get() == 0) {
                    final Lease lease = current.get();
                    if (!lease.acquire()) {
                        continue; // retired: the owner has published the next one
                    }
                    try {
                        for (int spin = 0; spin < 4; spin++) {
                            if (lease.unmapped()) {
                                violations.incrementAndGet();
                            }
                            Thread.onSpinWait();
                        }
                        reads.incrementAndGet();
                    } finally {
                        lease.release();
                    }
                }
            }, "lease-reader-" + r);
            readers[r].start();
        }
        // On a busy machine the owner could finish every round before a reader thread is first scheduled: the
        // rounds start once the readers are reading (a deadline, not a timing assumption).
        final long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        while (reads.get() == 0 && System.nanoTime() - deadline < 0) {
            Thread.yield();
        }
        assertTrue(reads.get() > 0, "the readers started reading within 60 s");
        final Lease[] retiredLeases = new Lease[rounds];
        for (int i = 0; i < rounds; i++) {
            final Lease next = leases.get();
            final Lease old = current.getAndSet(next); // publish the replacement, then retire the old one
            old.retire();
            retiredLeases[i] = old;
            if ((i & 63) == 0) {
                Thread.yield();
            }
        }
        done.set(1);
        for (final Thread reader : readers) {
            reader.join();
        }
        current.get().retire();
        for (final Lease old : retiredLeases) {
            assertTrue(old.unmapped(), "every retired lease is unmapped once its readers left");
        }
        assertTrue(reads.get() > 0, "the readers read");
        return violations.get();
    }

    @Test
    void noReaderEverHoldsAnUnmappedMapping() throws InterruptedException {
        assertEquals(0, violations(SharedMappingStressTest::real, ROUNDS), "readers held unmapped mappings");
    }

    @Test
    void theCheckerCatchesAnAcquireThatIgnoresTheRetiredBit() throws InterruptedException {
        // The broken variant lets a reader into a retired lease whose last reader left: it holds a gone lease.
        long seen = 0;
        for (int attempt = 0; attempt < 20 && seen == 0; attempt++) {
            seen = violations(SharedMappingStressTest::brokenAcquire, ROUNDS);
        }
        assertTrue(seen > 0, "the checker must see the broken protocol hand out unmapped leases");
    }
}
