package io.seglog.replication.wire;

import io.netty.channel.FileRegion;
import io.netty.util.AbstractReferenceCounted;
import io.seglog.storage.LogSlice;
import java.io.IOException;
import java.nio.channels.WritableByteChannel;

/**
 * A {@link LogSlice} as a Netty {@link FileRegion}: Netty's NIO transport writes it with
 * {@code FileChannel.transferTo} ({@code sendfile}) straight from the segment file to the socket. Unlike Netty's
 * {@code DefaultFileRegion}, releasing it does not close the file: the channel belongs to the log. A slice whose bytes
 * a truncation removed fails the write with an {@link IOException} (the connection then closes), never a silent
 * short response.
 */
final class SliceRegion extends AbstractReferenceCounted implements FileRegion {
    private final LogSlice slice;
    private long transferred;

    SliceRegion(final LogSlice slice) {
        this.slice = slice;
    }

    @Override
    public long position() {
        return 0;
    }

    @Override
    @Deprecated
    public long transfered() {
        return transferred;
    }

    @Override
    public long transferred() {
        return transferred;
    }

    @Override
    public long count() {
        return slice.sizeInBytes();
    }

    @Override
    public long transferTo(final WritableByteChannel target, final long position) throws IOException {
        final long count = count() - position;
        if (count <= 0) {
            return 0;
        }
        final long written = slice.transferTo(target, (int) position, (int) count);
        transferred += written;
        return written;
    }

    @Override
    public SliceRegion retain() {
        super.retain();
        return this;
    }

    @Override
    public SliceRegion retain(final int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public SliceRegion touch() {
        return this;
    }

    @Override
    public SliceRegion touch(final Object hint) {
        return this;
    }

    @Override
    protected void deallocate() {
        // The segment's channel is the log's: nothing to close.
    }
}
