package io.seglog.replication.wire;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;

/**
 * Test helper: a blocking socket to a {@link KafkaWireServer} that frames requests itself with kafka-clients' classes,
 * for what a {@link WireClient} cannot do: send a request that gets no response (a produce with acks=0), send a
 * header alone, and see the server close the connection. Not thread-safe.
 */
final class RawConnection implements AutoCloseable {
    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;

    RawConnection(final InetSocketAddress address) throws IOException {
        socket = new Socket(address.getAddress(), address.getPort());
        socket.setSoTimeout(30_000);
        out = new DataOutputStream(socket.getOutputStream());
        in = new DataInputStream(socket.getInputStream());
    }

    /** A request framed with kafka-clients' header and body classes. */
    void send(final ApiKeys api, final short version, final int correlationId, final ApiMessage body)
        throws IOException {
        out.write(WireClient.requestFrame(api, version, correlationId, "raw", body).array());
        out.flush();
    }

    /** A request header (v1: key, version, correlation id, client id) and no body. */
    void sendHeaderOnly(final short apiKey, final short version, final int correlationId) throws IOException {
        final byte[] clientId = "raw".getBytes(UTF_8);
        out.writeInt(2 + 2 + 4 + 2 + clientId.length);
        out.writeShort(apiKey);
        out.writeShort(version);
        out.writeInt(correlationId);
        out.writeShort(clientId.length);
        out.write(clientId);
        out.flush();
    }

    /** Reads the next response, which must be for {@code correlationId}, and decodes it. */
    @SuppressWarnings("unchecked")
    <T extends ApiMessage> T receive(final ApiKeys api, final short version, final int correlationId,
                                     final String at) throws IOException {
        final byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        final ByteBufferAccessor accessor = new ByteBufferAccessor(ByteBuffer.wrap(frame));
        final ResponseHeaderData header = new ResponseHeaderData(accessor, api.responseHeaderVersion(version));
        assertEquals(correlationId, header.correlationId(), at + ": the next response is for another request");
        final ApiMessage body = api.messageType.newResponse();
        body.read(accessor, version);
        return (T) body;
    }

    /** Whether the server closed the connection (the next read ends, or is reset) rather than send a byte. */
    boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (final SocketException reset) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
