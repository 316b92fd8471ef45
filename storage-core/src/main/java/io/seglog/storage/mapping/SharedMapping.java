package io.seglog.storage.mapping;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.util.function.Consumer;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A memory mapping shared by lock-free readers and one owner, with the one lifetime protocol of the storage core:
 * every mapping that readers may touch (an index's mapping, a segment's read mapping) is one of these. Touching an
 * unmapped page does not throw, it kills the JVM, so the protocol's single guarantee is that a mapping is never
 * unmapped while a reader holds it.
 *
 * <h2>Protocol</h2>
 * <ul>
 *   <li>A reader {@link #acquire()}s the mapping before its first access and {@link #release()}s it after its last,
 *       in a {@code finally}; acquire fails once the mapping is retired, and the reader then looks for the owner's
 *       current mapping (or gives up: the owner closed).</li>
 *   <li>The owner publishes a replacement (if any) before it {@link #retire()}s the old mapping: a reader that
 *       fails to acquire the old one finds the new one. Retiring is idempotent and never waits; the mapping is
 *       unmapped by whoever leaves it last (the owner at once when no reader holds it, else the last reader's
 *       release). {@link #retireAndAwait()} also waits until it is gone (close, or a file shrink that a mapped page
 *       past the new end would turn into SIGBUS).</li>
 * </ul>
 *
 * <h2>Memory</h2>
 * One state word, read and written with volatile semantics and changed only by compare-and-set (or an atomic add
 * for release): bit 0 is "retired", the bits above count the readers in, and -1 means unmapped. Acquire is a CAS
 * that adds a reader only if bit 0 is clear, so after the owner's CAS sets bit 0 no reader can get in; the count
 * can then only fall, and the one whose change makes the word exactly "retired, no reader" moves it to -1 with a
 * CAS and unmaps, so exactly one thread unmaps. Everything a reader read through the mapping happens-before its
 * release, which happens-before the unmap. Readers of different mappings never touch the same word; readers of
 * one mapping share its word (one cache line per mapping, not per index or log). {@code SharedMappingStressTest}
 * shows that the checker catches an acquire that skips the retired bit.
 *
 * <p>Thread-safe.
 */
public final class SharedMapping {
    private static final VarHandle STATE;
    private static final int RETIRED = 1;
    private static final int ONE_USER = 2;
    private static final int DEAD = -1;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(SharedMapping.class, "state", int.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final MappedByteBuffer mapped;
    private final UnsafeBuffer view;
    private final int bytes;
    private final Consumer<MappedByteBuffer> unmapper;
    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;

    /**
     * Shares a mapping; it is unmapped with Agrona's {@link IoUtil#unmap} (explicitly: leaving it to the GC caused
     * long pauses in Kafka, KAFKA-4614).
     *
     * @param mapped the mapping, owned from now on by this object
     */
    public SharedMapping(final MappedByteBuffer mapped) {
        this(mapped, IoUtil::unmap);
    }

    SharedMapping(final MappedByteBuffer mapped, final Consumer<MappedByteBuffer> unmapper) {
        this.mapped = mapped;
        this.bytes = mapped.capacity();
        this.view = new UnsafeBuffer(mapped);
        this.unmapper = unmapper;
    }

    /**
     * How many bytes from the start of the file are mapped.
     *
     * @return the mapped length
     */
    public int bytes() {
        return bytes;
    }

    /**
     * Whether {@code [position, position + length)} lies inside the mapping.
     *
     * @param position file position
     * @param length   bytes wanted
     * @return true when mapped
     */
    public boolean covers(final int position, final int length) {
        return position >= 0 && length <= bytes - position;
    }

    /**
     * The mapping as an Agrona buffer (index = file position); only between {@link #acquire()} and
     * {@link #release()}, or for the owner before it retires it.
     *
     * @return the view
     */
    public UnsafeBuffer view() {
        return view;
    }

    /**
     * The mapped buffer itself, for the owner's {@code force()}; only before it retires the mapping.
     *
     * @return the buffer
     */
    public MappedByteBuffer mapped() {
        return mapped;
    }

    /**
     * Copies {@code [position, position + length)} into {@code target}'s backing array from index 0, leaving the
     * buffer as a positional read of that many bytes would ({@code position = limit = length}).
     *
     * @param position file position, {@link #covers covered}
     * @param target   a heap buffer of at least {@code length} bytes
     * @param length   bytes to copy
     */
    public void copyTo(final int position, final ByteBuffer target, final int length) {
        view.getBytes(position, target.array(), target.arrayOffset(), length);
        target.clear().limit(length).position(length);
    }

    /**
     * Registers a reader, unless the mapping was retired.
     *
     * @return true when the caller may read it and must {@link #release()} it
     */
    public boolean acquire() {
        for (;;) {
            final int s = state;
            if ((s & RETIRED) != 0) {
                return false; // retired or dead: DEAD (-1) has bit 0 set too
            }
            if (STATE.compareAndSet(this, s, s + ONE_USER)) {
                return true;
            }
        }
    }

    /** Ends a use; the last reader of a retired mapping unmaps it. */
    public void release() {
        final int s = (int) STATE.getAndAdd(this, -ONE_USER) - ONE_USER;
        if (s == RETIRED) {
            unmapOnce();
        }
    }

    /** No new readers from now on; unmaps now if nobody holds it, else the last reader does. Idempotent. */
    public void retire() {
        for (;;) {
            final int s = state;
            if ((s & RETIRED) != 0) {
                return;
            }
            if (STATE.compareAndSet(this, s, s | RETIRED)) {
                if (s == 0) {
                    unmapOnce();
                }
                return;
            }
        }
    }

    /**
     * Retires the mapping and waits until it is unmapped. A reader holds it only for one lookup (a few reads), so
     * the wait is short; the caller must not hold it itself.
     */
    public void retireAndAwait() {
        retire();
        while (!isUnmapped()) {
            Thread.yield();
        }
    }

    /**
     * Whether the mapping is gone (retired and its last reader left).
     *
     * @return true once unmapped
     */
    public boolean isUnmapped() {
        return state == DEAD;
    }

    private void unmapOnce() {
        if (STATE.compareAndSet(this, RETIRED, DEAD)) {
            view.wrap(0, 0);
            unmapper.accept(mapped);
        }
    }

    @Override
    public String toString() {
        final int s = state;
        return "SharedMapping{bytes=" + bytes + ", " + (s == DEAD ? "unmapped" : ((s & RETIRED) != 0 ? "retired, " : "")
            + (s >>> 1) + " readers") + "}";
    }
}
