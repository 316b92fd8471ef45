package io.seglog.bench.cluster;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The kafka-clients side of the comparison, identical for both systems: the producer and consumer settings and
 * the two measurements (throughput as fast as the producer sends; paced send-to-ack and produce-to-consume
 * latency).
 *
 * <p>Producer settings: {@code batch.size} 64 KiB, {@code linger.ms} 5 for throughput and 0 for latency,
 * {@code buffer.memory} 64 MiB, {@code max.in.flight.requests.per.connection} 5, no compression;
 * {@code enable.idempotence} left at the client's default (true) for {@code acks=all} when {@code idempotence} is
 * on, and false otherwise (an {@code acks=1} producer cannot be idempotent). Consumer: {@code assign()} of the one
 * partition, no group, positioned at the log end before the first send, otherwise kafka-clients' defaults
 * ({@code fetch.min.bytes} 1, {@code fetch.max.wait.ms} 500).
 *
 * <p>Latencies of the paced phase are recorded in HdrHistograms from each record's <em>intended</em> send time (its
 * slot in the schedule), not the moment {@code send} returned, so a producer held up by a slow broker counts the wait
 * of every record behind it: coordinated omission corrected, as the OpenMessaging benchmark records them.
 *
 * <p>Stateless; each call owns its clients.
 */
final class ClientWorkload {
    /** Producer batch size: what one produce request carries at full speed. */
    static final int BATCH_BYTES = 64 * 1024;
    /** Bytes of a paced record's key: its send time and sequence number (two longs). */
    static final int STAMP_BYTES = 16;

    private ClientWorkload() {
    }

