package io.seglog.storage.segment;

import static io.seglog.storage.format.RecordBatchDescriptor.ATTRIBUTES_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.CRC_OFFSET;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;

/**
 * Verifies the CRC-32C of a run of batches, already found by a header walk, on the calling thread and up to
 * {@code threads} tasks of an executor the embedder supplied, and touches the pages of the next run meanwhile
 * so that the walk over it does not fault them in one by one on a single thread.
 *
 * <p>The run is cut into contiguous parts of about equal bytes, {@link #PARTS_PER_THREAD} per thread, so a
 * thread slowed by other work takes fewer of them. The calling thread and {@code threads} executor tasks each
 * claim the next unclaimed part until none is left, so parts that no executor thread picked up (the executor is
 * busy, for example with other partitions' recoveries, or refused the task) are run by the calling thread:
 * waiting never depends on a free executor thread, and the executor may be the one running the recovery
 * itself. The call returns only after every part has finished, even after a failure or an interrupt, because
 * parts read the caller's mapping, which is unmapped after the scan; a task that starts late finds nothing to
 * claim and returns without touching it. A part stops early when an earlier part has already found a bad CRC,
 * since only the first one in log order matters.
 *
 * <p>Not thread-safe: one scan at a time; the executor's threads only run the parts of the current call.
 */
final class BatchCrcVerifier {
    /** Touch one byte per page: the fault maps it (and the kernel's fault-around neighbours). */
    private static final int PAGE_BYTES = 4096;
    /** Parts per thread: enough to even out threads slowed by other work, few enough to cost nothing. */
    static final int PARTS_PER_THREAD = 4;

    /** Computes the CRC-32C of {@code bytes[from, to)}; a seam for tests that fail on purpose. */
    interface Crc {
        /**
         * Computes a checksum.
         *
         * @param bytes the mapped file (a thread-confined duplicate; its cursor may be moved)
         * @param from  first byte
         * @param to    end, exclusive
         * @return the CRC-32C as an unsigned 32-bit value
         */
        long compute(ByteBuffer bytes, int from, int to);
    }

    private final Executor executor;
    private final int threads;
    private final Crc crc;

    /**
     * Creates a verifier.
     *
     * @param executor runs the parts other than the caller's
     * @param threads  how many executor tasks a call hands out, at least 1
     */
    BatchCrcVerifier(final Executor executor, final int threads) {
        this(executor, threads, null);
    }

    /**
     * Creates a verifier with a CRC seam (null: {@link CRC32C}).
     *
     * @param executor runs the parts other than the caller's
     * @param threads  how many executor tasks a call hands out, at least 1
     * @param crc      the checksum, or null for CRC-32C
     */
    BatchCrcVerifier(final Executor executor, final int threads, final Crc crc) {
        if (executor == null || threads < 1) {
            throw new IllegalArgumentException("executor=" + executor + " threads=" + threads
                + ": a verifier needs an executor and at least 1 thread");
        }
        this.executor = executor;
        this.threads = threads;
        this.crc = crc;
    }

    /**
     * Verifies batches {@code [0, count)} whose starts are {@code positions[0..count]} ({@code positions[count]}
     * is the end of the last one), and touches the pages of {@code [touchFrom, touchTo)}.
     *
     * @param mapped    the mapped file, big-endian, its limit at the file's end (read through duplicates)
     * @param positions batch starts, {@code count + 1} of them
     * @param count     batches to verify, 0 or more
     * @param touchFrom first byte to touch
     * @param touchTo   end of the bytes to touch, exclusive ({@code <= touchFrom}: none)
     * @param file      the data file, named by a failure
     * @return the index of the first batch whose stored CRC differs from its computed one, or -1
     * @throws IOException naming the file and the byte range when a part fails
     */
    int firstBadCrc(final ByteBuffer mapped, final int[] positions, final int count, final int touchFrom,
                    final int touchTo, final Path file) throws IOException {
        return finish(start(mapped, positions, count, touchFrom, touchTo, file));
    }

    /**
     * Hands the verification of {@link #firstBadCrc} to the executor tasks and returns at once, so the calling
     * thread can do other work (the header walk of the next run) before it joins in with {@link #finish}, which
     * must be called in every case (in a {@code finally}): until then, tasks may read {@code mapped} and
     * {@code positions[0..count]}, which the caller must leave alone.
     *
     * @param mapped    the mapped file, big-endian, its limit at the file's end (read through duplicates)
     * @param positions batch starts, {@code count + 1} of them
     * @param count     batches to verify, 0 or more
     * @param touchFrom first byte to touch
     * @param touchTo   end of the bytes to touch, exclusive ({@code <= touchFrom}: none)
     * @param file      the data file, named by a failure
     * @return the verification under way
     */
    Pending start(final ByteBuffer mapped, final int[] positions, final int count, final int touchFrom,
                  final int touchTo, final Path file) {
        final int parts = (1 + threads) * PARTS_PER_THREAD;
        final Run run = new Run(mapped, positions, parts, file);
        final long batchBytes = count == 0 ? 0 : (long) positions[count] - positions[0];
        final long touchBytes = Math.max(0, (long) touchTo - touchFrom);
        int batch = 0;
        for (int j = 0; j < parts; j++) {
            // Parts end at batch boundaries near equal shares of the bytes.
            final long share = positions[0] + batchBytes * (j + 1) / parts;
            int end = batch;
            while (end < count && (j == parts - 1 || positions[end] < share)) {
                end++;
            }
            run.parts[j] = new Part(run, batch, end, (int) (touchFrom + touchBytes * j / parts),
                (int) (touchFrom + touchBytes * (j + 1) / parts));
            batch = end;
        }
        for (int t = 0; t < threads; t++) {
            try {
                executor.execute(run);
            } catch (final RejectedExecutionException refused) {
                // Its parts are left to the calling thread.
                break;
            }
        }
        return new Pending(run);
    }

