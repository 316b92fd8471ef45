package io.seglog.replication.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.transport.NotControllerException;
import io.seglog.storage.TopicPartition;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ControllerEventLoopTest {
    /** Records what it is given; ticks are due at {@code dueMs}. */
    private static final class Recorder implements ControllerEventLoop.Processor {
        final List<String> seen = new CopyOnWriteArrayList<>();
        final List<Thread> threads = new CopyOnWriteArrayList<>();
        volatile long dueMs = Long.MAX_VALUE;

        @Override
        public void process(final ControllerEvent event, final long nowMs) {
            threads.add(Thread.currentThread());
            if (event instanceof ControllerEvent.Custom c) {
                c.action().run();
            }
            seen.add(event.getClass().getSimpleName() + "@" + nowMs);
        }

        @Override
        public long nextTickMs() {
            return dueMs;
        }

        @Override
        public void tick(final long nowMs) {
            dueMs = Long.MAX_VALUE;
            seen.add("tick@" + nowMs);
        }

        @Override
        public void preempt(final ControllerEvent event) {
            event.preempt(7);
        }
    }

    @Test
    void processesInOrderOnOneThreadWithTheInjectedTime() {
        final AtomicLong clock = new AtomicLong(1000);
        final Recorder recorder = new Recorder();
        try (ControllerEventLoop loop = new ControllerEventLoop(r -> new Thread(r, "loop"), clock::get, recorder)) {
            loop.put(new ControllerEvent.BrokerChange());
            loop.put(new ControllerEvent.TopicChange());
            loop.start();
            Await.until(Duration.ofSeconds(5), () -> recorder.seen.size() == 2, recorder.seen::toString);
            assertEquals(List.of("BrokerChange@1000", "TopicChange@1000"), recorder.seen);
            assertEquals(1, Set.copyOf(recorder.threads).size());
            recorder.dueMs = 1500;
            clock.set(1499);
            loop.put(new ControllerEvent.TopicDeletion());
            Await.until(Duration.ofSeconds(5), () -> recorder.seen.size() == 3, recorder.seen::toString);
            clock.set(1500); // the injected clock reaches the due time: the tick runs
            Await.until(Duration.ofSeconds(5), () -> recorder.seen.size() == 4, recorder.seen::toString);
            assertEquals("tick@1500", recorder.seen.get(3));
        }
    }

    @Test
    void clearAndPutDropsQueuedEventsAndFailsTheirCallers() throws Exception {
        final Recorder recorder = new Recorder();
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch blocked = new CountDownLatch(1);
        try (ControllerEventLoop loop = new ControllerEventLoop(r -> new Thread(r, "loop"), System::currentTimeMillis,
            recorder)) {
            loop.start();
            loop.put(new ControllerEvent.Custom(() -> {
                blocked.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            assertTrue(blocked.await(5, TimeUnit.SECONDS));
            final CompletableFuture<Set<TopicPartition>> shutdown = new CompletableFuture<>();
            loop.put(new ControllerEvent.ControlledShutdown(1, 1, shutdown));
            loop.put(new ControllerEvent.BrokerChange());
            loop.clearAndPut(new ControllerEvent.SessionExpired(5));
            final ExecutionException e = assertThrows(ExecutionException.class, () -> shutdown.get(5, TimeUnit.SECONDS));
            assertInstanceOf(NotControllerException.class, e.getCause());
            release.countDown();
            Await.until(Duration.ofSeconds(5), () -> recorder.seen.size() == 2, recorder.seen::toString);
            assertTrue(recorder.seen.get(1).startsWith("SessionExpired@"), recorder.seen.toString());
        }
    }

    @Test
    void closeStopsTheThreadAndPreemptsWhatIsLeft() {
        final Recorder recorder = new Recorder();
        final ControllerEventLoop loop = new ControllerEventLoop(r -> new Thread(r, "loop-close"),
            System::currentTimeMillis, recorder);
        loop.start();
        loop.close();
        loop.close();
        final CompletableFuture<Set<TopicPartition>> late = new CompletableFuture<>();
        loop.put(new ControllerEvent.ControlledShutdown(1, 1, late));
        Await.until(Duration.ofSeconds(5), () -> Thread.getAllStackTraces().keySet().stream()
            .noneMatch(t -> t.getName().equals("loop-close")), () -> "loop thread ended");
        assertTrue(recorder.seen.isEmpty());
    }
}
