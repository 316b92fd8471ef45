package io.seglog.replication.data.clients;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One consumer-group member's workload, written once against the part of kafka-clients' API that 3.x and 4.x share
 * (like {@link ProducerDriver}), so the same bytecode drives the test class path's 4.4 or an older jar in a child-first
 * loader. It subscribes, polls, reports every record it is handed, and commits what it processed after each poll that
 * returned records ({@code commitSync}, or {@code commitAsync} one time in four), every tenth empty poll, and on each
 * revocation. Everything it sees goes to an event sink of JDK types only, so a test can read it across class loaders.
 *
 * <p>Events ({@code kind}, numbers): {@code assigned}, {@code revoked}, {@code lost} (generation, partitions...);
 * {@code polled} (generation, partition, offset, the record's value as a number); {@code commitSent} (commit id, counted per run from 1,
 * generation, then partition and offset pairs); {@code committed} and {@code commitFailed:<exception's simple name>} (commit id); {@code killed}
 * and {@code closed} (nothing). The generation is {@code groupMetadata().generationId()} when the event happens.
 *
 * <p>Not thread-safe: {@link #run} owns its consumer on the calling thread, as kafka-clients requires; the
 * {@code control} it is given is the only thing another thread touches.
 */
public final class ConsumerDriver {
    /** {@code control}: keep polling. */
    public static final int RUN = 0;
    /** {@code control}: commit what was processed and close the consumer (a dynamic member leaves the group). */
    public static final int LEAVE = 1;
    /**
     * {@code control}: after the next poll that returns records (or twenty empty ones), stop dead without committing
     * it: hold the consumer's coordinator lock, so its heartbeat thread is stuck and nothing more goes out (no
     * heartbeat, no LeaveGroup when the poll interval passes): only the session timeout removes the member. When the
     * given latch opens, the member tries one commit of what it had processed (a zombie's) and closes.
     */
    public static final int KILL = 2;

    /** Creates a driver. */
    public ConsumerDriver() {
    }

    /**
     * Runs one member on the calling thread until {@code control} says otherwise.
     *
     * @param config   the consumer's configuration (byte-array deserializers are added)
     * @param topic    the topic to subscribe to
     * @param seed     chooses between commitSync and commitAsync
     * @param control  {@link #RUN}, {@link #LEAVE} or {@link #KILL}, set by the test
     * @param released for a killed member: opens when the test lets it close
     * @param events   the sink (called on this thread; the test serialises)
     * @throws InterruptedException when interrupted while killed
     */
    public void run(final Map<String, Object> config, final String topic, final long seed, final AtomicInteger control,
                    final CountDownLatch released, final BiConsumer<String, long[]> events)
        throws InterruptedException {
        final Thread thread = Thread.currentThread();
        final ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(ConsumerDriver.class.getClassLoader());
        try {
            new Member(config, topic, seed, control, events).run(released);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    /** The state of one run: the consumer and what it processed and has not yet committed. */
    private static final class Member implements ConsumerRebalanceListener {
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final SplittableRandom random;
        private final AtomicInteger control;
        private final BiConsumer<String, long[]> events;
        /** Per owned partition, the offset after the last record processed. */
        private final Map<TopicPartition, OffsetAndMetadata> processed = new HashMap<>();
        private boolean commits = true;
        private long commitIds;

        Member(final Map<String, Object> config, final String topic, final long seed, final AtomicInteger control,
               final BiConsumer<String, long[]> events) {
            this.consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            this.random = new SplittableRandom(seed);
            this.control = control;
            this.events = events;
            consumer.subscribe(List.of(topic), this);
        }

        // close(Duration) is deprecated in 4.x for close(CloseOptions), which 3.x does not have.
        @SuppressWarnings("deprecation")
        void run(final CountDownLatch released) throws InterruptedException {
            try {
                int emptyPollsWhileDying = 0;
                long idlePolls = 0;
                while (control.get() != LEAVE) {
                    final ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
                    final long generation = consumer.groupMetadata().generationId();
                    for (final ConsumerRecord<byte[], byte[]> r : records) {
                        events.accept("polled", new long[] {generation, r.partition(), r.offset(),
                            Long.parseLong(new String(r.value(), StandardCharsets.UTF_8))});
                        processed.put(new TopicPartition(r.topic(), r.partition()),
                            new OffsetAndMetadata(r.offset() + 1));
                    }
                    if (control.get() == KILL && (!records.isEmpty() || ++emptyPollsWhileDying >= 20)) {
                        // Dies between processing a poll and committing it: those records are delivered again.
                        commits = false;
                        freeze(released);
                        // Back from the dead: a zombie's commit, with the generation it had, which the coordinator
                        // must refuse now that the group has moved on (if the client sends it at all).
                        commits = true;
                        commit(new HashMap<>(processed), false);
                        return;
                    }
                    if (!records.isEmpty()) {
                        commit(new HashMap<>(processed), random.nextInt(4) == 0);
                    } else if (++idlePolls % 10 == 0) {
                        // Again about once a second while idle, so a failed commit is not the last word once the
                        // producer has stopped.
                        commit(new HashMap<>(processed), false);
                    }
                }
                commit(new HashMap<>(processed), false);
            } finally {
                consumer.close(Duration.ofSeconds(10));
                events.accept("closed", new long[0]);
            }
        }

        /** Holds the coordinator's monitor (its heartbeat thread's lock) until released. */
        private void freeze(final CountDownLatch released) throws InterruptedException {
            final Object coordinator = field(field(consumer, "delegate"), "coordinator");
            synchronized (coordinator) {
                events.accept("killed", new long[0]);
                released.await();
            }
        }

        private static Object field(final Object owner, final String name) {
            for (Class<?> c = owner.getClass(); c != null; c = c.getSuperclass()) {
                try {
                    final Field f = c.getDeclaredField(name);
                    f.setAccessible(true);
                    return f.get(owner);
                } catch (final NoSuchFieldException e) {
                    // look in the superclass
                } catch (final IllegalAccessException e) {
                    throw new IllegalStateException("cannot read " + name + " of " + owner.getClass(), e);
                }
            }
            throw new IllegalStateException(owner.getClass() + " has no field " + name);
        }

        private void commit(final Map<TopicPartition, OffsetAndMetadata> offsets, final boolean async) {
            if (offsets.isEmpty() || !commits) {
                return;
            }
            final long id = ++commitIds;
            final long[] sent = new long[2 + 2 * offsets.size()];
            sent[0] = id;
            sent[1] = consumer.groupMetadata().generationId();
            int i = 2;
            for (final Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
                sent[i++] = e.getKey().partition();
                sent[i++] = e.getValue().offset();
            }
            events.accept("commitSent", sent);
            if (async) {
                consumer.commitAsync(offsets, (done, error) -> events.accept(error == null ? "committed"
                    : "commitFailed:" + error.getClass().getSimpleName(), new long[] {id}));
                return;
            }
            try {
                consumer.commitSync(offsets);
                events.accept("committed", new long[] {id});
            } catch (final KafkaException e) {
                // Refused (a rebalance, a stale generation, a fenced instance) or timed out: not acknowledged.
                events.accept("commitFailed:" + e.getClass().getSimpleName(), new long[] {id});
            }
        }

        private void report(final String kind, final Collection<TopicPartition> partitions) {
            final long[] out = new long[1 + partitions.size()];
            out[0] = consumer.groupMetadata().generationId();
            int i = 1;
            for (final TopicPartition tp : partitions) {
                out[i++] = tp.partition();
            }
            events.accept(kind, out);
        }

        @Override
        public void onPartitionsRevoked(final Collection<TopicPartition> partitions) {
            final Map<TopicPartition, OffsetAndMetadata> mine = new HashMap<>();
            for (final TopicPartition tp : partitions) {
                final OffsetAndMetadata o = processed.remove(tp);
                if (o != null) {
                    mine.put(tp, o);
                }
            }
            commit(mine, false);
            report("revoked", new ArrayList<>(partitions));
        }

        @Override
        public void onPartitionsLost(final Collection<TopicPartition> partitions) {
            partitions.forEach(processed::remove);
            report("lost", new ArrayList<>(partitions));
        }

        @Override
        public void onPartitionsAssigned(final Collection<TopicPartition> partitions) {
            report("assigned", new ArrayList<>(partitions));
        }
    }
}