    /**
     * Creates a one-partition topic led by broker 1 (replicated to brokers 1, 2 and 3 when {@code replicationFactor}
     * is 3) through CreateTopics with an explicit assignment, which both systems serve, and returns once its leader
     * has a full ISR.
     *
     * @throws IllegalStateException when the topic is not led with a full ISR within a minute
     */
    static void createLedByBrokerOne(final org.apache.kafka.clients.admin.Admin admin, final String system,
                                     final String topic, final int replicationFactor) throws Exception {
        final List<Integer> replicas = replicationFactor == 1 ? List.of(1) : List.of(1, 2, 3);
        admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, Map.of(0, replicas)))).all()
            .get(1, TimeUnit.MINUTES);
        awaitWithinAMinute(system + " " + topic + "-0 not led by broker 1 with an ISR of " + replicationFactor, () -> {
            final org.apache.kafka.common.TopicPartitionInfo p = admin.describeTopics(List.of(topic))
                .allTopicNames().get(10, TimeUnit.SECONDS).get(topic).partitions().get(0);
            return p.leader() != null && p.leader().id() == 1 && p.isr().size() == replicationFactor;
        });
    }

    /**
     * Deletes {@code topic} and returns once no broker's metadata names it; its files go {@code
     * log.segment.delete.delay.ms} later (a second, both systems). A run writes tens of GB per minute at full rate,
     * so every topic is deleted once it has been measured.
     *
     * @throws IllegalStateException when the topic is still listed a minute later
     */
    static void delete(final org.apache.kafka.clients.admin.Admin admin, final String system, final String topic)
        throws Exception {
        admin.deleteTopics(List.of(topic)).all().get(1, TimeUnit.MINUTES);
        awaitWithinAMinute(system + " " + topic + " not gone from the topic list",
            () -> !admin.listTopics().names().get(10, TimeUnit.SECONDS).contains(topic));
    }

    /**
     * Asks {@code done} every 20 ms until it answers true; an {@link java.util.concurrent.ExecutionException} (the
     * broker asked does not know yet) counts as not yet.
     *
     * @throws IllegalStateException {@code failure} and "within a minute", when it has not answered true by then
     */
    private static void awaitWithinAMinute(final String failure, final java.util.concurrent.Callable<Boolean> done)
        throws Exception {
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (System.nanoTime() < deadline) {
            try {
                if (done.call()) {
                    return;
                }
            } catch (final java.util.concurrent.ExecutionException e) {
                // not yet in the metadata of the broker asked: ask again
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        throw new IllegalStateException(failure + " within a minute");
    }

    /** The producer's settings. */
    static Properties producerProps(final String bootstrap, final String acks, final boolean idempotence,
                                    final int lingerMs) {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, acks);
        if (!(idempotence && "all".equals(acks))) {
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        }
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, BATCH_BYTES);
        p.put(ProducerConfig.LINGER_MS_CONFIG, lingerMs);
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 64L << 20);
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        return p;
    }

    /**
     * A throughput phase's result.
     *
     * @param recordsPerSecond    acknowledged records per second over the phase
     * @param replicatedPerSecond the phase's records over the time from its start until the high watermark covered
     *                            the last of them (equal to the accepted rate, give or take the last poll, for acks=all)
     * @param catchUpMs           from the last acknowledgement until the high watermark reached the phase's end
     * @param clusterCpuMs        CPU time of the cluster's processes from the phase's start until the high watermark
     *                            reached its end
     * @param clientCpuMs         the same of this (the clients') process
     * @param records             the phase's records (those the high watermark covered)
     */
    record Throughput(double recordsPerSecond, double replicatedPerSecond, double catchUpMs, double clusterCpuMs,
                      double clientCpuMs, long records) {
    }

    /**
     * Acknowledged records per second, the producer sending as fast as it accepts records, after {@code leadInMs}
     * of the same unmeasured; then the wait until the high watermark (what a consumer may read) reaches the last
     * acknowledged offset, polled every millisecond through a consumer made before the phase.
     *
     * @throws IllegalStateException when any measured send failed, or the high watermark is not at the phase's end
     *                               two minutes after it
     */
    static Throughput throughput(final String bootstrap, final String topic, final String acks, final boolean idempotence,
                                 final int size, final long leadInMs, final long durationMs, final CpuMeter cpu) {
        final byte[] payload = payload(size);
        final AtomicLong acked = new AtomicLong();
        final AtomicLong firstOffset = new AtomicLong(Long.MAX_VALUE);
        final AtomicLong lastOffset = new AtomicLong(-1);
        final AtomicReference<Exception> failure = new AtomicReference<>();
        final TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> watcher = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps(bootstrap, acks, idempotence,
                 5), new ByteArraySerializer(), new ByteArraySerializer())) {
            watcher.endOffsets(List.of(tp), Duration.ofSeconds(30)); // metadata and connection before the phase
            final long leadInEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leadInMs);
            while (System.nanoTime() < leadInEnd) {
                producer.send(new ProducerRecord<>(topic, 0, null, payload));
            }
            producer.flush();
            final CpuMeter.Reading cpuAtStart = cpu.read();
            final long start = System.nanoTime();
            final long end = start + TimeUnit.MILLISECONDS.toNanos(durationMs);
            while (System.nanoTime() < end) {
                producer.send(new ProducerRecord<>(topic, 0, null, payload), (md, e) -> {
                    if (e == null) {
                        acked.incrementAndGet();
                        firstOffset.accumulateAndGet(md.offset(), Math::min);
                        lastOffset.accumulateAndGet(md.offset(), Math::max);
                    } else {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
            final long lastAck = System.nanoTime();
            if (failure.get() != null) {
                throw new IllegalStateException("a send to " + tp + " failed (acks=" + acks + ")", failure.get());
            }
            final long target = lastOffset.get() + 1;
            final long deadline = lastAck + TimeUnit.MINUTES.toNanos(2);
            long hw = -1;
            while (true) {
                hw = watcher.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
                final long now = System.nanoTime();
                if (hw >= target) {
                    final double[] used = cpu.read().since(cpuAtStart);
                    final long records = target - firstOffset.get();
                    return new Throughput(acked.get() * 1e9 / (lastAck - start), records * 1e9 / (now - start),
                        (now - lastAck) / 1e6, used[0], used[1], records);
                }
                if (now > deadline) {
                    throw new IllegalStateException(tp + ": high watermark " + hw + " short of " + target
                        + " two minutes after the throughput phase");
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        }
    }

    /**
     * Send-to-ack and produce-to-consume latencies of one paced phase, nanoseconds, from the intended send times.
     *
     * @param clusterCpuMs CPU time of the cluster's processes over the phase
     * @param elapsedMs    the phase, from the first send until the last record was consumed
     */
    record Latencies(org.HdrHistogram.Histogram produce, org.HdrHistogram.Histogram endToEnd, double clusterCpuMs,
                     double elapsedMs) {
    }

    /** A histogram of 1 us to 5 minutes in nanoseconds, 3 significant digits. */
    private static org.HdrHistogram.Histogram histogram() {
        return new org.HdrHistogram.Histogram(1_000, TimeUnit.MINUTES.toNanos(5), 3);
    }

    /**
     * Sends {@code ratePerSecond} records a second for {@code durationMs} ({@code linger.ms} 0), each with a
     * {@value #STAMP_BYTES}-byte key holding its send time and sequence number and a {@code size}-byte value, while
     * a consumer reads them back (skipping the keyless records of earlier phases); returns each record's send-to-ack and send-to-poll time.
     * A record not acknowledged, or not consumed within 30 s of the last send, fails the phase.
     */
    static Latencies paced(final String bootstrap, final String topic, final String acks, final boolean idempotence,
                           final int size, final double ratePerSecond, final long durationMs, final CpuMeter cpu)
        throws Exception {
        final int count = (int) Math.max(200, ratePerSecond * durationMs / 1_000);
        final long[] produce = new long[count];
        final long[] endToEnd = new long[count];
        Arrays.fill(produce, -1);
        Arrays.fill(endToEnd, -1);
        final AtomicReference<Exception> failure = new AtomicReference<>();
        final TopicPartition tp = new TopicPartition(topic, 0);
        final KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        final AtomicLong consumed = new AtomicLong();
        final Thread reader;
        try {
            consumer.assign(List.of(tp));
            consumer.seekToEnd(List.of(tp));
            consumer.position(tp, Duration.ofSeconds(30));
            reader = new Thread(() -> consume(consumer, endToEnd, count, consumed, failure), "bench-e2e-consumer");
            reader.setDaemon(true);
            reader.start();
        } catch (final RuntimeException e) {
            consumer.close();
            throw e;
        }
        final long intervalNs = (long) (1e9 / ratePerSecond);
        final byte[] filler = payload(size);
        final CpuMeter.Reading cpuAtStart;
        final long phaseStart;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps(bootstrap, acks, idempotence,
            0), new ByteArraySerializer(), new ByteArraySerializer())) {
            // One keyless record first, unmeasured (the consumer skips it): the producer's metadata, connection and
            // producer id are in place before the schedule starts, so its first records do not wait for them.
            producer.send(new ProducerRecord<>(topic, 0, null, filler)).get(1, TimeUnit.MINUTES);
            cpuAtStart = cpu.read();
            phaseStart = System.nanoTime();
            long next = phaseStart;
            for (int i = 0; i < count; i++) {
                final long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                final int index = i;
                final byte[] key = new byte[STAMP_BYTES];
                // The intended send time: a record sent late (the producer blocked) counts its wait.
                final long sent = next;
                ByteBuffer.wrap(key).putLong(sent).putLong(i);
                producer.send(new ProducerRecord<>(topic, 0, key, filler), (md, e) -> {
                    if (e == null) {
                        produce[index] = System.nanoTime() - sent;
                    } else {
                        failure.compareAndSet(null, e);
                    }
                });
                next += intervalNs;
            }
            producer.flush();
        }
        reader.join(TimeUnit.SECONDS.toMillis(30));
        final double[] used = cpu.read().since(cpuAtStart);
        final double elapsedMs = (System.nanoTime() - phaseStart) / 1e6;
        reader.interrupt();
        consumer.wakeup();
        reader.join(TimeUnit.SECONDS.toMillis(10));
        if (failure.get() != null) {
            throw new IllegalStateException("paced phase on " + topic + "-0 failed (acks=" + acks + ")",
                failure.get());
        }
        if (consumed.get() < count) {
            throw new IllegalStateException("consumer of " + topic + "-0 read " + consumed.get() + " of " + count
                + " records within 30 s of the last send");
        }
        final org.HdrHistogram.Histogram produceHistogram = histogram();
        final org.HdrHistogram.Histogram endToEndHistogram = histogram();
        for (int i = 0; i < count; i++) {
            produceHistogram.recordValue(Math.max(1_000, produce[i]));
            endToEndHistogram.recordValue(Math.max(1_000, endToEnd[i]));
        }
        return new Latencies(produceHistogram, endToEndHistogram, used[0], elapsedMs);
    }

    private static void consume(final KafkaConsumer<byte[], byte[]> consumer, final long[] endToEnd, final int count,
                                final AtomicLong consumed, final AtomicReference<Exception> failure) {
        try {
            while (consumed.get() < count && !Thread.currentThread().isInterrupted()) {
                for (final ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    final long now = System.nanoTime();
                    if (r.key() == null) {
                        // A throughput-phase record: with acks=1 the high watermark (where the consumer starts) can
                        // trail the log end while the followers catch up.
                        continue;
                    }
                    final ByteBuffer key = ByteBuffer.wrap(r.key());
                    final long sent = key.getLong();
                    final long seq = key.getLong();
                    if (seq < 0 || seq >= count || endToEnd[(int) seq] >= 0) {
                        throw new IllegalStateException("record at " + r.topic() + "-" + r.partition() + "@"
                            + r.offset() + " carries sequence " + seq + " (0.." + (count - 1) + ", or a duplicate)");
                    }
                    endToEnd[(int) seq] = now - sent;
                    consumed.incrementAndGet();
                }
            }
        } catch (final org.apache.kafka.common.errors.WakeupException e) {
            // Woken at the end of the phase: the count check reports what is missing.
        } catch (final Exception e) {
            failure.compareAndSet(null, e);
        } finally {
            consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }

    /** Percentile {@code q} of sorted values (the smallest value with at least {@code q} of them at or below). */
    static double percentile(final long[] sorted, final double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        final int i = (int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
        return sorted[Math.max(0, i)];
    }

    /** Percentile {@code q} (0..1) of a histogram, nanoseconds. */
    static double percentile(final org.HdrHistogram.Histogram h, final double q) {
        return h.getValueAtPercentile(q * 100);
    }

    /** Random bytes of a fixed seed. */
    static byte[] payload(final int size) {
        final byte[] b = new byte[size];
        new SplittableRandom(size).nextBytes(b);
        return b;
    }
}