    /**
     * Runs the parts no executor task has claimed yet on the calling thread, waits for the others, and returns
     * the verification's answer. Returns only when no part still runs.
     *
     * @param pending what {@link #start} returned
     * @return the index of the first batch whose stored CRC differs from its computed one, or -1
     * @throws IOException naming the file and the byte range when a part failed
     */
    int finish(final Pending pending) throws IOException {
        final Run run = pending.run;
        final int[] positions = run.positions;
        final Path file = run.file;
        run.run();
        awaitUninterruptibly(run.finished);
        for (final Part part : run.parts) {
            if (part.failure != null) {
                final String what = "verifying the CRC-32C of the batches at positions " + positions[part.from] + ".."
                    + positions[part.to] + " failed: " + part.failure;
                if (part.failure instanceof Error) {
                    part.failure.addSuppressed(new IOException(what + " (file=" + file + ")"));
                    throw (Error) part.failure;
                }
                throw new IOException(what + " (file=" + file + ")", part.failure);
            }
        }
        final int bad = run.firstBad.get();
        return bad == Integer.MAX_VALUE ? -1 : bad;
    }

    /** Touches the pages of {@code [from, to)} in parallel, as {@link #firstBadCrc} does for the next run. */
    void touch(final ByteBuffer mapped, final int from, final int to, final Path file) throws IOException {
        firstBadCrc(mapped, new int[] {0}, 0, from, to, file);
    }

    private static void awaitUninterruptibly(final CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (final InterruptedException e) {
                // Parts still read the mapping: returning now would let the caller unmap it under them.
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** A verification handed out by {@link #start}, to be passed to {@link #finish}. */
    static final class Pending {
        private final Run run;

        private Pending(final Run run) {
            this.run = run;
        }
    }

    /** The parts of one call; run by the calling thread and each executor task: claims parts until none is left. */
    private static final class Run implements Runnable {
        final ByteBuffer mapped;
        final int[] positions;
        final Part[] parts;
        final Path file;
        final CountDownLatch finished;
        final AtomicInteger nextPart = new AtomicInteger();
        final AtomicInteger firstBad = new AtomicInteger(Integer.MAX_VALUE);

        Run(final ByteBuffer mapped, final int[] positions, final int parts, final Path file) {
            this.mapped = mapped;
            this.positions = positions;
            this.parts = new Part[parts];
            this.file = file;
            this.finished = new CountDownLatch(parts);
        }

        @Override
        public void run() {
            for (int j = nextPart.getAndIncrement(); j < parts.length; j = nextPart.getAndIncrement()) {
                parts[j].run();
            }
        }
    }

    /** One contiguous range of batches and of pages to touch; run exactly once, by whoever claims it. */
    private final class Part {
        private final Run run;
        private final int from;
        private final int to;
        private final int touchFrom;
        private final int touchTo;
        private Throwable failure;
        /** Sum of the touched bytes, kept so the reads are not optimised away. */
        @SuppressWarnings("unused")
        private long touched;

        Part(final Run run, final int from, final int to, final int touchFrom, final int touchTo) {
            this.run = run;
            this.from = from;
            this.to = to;
            this.touchFrom = touchFrom;
            this.touchTo = touchTo;
        }

        void run() {
            try {
                verify();
                touchPages();
            } catch (final Throwable t) {
                failure = t;
            } finally {
                run.finished.countDown();
            }
        }

        private void verify() {
            if (from == to) {
                return;
            }
            final ByteBuffer bytes = run.mapped.duplicate();
            final CRC32C checksum = crc == null ? new CRC32C() : null;
            final int[] positions = run.positions;
            for (int i = from; i < to; i++) {
                if (run.firstBad.get() < i) {
                    return;
                }
                final int start = positions[i];
                final int end = positions[i + 1];
                // From the shared buffer, whose limit nobody moves (this part's duplicate has its limit at a batch end).
                final long stored = run.mapped.getInt(start + CRC_OFFSET) & 0xffffffffL;
                final long computed;
                if (checksum != null) {
                    checksum.reset();
                    bytes.limit(end).position(start + ATTRIBUTES_OFFSET);
                    checksum.update(bytes);
                    computed = checksum.getValue();
                } else {
                    computed = crc.compute(bytes, start + ATTRIBUTES_OFFSET, end);
                }
                if (computed != stored) {
                    run.firstBad.accumulateAndGet(i, Math::min);
                    return;
                }
            }
        }

        private void touchPages() {
            if (touchFrom >= touchTo) {
                return;
            }
            final ByteBuffer bytes = run.mapped;
            long sum = 0;
            for (int p = touchFrom; p < touchTo; p += PAGE_BYTES) {
                sum += bytes.get(p);
            }
            touched = sum;
        }
    }
}
