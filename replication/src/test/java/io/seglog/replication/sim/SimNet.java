package io.seglog.replication.sim;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The simulation's TCP: connections between nodes that carry the bytes the production code writes, as events. Each
 * end is a Netty {@link EmbeddedChannel} with the production pipeline on it (a broker's request decoder and
 * connection handler, a {@code WireClient}'s frame decoder and response matcher); what one end writes arrives at the
 * other after the link's delay, in order, unless the connection breaks first.
 *
 * <p>A connection opens after a round trip: refused at once when the server is down, timed out after
 * {@value #CONNECT_TIMEOUT_MS} ms when a link is cut. Its frames arrive in order after the link's delay; while a link
 * is cut they wait and are sent again until it heals (TCP retransmits), so a request a client gave up on can still
 * arrive, late, after the cut. A process that ends (a crash, a stop) closes its ends at once and its peers' ends a link
 * delay later (a reset); a frame that arrives at a process that has ended since breaks the connection, and {@link #reset} breaks a node's
 * connections with what they carry (the network's drop). Nothing is
 * duplicated or reordered inside a connection (TCP does not); delay and reordering across connections come from the
 * links.
 *
 * <p>Channel tasks (a response written once its answer completes, a request queued by a client) run in
 * {@link #pump()}, which the simulation calls after every event, over the ends in the order they were opened.
 */
final class SimNet {
    /** What the network asks of the cluster. */
    interface Topology {
        /**
         * The process now running on a node.
         *
         * @param node the node
         * @return its incarnation, or -1 when it is down
         */
        int incarnation(int node);

        /**
         * Whether bytes pass from one node to another now.
         *
         * @param from the sender
         * @param to   the receiver
         * @return false when the link is cut
         */
        boolean linkUp(int from, int to);

        /**
         * The handlers that serve a new connection to a node's current process (its Kafka APIs).
         *
         * @param node the node
         * @return new handlers
         */
        ChannelHandler[] serverHandlers(int node);

        /**
         * A link's delay.
         *
         * @param random where it is drawn from
         * @return the delay in ms
         */
        long delayMs(RandomGenerator random);
    }

    /** How often TCP sends a frame again while its link is cut (Linux's least retransmission timeout). */
    static final long RETRANSMIT_MS = 200;
    /** How long a connect over a cut link takes to fail (a client's connection setup timeout). */
    static final long CONNECT_TIMEOUT_MS = 3_000;

    private final SimScheduler sim;
    private final Topology topology;
    /** Open ends (and ends closed since the last pump), in the order they were opened. */
    private final List<End> ends = new ArrayList<>();
    private long connections;
    private long frames;
    private long bytes;
    private long broken;

    SimNet(final SimScheduler sim, final Topology topology) {
        this.sim = sim;
        this.topology = topology;
    }

    /** One end of a connection: the production handlers on an embedded channel whose writes go to the peer. */
    private final class End extends EmbeddedChannel {
        final Connection connection;
        final int node;
        final int incarnation;
        /** What this end wrote that the peer has not read yet, oldest first. */
        final ArrayDeque<Frame> unread = new ArrayDeque<>();

        End(final Connection connection, final int node, final int incarnation, final ChannelHandler... handlers) {
            super(handlers);
            this.connection = connection;
            this.node = node;
            this.incarnation = incarnation;
            ends.add(this);
        }

        @Override
        protected void handleOutboundMessage(final Object msg) {
            final ByteBuf copy;
            try {
                copy = copyOf(msg);
            } finally {
                ReferenceCountUtil.release(msg);
            }
            if (connection != null) { // null only while the superclass's constructor runs
                connection.carry(this, copy);
            } else {
                copy.release();
            }
        }

        @Override
        protected void doClose() throws Exception {
            super.doClose();
            if (connection != null) {
                if (this == connection.client && connection.connecting != null) {
                    // As Netty fails a connect the channel's close overtakes.
                    connection.connecting.tryFailure(new ConnectException("connection closed while connecting ("
                        + connection.name + ")"));
                }
                connection.closedBy(this);
            }
        }
    }

    /** A frame on its way, due at the peer then (if the link is up). */
    private record Frame(ByteBuf bytes, long dueMs) {
    }

    /** A connection between a client process and a server process. */
    private final class Connection {
        final RandomGenerator random;
        final String name;
        End client;
        End server;
        /** The client's connect, until it completes. */
        ChannelPromise connecting;
        boolean over;

        Connection(final RandomGenerator random, final String name) {
            this.random = random;
            this.name = name;
        }

        End peerOf(final End end) {
            return end == client ? server : client;
        }

        /**
         * Sends a frame from one end: it reaches the peer after the link's delay and after every frame sent before it;
         * while the link is cut it waits (TCP sends it again every {@value #RETRANSMIT_MS} ms) until the link heals or
         * the connection ends.
         */
        void carry(final End from, final ByteBuf frame) {
            final End to = peerOf(from);
            if (over || to == null) {
                frame.release();
                return;
            }
            frames++;
            bytes += frame.readableBytes();
            from.unread.addLast(new Frame(frame, sim.nowMs() + topology.delayMs(random)));
            if (from.unread.size() == 1) {
                deliverAt(from, to, from.unread.peekFirst().dueMs());
            }
        }

        private void deliverAt(final End from, final End to, final long atMs) {
            sim.at("wire " + name + " " + from.node + ">" + to.node, to.node, atMs, () -> deliver(from, to));
        }

        /** The oldest frame from one end arrives, unless the link is cut now: then it is sent again later. */
        private void deliver(final End from, final End to) {
            final Frame head = from.unread.peekFirst();
            if (over || head == null) {
                return;
            }
            if (!topology.linkUp(from.node, to.node)) {
                deliverAt(from, to, sim.nowMs() + RETRANSMIT_MS);
                return;
            }
            from.unread.removeFirst();
            if (topology.incarnation(to.node) != to.incarnation) {
                head.bytes().release();
                breakNow(); // the receiving process is gone: a reset
                return;
            }
            final Frame next = from.unread.peekFirst();
            if (next != null) {
                deliverAt(from, to, Math.max(next.dueMs(), sim.nowMs()));
            }
            to.writeInbound(head.bytes());
        }

        /** One end closed: the other closes a link delay later (its FIN or reset arrives then). */
        void closedBy(final End end) {
            if (over) {
                return;
            }
            over = true;
            releaseUnread();
            final End peer = peerOf(end);
            if (peer != null && peer.isOpen()) {
                sim.schedule("wire-close " + name + " " + end.node + ">" + peer.node, peer.node,
                    topology.delayMs(random), peer::close);
            }
        }

        void breakNow() {
            if (over) {
                return;
            }
            over = true;
            broken++;
            releaseUnread();
            if (client != null && client.isOpen()) {
                client.close();
            }
            if (server != null && server.isOpen()) {
                server.close();
            }
        }

        private void releaseUnread() {
            for (final End end : new End[] {client, server}) {
                if (end != null) {
                    for (Frame f = end.unread.pollFirst(); f != null; f = end.unread.pollFirst()) {
                        f.bytes().release();
                    }
                }
            }
        }
    }

    /**
     * Opens a connection from a process to a node's server, for a {@code WireClient}'s connector.
     *
     * @param from        the client's node
     * @param incarnation the client's process
     * @param to          the server's node
     * @param random      where the connection's link delays are drawn from
     * @param name        names the connection in event names (deterministic)
     * @param pipeline    the client's handlers
     * @return completes after a round trip, or fails (refused, unreachable)
     */
    ChannelFuture connect(final int from, final int incarnation, final int to, final RandomGenerator random,
                          final String name, final ChannelHandler pipeline) {
        final Connection c = new Connection(random, name);
        final End client = new End(c, from, incarnation, pipeline);
        c.client = client;
        connections++;
        final ChannelPromise connected = client.newPromise();
        c.connecting = connected;
        if (!topology.linkUp(from, to)) {
            refuse(client, connected, "timed out", CONNECT_TIMEOUT_MS);
            return connected;
        }
        sim.schedule("wire-syn " + name + " " + from + ">" + to, to, topology.delayMs(random), () -> {
            final int serverIncarnation = topology.incarnation(to);
            if (!topology.linkUp(to, from) || !client.isOpen()) {
                refuse(client, connected, "timed out", CONNECT_TIMEOUT_MS);
                return;
            }
            if (serverIncarnation < 0) {
                refuse(client, connected, "refused", topology.delayMs(random));
                return;
            }
            c.server = new End(c, to, serverIncarnation, topology.serverHandlers(to));
            sim.schedule("wire-syn-ack " + name + " " + to + ">" + from, from, topology.delayMs(random), () -> {
                if (topology.incarnation(from) != incarnation || !client.isOpen() || c.over) {
                    // The client ended, or the server did while the handshake was on its way: the connect fails.
                    c.breakNow();
                    client.close();
                    return;
                }
                connected.setSuccess();
            });
        });
        return connected;
    }

    private void refuse(final End client, final ChannelPromise connected, final String why, final long delayMs) {
        sim.schedule("wire-refused " + client.connection.name, client.node, delayMs, () -> {
            client.connection.over = true;
            connected.tryFailure(new ConnectException("connection " + why + " (" + client.connection.name + ")"));
            client.close();
        });
    }

    /**
     * A node's process ended (a crash or a stop): its ends close at once (nothing of it runs any more), and each
     * peer's end a link delay later.
     *
     * @param node the node
     */
    void ended(final int node) {
        for (final End end : new ArrayList<>(ends)) {
            if (end.node == node && end.isOpen()) {
                end.close();
            }
        }
    }

    /**
     * Every connection of a node's process resets at once (a network interface that flaps, a middlebox that drops its
     * state): both ends close now and what was in flight either way is lost, so a request may have been served with
     * its answer lost; the clients find out and connect again.
     *
     * @param node the node
     * @return the connections reset
     */
    int reset(final int node) {
        int reset = 0;
        for (final End end : new ArrayList<>(ends)) {
            final Connection c = end.connection;
            if (end == c.client && !c.over && (end.node == node || c.server != null && c.server.node == node)) {
                c.breakNow();
                reset++;
            }
        }
        return reset;
    }

    /** Runs the channels' queued tasks, over the ends in the order they were opened; forgets closed ends. */
    void pump() {
        for (int i = 0; i < ends.size(); i++) {
            final End end = ends.get(i);
            end.runPendingTasks();
        }
        ends.removeIf(end -> !end.isOpen());
    }

    /**
     * What the network carried, for reports.
     *
     * @return connections opened, frames and bytes carried, connections broken
     */
    String stats() {
        return connections + " connections, " + frames + " frames, " + bytes + " bytes, " + broken + " broken";
    }

    long frames() {
        return frames;
    }

    /**
     * A frame's bytes as they stand now (a file region is read now, as {@code sendfile} reads it when it is written).
     */
    private static ByteBuf copyOf(final Object msg) {
        if (msg instanceof ByteBuf b) {
            return Unpooled.copiedBuffer(b);
        }
        if (msg instanceof FileRegion region) {
            final int count = Math.toIntExact(region.count());
            final ByteBuffer out = ByteBuffer.allocate(count);
            final WritableByteChannel into = new WritableByteChannel() {
                @Override
                public int write(final ByteBuffer src) {
                    final int n = Math.min(src.remaining(), out.remaining());
                    final ByteBuffer part = src.duplicate();
                    part.limit(part.position() + n);
                    out.put(part);
                    src.position(src.position() + n);
                    return n;
                }

                @Override
                public boolean isOpen() {
                    return true;
                }

                @Override
                public void close() {
                }
            };
            try {
                while (out.hasRemaining()) {
                    if (region.transferTo(into, out.position()) <= 0) {
                        throw new IOException("the file region stopped at " + out.position() + " of " + count
                            + " bytes");
                    }
                }
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
            return Unpooled.wrappedBuffer(out.flip());
        }
        throw new IllegalArgumentException("cannot carry a " + msg.getClass().getName());
    }
}
