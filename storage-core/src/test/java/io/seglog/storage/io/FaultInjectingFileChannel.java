package io.seglog.storage.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;

/**
 * A {@link FileChannel} that delegates every operation to a real channel, asking its
 * {@link FaultInjectingFileIO} before each write and force whether to fail, and telling it after each
 * successful force how long the file is (for the lose-unsynced-data mode).
 *
 * <p>Not a fault in itself: with no faults armed it behaves exactly as the real channel. Thread-safe as
 * far as the real channel is.
 */
final class FaultInjectingFileChannel extends FileChannel {
    private final FaultInjectingFileIO io;
    private final FileChannel delegate;
    private final Path path;

    FaultInjectingFileChannel(final FaultInjectingFileIO io, final FileChannel delegate, final Path path) {
        this.io = io;
        this.delegate = delegate;
        this.path = path;
    }

    /** The real channel underneath. */
    FileChannel delegate() {
        return delegate;
    }

    @Override
    public int read(final ByteBuffer dst) throws IOException {
        return delegate.read(dst);
    }

    @Override
    public long read(final ByteBuffer[] dsts, final int offset, final int length) throws IOException {
        return delegate.read(dsts, offset, length);
    }

    @Override
    public int read(final ByteBuffer dst, final long position) throws IOException {
        return delegate.read(dst, position);
    }

    @Override
    public int write(final ByteBuffer src) throws IOException {
        final IOException fault = io.writeFault(path, src.remaining());
        if (fault != null) {
            writeTornPrefix(src, -1);
            throw fault;
        }
        return delegate.write(src);
    }

    @Override
    public long write(final ByteBuffer[] srcs, final int offset, final int length) throws IOException {
        long bytes = 0;
        for (int i = offset; i < offset + length; i++) {
            bytes += srcs[i].remaining();
        }
        throwIfFaulted(io.writeFault(path, bytes));
        return delegate.write(srcs, offset, length);
    }

    @Override
    public int write(final ByteBuffer src, final long position) throws IOException {
        final IOException fault = io.writeFault(path, src.remaining());
        if (fault != null) {
            writeTornPrefix(src, position);
            throw fault;
        }
        return delegate.write(src, position);
    }

    /** When torn writes are on, writes the first half of a failing write (without consuming src). */
    private void writeTornPrefix(final ByteBuffer src, final long position) throws IOException {
        final int half = src.remaining() / 2;
        if (!io.tornWrites() || half == 0) {
            return;
        }
        final ByteBuffer prefix = src.duplicate();
        prefix.limit(prefix.position() + half);
        while (prefix.hasRemaining()) {
            if (position < 0) {
                delegate.write(prefix);
            } else {
                delegate.write(prefix, position + prefix.position() - src.position());
            }
        }
    }

    @Override
    public long position() throws IOException {
        return delegate.position();
    }

    @Override
    public FileChannel position(final long newPosition) throws IOException {
        delegate.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return delegate.size();
    }

    @Override
    public FileChannel truncate(final long size) throws IOException {
        delegate.truncate(size);
        return this;
    }

    @Override
    public void force(final boolean metaData) throws IOException {
        io.beforeForce(path);
        delegate.force(metaData);
        io.afterForce(path, delegate.size());
    }

    @Override
    public long transferTo(final long position, final long count, final WritableByteChannel target)
        throws IOException {
        // Unwrap so that the JDK can use sendfile between two real channels; a wrapped target counts it as a write.
        WritableByteChannel real = target;
        if (target instanceof FaultInjectingFileChannel fault) {
            throwIfFaulted(fault.io.writeFault(fault.path, count));
            real = fault.delegate;
        }
        return delegate.transferTo(position, count, real);
    }

    @Override
    public long transferFrom(final ReadableByteChannel src, final long position, final long count)
        throws IOException {
        throwIfFaulted(io.writeFault(path, count));
        final ReadableByteChannel real = src instanceof FaultInjectingFileChannel fault ? fault.delegate : src;
        return delegate.transferFrom(real, position, count);
    }

    @Override
    public MappedByteBuffer map(final MapMode mode, final long position, final long size) throws IOException {
        // The map call is counted and can fail; writes through the mapping and MappedByteBuffer.force() bypass
        // the channel and are not counted.
        io.beforeMap(path, position, size);
        return delegate.map(mode, position, size);
    }

    @Override
    public FileLock lock(final long position, final long size, final boolean shared) throws IOException {
        return new DelegatingLock(this, delegate.lock(position, size, shared));
    }

    @Override
    public FileLock tryLock(final long position, final long size, final boolean shared) throws IOException {
        final FileLock real = delegate.tryLock(position, size, shared);
        return real == null ? null : new DelegatingLock(this, real);
    }

    private static void throwIfFaulted(final IOException fault) throws IOException {
        if (fault != null) {
            throw fault;
        }
    }

    @Override
    protected void implCloseChannel() throws IOException {
        delegate.close();
    }

    @Override
    public String toString() {
        return "FaultInjectingFileChannel(" + path + ")";
    }

    /** A lock whose {@link #channel()} is the wrapper, released through the real lock. */
    private static final class DelegatingLock extends FileLock {
        private final FileLock real;

        DelegatingLock(final FileChannel channel, final FileLock real) {
            super(channel, real.position(), real.size(), real.isShared());
            this.real = real;
        }

        @Override
        public boolean isValid() {
            return real.isValid();
        }

        @Override
        public void release() throws IOException {
            real.release();
        }
    }
}
