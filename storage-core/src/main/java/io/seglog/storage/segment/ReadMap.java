package io.seglog.storage.segment;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A read-only shared mapping of the first {@link #bytes()} bytes of a segment's data file, through which lock-free
 * readers read batch headers and timestamp-search chunks without a {@code pread} each (about 1 us per call on a
 * VM, the whole cost of an index lookup otherwise). The mapping never extends past the file's length when it was
 * made, and readers only touch bytes below a published size, so no page past the end of the file is touched.
 *
 * <p>Lifetime: readers {@link #acquire()} the mapping for one lookup and {@link #release()} it after; the owner
 * {@link #retire()}s it (remap, truncation, close) and the last user unmaps it, so a mapping is never unmapped
 * under a reader (which would crash the JVM, not throw). The state word counts users in its upper bits; bit 0 is
 * "retired"; {@link #DEAD} means unmapped.
 *
 * <p>Thread-safe: any number of readers; {@link #retire()} from any thread, usually the segment's writer.
 */
final class ReadMap {
    private static final VarHandle STATE;
    private static final int RETIRED = 1;
    private static final int ONE_USER = 2;
    private static final int DEAD = -1;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(ReadMap.class, "state", int.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final MappedByteBuffer mapped;
    private final UnsafeBuffer view;
    private final int bytes;
    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;

    ReadMap(final MappedByteBuffer mapped) {
        this.mapped = mapped;
        this.bytes = mapped.capacity();
        this.view = new UnsafeBuffer(mapped);
    }

    /**
     * How many bytes from the start of the file are mapped.
     *
     * @return the mapped length
     */
    int bytes() {
        return bytes;
    }

    /**
     * Whether {@code [position, position + length)} lies inside the mapping.
     *
     * @param position file position
     * @param length   bytes wanted
     * @return true when mapped
     */
    boolean covers(final int position, final int length) {
        return position >= 0 && length <= bytes - position;
    }

    /**
     * The mapping as an Agrona buffer (index = file position); only between {@link #acquire()} and
     * {@link #release()}.
     *
     * @return the view
     */
    UnsafeBuffer view() {
        return view;
    }

    /**
     * Copies {@code [position, position + length)} into {@code target}'s backing array from index 0, leaving the
     * buffer as a positional read of that many bytes would ({@code position = limit = length}).
     *
     * @param position file position, {@link #covers covered}
     * @param target   a heap buffer of at least {@code length} bytes
     * @param length   bytes to copy
     */
    void copyTo(final int position, final ByteBuffer target, final int length) {
        view.getBytes(position, target.array(), target.arrayOffset(), length);
        target.clear().limit(length).position(length);
    }

    /**
     * Registers a user, unless the mapping was retired.
     *
     * @return true when the caller may read it and must {@link #release()} it
     */
    boolean acquire() {
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

    /** Ends a use; the last user of a retired mapping unmaps it. */
    void release() {
        final int s = (int) STATE.getAndAdd(this, -ONE_USER) - ONE_USER;
        if (s == RETIRED) {
            unmapOnce();
        }
    }

    /** No new users from now on; unmaps now if nobody uses it, else the last user does. Idempotent. */
    void retire() {
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
     * Whether the mapping is gone (retired and its last user left).
     *
     * @return true once unmapped
     */
    boolean isUnmapped() {
        return state == DEAD;
    }

    private void unmapOnce() {
        if (STATE.compareAndSet(this, RETIRED, DEAD)) {
            view.wrap(0, 0);
            IoUtil.unmap(mapped);
        }
    }
}
