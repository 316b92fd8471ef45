package io.seglog.replication.data.clients;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A producer workload written once against the part of kafka-clients' API that 3.x and 4.x share, so that the same
 * bytecode drives whichever kafka-clients its class loader sees: the test's class path (4.4) or a child-first loader
 * over an older jar ({@code LegacyClients}). Its methods take and return JDK types only, so a test can call it across
 * class loaders by reflection.
 *
 * <p>While it runs, the thread's context class loader is this class's, so that kafka-clients resolves class names
 * from its own jar. Not thread-safe: one workload at a time.
 */
public final class ProducerDriver {
    /** The value of {@link #produce}'s result for a record whose send failed. */
    public static final long NOT_ACKNOWLEDGED = -1;

    /** Creates a driver. */
    public ProducerDriver() {
    }

    /**
     * The kafka-clients version this driver runs on: the {@code kafka/kafka-version.properties} that
     * {@code AppInfoParser} reads, as the producer's class loader finds it ({@code AppInfoParser} itself moved to an
     * internal package in 4.x, so the driver does not name it).
     *
     * @return the {@code version} there
     */
    public String clientVersion() {
        try (InputStream in = KafkaProducer.class.getClassLoader().getResourceAsStream("kafka/kafka-version.properties")) {
            if (in == null) {
                throw new IllegalStateException("no kafka/kafka-version.properties beside " + producerCodeSource());
            }
            final Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Where the producer class this driver uses was loaded from.
     *
     * @return the code source location of {@code KafkaProducer}
     */
    public String producerCodeSource() {
        return String.valueOf(KafkaProducer.class.getProtectionDomain().getCodeSource().getLocation());
    }

    /**
     * Sends {@code count} records with values {@code v0}, {@code v1}, ... to one partition with a producer configured
     * by {@code config} alone (byte-array serializers are added), runs {@code midway} after the send of record
     * {@code midwayAt} (while records are still in flight), and closes the producer once every send has completed.
     *
     * @param config    the producer's configuration (for Kafka's defaults, only {@code bootstrap.servers})
     * @param topic     the topic
     * @param partition the partition
     * @param count     the records to send
     * @param midwayAt  the index after whose send {@code midway} runs
     * @param midway    a fault to inject mid-stream (stopping a broker), run on the calling thread
     * @return per record, the offset it was acknowledged at, or {@link #NOT_ACKNOWLEDGED}; the last element (index
     *     {@code count}) is the number of sends that failed
     */
    public long[] produce(final Map<String, Object> config, final String topic, final int partition, final int count,
                          final int midwayAt, final Runnable midway) {
        final Thread thread = Thread.currentThread();
        final ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(ProducerDriver.class.getClassLoader());
        final AtomicLongArray offsets = new AtomicLongArray(count + 1);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(),
            new ByteArraySerializer())) {
            for (int i = 0; i < count; i++) {
                final int index = i;
                producer.send(new ProducerRecord<>(topic, partition, null,
                    ("v" + i).getBytes(StandardCharsets.UTF_8)), (metadata, error) -> {
                        if (error == null) {
                            offsets.set(index, metadata.offset());
                        } else {
                            offsets.set(index, NOT_ACKNOWLEDGED);
                            offsets.incrementAndGet(count);
                        }
                    });
                if (i == midwayAt) {
                    midway.run();
                }
            }
            producer.flush();
        } finally {
            thread.setContextClassLoader(previous);
        }
        final long[] result = new long[count + 1];
        for (int i = 0; i <= count; i++) {
            result[i] = offsets.get(i);
        }
        return result;
    }
}
