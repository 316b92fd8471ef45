package io.seglog.replication.controller;

import io.seglog.replication.transport.ControlChannel;
import io.seglog.replication.transport.ControlRequest;
import io.seglog.replication.transport.ControlResponse;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * A {@link ControlChannel} that records every message before handing it to another channel: shows that brokers
 * use the interface they were given (not a concrete channel) and lets tests see what the controller sent.
 * Thread-safe.
 */
final class RecordingControlChannel implements ControlChannel {
    /** One message as sent. */
    record Sent(int brokerId, ControlRequest request) {
    }

    private final ControlChannel delegate;
    private final List<Sent> sent = new ArrayList<>();
    /** Messages matching this are recorded but not delivered: they fail as if the broker refused them. */
    private volatile Predicate<Sent> refuse = s -> false;

    RecordingControlChannel(final ControlChannel delegate) {
        this.delegate = delegate;
    }

    @Override
    public CompletableFuture<ControlResponse> send(final int brokerId, final ControlRequest request) {
        final Sent message = new Sent(brokerId, request);
        synchronized (sent) {
            sent.add(message);
        }
        if (refuse.test(message)) {
            return CompletableFuture.failedFuture(new IllegalStateException("refused by the test: " + message));
        }
        return delegate.send(brokerId, request);
    }

    @Override
    public CompletableFuture<Set<TopicPartition>> controlledShutdown(final int controllerId, final int brokerId,
                                                                     final long brokerEpoch) {
        return delegate.controlledShutdown(controllerId, brokerId, brokerEpoch);
    }

    /** From now on, fails the messages that match instead of delivering them. */
    void refuse(final Predicate<Sent> filter) {
        refuse = filter;
    }

    /** The messages sent so far that match. */
    List<Sent> sent(final Predicate<Sent> filter) {
        synchronized (sent) {
            return sent.stream().filter(filter).toList();
        }
    }
}
