package io.seglog.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A connected loopback TCP pair whose receiving end is drained (and discarded) by one thread, so a
 * benchmark can measure {@code transferTo} into a real socket as a broker's fetch path does.
 *
 * <p>The benchmark thread owns {@link #sender()}; the drain thread owns the other end. {@link #close()} is
 * idempotent and waits for the drain thread.
 */
final class LoopbackSink implements AutoCloseable {

    /** 256 KiB: the receiver copies in L2-sized chunks (perf-anchors §2, reads beyond L2 are 4x slower). */
    private static final int DRAIN_BYTES = 256 << 10;

    private final ServerSocketChannel server;
    private final SocketChannel sender;
    private final SocketChannel receiver;
    private final Thread drain;
    private volatile long drainedBytes;
    private boolean closed;

    LoopbackSink() throws IOException {
        server = ServerSocketChannel.open();
        try {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            sender = SocketChannel.open(server.getLocalAddress());
            receiver = server.accept();
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        drain = new Thread(this::drain, "loopback-drain");
        drain.setDaemon(true);
        drain.start();
    }

    private void drain() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(DRAIN_BYTES);
        long total = 0;
        try {
            int n;
            while ((n = receiver.read(buffer)) >= 0) {
                total += n;
                buffer.clear();
                drainedBytes = total;
            }
        } catch (IOException e) {
            // The sender closed: the benchmark is over.
        }
    }

    /** @return the sending end, blocking mode */
    SocketChannel sender() {
        return sender;
    }

    /** @return bytes the receiver has read so far */
    long drainedBytes() {
        return drainedBytes;
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        IOException failure = null;
        for (AutoCloseable c : new AutoCloseable[] {sender, receiver, server}) {
            try {
                c.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IOException("closing the loopback sink failed", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        try {
            drain.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw failure;
        }
    }
}
