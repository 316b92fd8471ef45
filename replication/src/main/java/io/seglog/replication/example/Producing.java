package io.seglog.replication.example;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The quickstart's producing thread: sends {@code event-0}, {@code event-1}, ... to partition 0 of a topic at a
 * steady rate with at most {@link #MAX_UNANSWERED} records unanswered, and records each answer: the offset of an
 * acknowledged record, the error of a failed one. The pace keeps the tour readable (the kill lands mid-stream, the
 * progress lines show the pause while no broker leads) and the bound keeps the records in flight at the kill few.
 *
 * <p>Thread-safe: one thread sends, the producer's I/O thread answers, the quickstart's thread reads the counts.
 */
final class Producing {
    /** Records sent per second. */
    static final int RECORDS_PER_SECOND = 2_000;
    /** Records sent but not yet answered, at most. */
    static final int MAX_UNANSWERED = 1_000;

    private final KafkaProducer<String, String> producer;
    private final String topic;
    private final Thread thread;
    private final Semaphore unanswered = new Semaphore(MAX_UNANSWERED);
    private final Map<Integer, Long> offsets = new ConcurrentHashMap<>();
    private final Map<String, Integer> failures = new ConcurrentHashMap<>();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger acknowledgedAfterKill = new AtomicInteger();
    private final AtomicReference<Throwable> crash = new AtomicReference<>();
    private volatile int sent;
    private volatile int firstAfterKill = Integer.MAX_VALUE;
    private volatile boolean stopping;

    Producing(final KafkaProducer<String, String> producer, final String topic, final String threadName) {
        this.producer = producer;
        this.topic = topic;
        this.thread = new Thread(this::run, threadName);
    }

    void start() {
        thread.start();
    }

    private void run() {
        final long startNs = System.nanoTime();
        try {
            while (!stopping) {
                if (!unanswered.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                final int id = sent;
                final long dueNs = startNs + id * 1_000_000_000L / RECORDS_PER_SECOND;
                while (System.nanoTime() - dueNs < 0 && !stopping) {
                    Thread.sleep(1);
                }
                producer.send(new ProducerRecord<>(topic, 0, null, "event-" + id), (metadata, e) -> {
                    if (e == null) {
                        offsets.put(id, metadata.offset());
                        if (id >= firstAfterKill) {
                            acknowledgedAfterKill.incrementAndGet();
                        }
                    } else {
                        failed.incrementAndGet();
                        failures.merge(e.getClass().getSimpleName(), 1, Integer::sum);
                    }
                    unanswered.release();
                });
                sent = id + 1;
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (final RuntimeException | Error e) {
            crash.set(e);
        }
    }

    /** Records sent from now on count as sent after the kill. */
    void markKill() {
        firstAfterKill = sent;
    }

    void stop() {
        stopping = true;
    }

    void join(final Deadline deadline) throws InterruptedException {
        thread.join(deadline.remainingMs());
        if (thread.isAlive()) {
            thread.interrupt();
            throw deadline.timeout("the producing thread to stop");
        }
    }

    /** After a failure elsewhere, with the producer closed: waits a little for the thread, reporting nothing. */
    void joinQuietly() {
        try {
            thread.join(5_000);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        thread.interrupt();
    }

    /** Fails with what ended the producing thread, if something did. */
    void rethrow() {
        final Throwable t = crash.get();
        if (t != null) {
            throw new DemoFailure("the producer failed after " + sent + " records: " + t, t);
        }
    }

    int sent() {
        return sent;
    }

    int acknowledged() {
        return offsets.size();
    }

    int acknowledgedAfterKill() {
        return acknowledgedAfterKill.get();
    }

    int failed() {
        return failed.get();
    }

    /** Acknowledged record id to its offset (a copy). */
    Map<Integer, Long> offsets() {
        return Map.copyOf(offsets);
    }

    /** The failures by exception type, for a message: {@code " (TimeoutException: 3)"}, or empty. */
    String failures() {
        return failures.isEmpty() ? "" : new TreeMap<>(failures).entrySet().stream()
            .map(e -> e.getKey() + ": " + e.getValue()).collect(Collectors.joining(", ", " (", ")"));
    }
}
