package io.seglog.replication.readme;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Kafka's own clients against a Seglog cluster, with their default settings. */
public final class KafkaClientsExample {
    private KafkaClientsExample() {
    }

    /**
     * Produces one record and reads the partition back.
     *
     * @param args bootstrap.servers (default 127.0.0.1:9092, bin/seglog-cluster.sh's first broker)
     * @throws Exception if the send fails
     */
    public static void main(final String[] args) throws Exception {
        String bootstrap = args.length > 0 ? args[0] : "127.0.0.1:9092";
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);                    // idempotent, acks=all by default
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
            new StringSerializer())) {
            producer.send(new ProducerRecord<>("orders", "k", "hello")).get();  // the topic is created on first use
        }
        Properties c = new Properties();
        c.put("bootstrap.servers", bootstrap);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(),
            new StringDeserializer())) {
            TopicPartition tp = new TopicPartition("orders", 0);
            consumer.assign(List.of(tp));                         // or c.put("group.id", ...) and subscribe(...)
            consumer.seekToBeginning(List.of(tp));
            ConsumerRecords<String, String> records = ConsumerRecords.empty();
            for (int i = 0; i < 30 && records.isEmpty(); i++) {
                records = consumer.poll(Duration.ofSeconds(1));
            }
            records.forEach(r -> System.out.println(r.offset() + " " + r.key() + " " + r.value()));
        }
    }
}
