package io.seglog.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;

import org.apache.kafka.common.network.TransferableChannel;

/**
 * Kafka's view of a plaintext socket for {@code FileRecords.writeTo}: {@code transferFrom} is
 * {@code FileChannel.transferTo} into the socket, as Kafka's {@code PlaintextTransportLayer} does.
 *
 * <p>Used by one thread at a time; does not own the socket.
 */
final class SocketTransferableChannel implements TransferableChannel {

    private final SocketChannel socket;

    SocketTransferableChannel(SocketChannel socket) {
        this.socket = socket;
    }

    @Override
    public boolean hasPendingWrites() {
        return false;
    }

    @Override
    public long transferFrom(FileChannel fileChannel, long position, long count) throws IOException {
        return fileChannel.transferTo(position, count, socket);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        return socket.write(srcs, offset, length);
    }

    @Override
    public long write(ByteBuffer[] srcs) throws IOException {
        return socket.write(srcs);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return socket.write(src);
    }

    @Override
    public boolean isOpen() {
        return socket.isOpen();
    }

    @Override
    public void close() {
        // The socket belongs to the LoopbackSink.
    }
}
