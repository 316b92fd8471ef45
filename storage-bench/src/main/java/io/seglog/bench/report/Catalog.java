package io.seglog.bench.report;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which workload and system each benchmark method measures, in the order systems are listed.
 *
 * <p>Immutable.
 */
final class Catalog {

    static final String RAW_FRESH = "raw FileChannel.write, fresh file";
    /**
     * The same 1 MiB fetches by a plain {@code FileChannel.transferTo} loop: a reference path, not a ceiling of the
     * machine (the loopback sink thread and the page cache make it swing, and Kafka's path has beaten it), so it is
     * named for what it is.
     */
    static final String RAW_TRANSFER_TO = "plain transferTo loop (reference, not a ceiling)";
    static final String KAFKA_ITERATE = "Kafka read + iterate (consumer-style)";
    static final String KAFKA_RANDOM_READ = "Kafka UnifiedLog.read";
    static final String KAFKA_OFFSET_FOR_TIMESTAMP = "Kafka fetchOffsetByTimestamp";
    static final String RAW_SYNC = "raw write 256 KiB + fdatasync";
    static final String KAFKA_RECOVERY = "Kafka UnifiedLog.create after unclean shutdown";

    /**
     * A catalog entry: the workload and the system's display name; {@code allocationOnly} for a benchmark that
     * measures only the allocation of another's call (its B/op replaces the other's {@code -prof gc} figure).
     */
    record Entry(Workload workload, String system, int order, boolean allocationOnly) {
    }

    private static final Map<String, Entry> ENTRIES = new LinkedHashMap<>();

    static {
        add("RawFileChannelAppendBench.freshFile", Workload.APPEND, RAW_FRESH);
        add("RawFileChannelAppendBench.recycledFile", Workload.APPEND, "raw FileChannel.write, recycled file");
        add("RawMappedAppendBench.append", Workload.APPEND, "raw mmap (Chronicle Bytes), fresh file");
        add("SeglogAppendBench.appendAsLeader", Workload.APPEND, "Seglog appendAsLeader");
        add("SeglogAppendBench.appendAsFollower", Workload.APPEND, "Seglog appendAsFollower");
        add("KafkaUnifiedLogAppendBench.appendAsLeader", Workload.APPEND, "Kafka UnifiedLog.appendAsLeader");
        add("KafkaUnifiedLogAppendBench.appendAsFollower", Workload.APPEND, "Kafka UnifiedLog.appendAsFollower");
        add("KafkaLogSegmentAppendBench.append", Workload.APPEND, "Kafka LogSegment.append");
        add("ChronicleQueueAppendBench.append", Workload.APPEND, "Chronicle Queue, per message");

        add("RawTransferToBench.transferTo", Workload.FETCH, RAW_TRANSFER_TO);
        add("SeglogReadBench.transferTo", Workload.FETCH, "Seglog read + LogSlice.transferTo");
        add("KafkaReadBench.transferTo", Workload.FETCH, "Kafka read + FileRecords.writeTo");

        add("KafkaReadBench.iterate", Workload.ITERATE, KAFKA_ITERATE);
        add("SeglogReadBench.iterate", Workload.ITERATE, "Seglog read + iterate");

        add("KafkaReadBench.randomRead", Workload.RANDOM_READ, KAFKA_RANDOM_READ);
        add("SeglogReadBench.randomRead", Workload.RANDOM_READ, "Seglog PartitionLog.read");
        addAllocation("KafkaReadBench.randomReadAllocation", "KafkaReadBench.randomRead");
        addAllocation("SeglogReadBench.randomReadAllocation", "SeglogReadBench.randomRead");

        add("KafkaReadBench.offsetForTimestamp", Workload.OFFSET_FOR_TIMESTAMP, KAFKA_OFFSET_FOR_TIMESTAMP);
        add("SeglogReadBench.offsetForTimestamp", Workload.OFFSET_FOR_TIMESTAMP, "Seglog offsetForTimestamp");
        addAllocation("KafkaReadBench.offsetForTimestampAllocation", "KafkaReadBench.offsetForTimestamp");
        addAllocation("SeglogReadBench.offsetForTimestampAllocation", "SeglogReadBench.offsetForTimestamp");

        add("RecoveryBench.kafka", Workload.RECOVERY, KAFKA_RECOVERY);
        add("RecoveryBench.seglog", Workload.RECOVERY, "Seglog PartitionLog.open after crash");
        add("RecoveryBench.seglogParallel", Workload.RECOVERY,
            "Seglog PartitionLog.open after crash, CRCs on 2 threads");

        add("DurableAppendBench.rawWriteAndSync256KiB", Workload.DURABLE, RAW_SYNC);
        add("DurableAppendBench.seglog1Thread", Workload.DURABLE, "Seglog append + awaitDurable, 1 thread");
        add("DurableAppendBench.seglog8Threads", Workload.DURABLE, "Seglog append + awaitDurable, 8 threads");
    }

    private Catalog() {
    }

    private static void add(String shortName, Workload workload, String system) {
        ENTRIES.put(shortName, new Entry(workload, system, ENTRIES.size(), false));
    }

    /** The allocation-only twin of {@code measured}: same workload, system and order. */
    private static void addAllocation(String shortName, String measured) {
        Entry of = ENTRIES.get(measured);
        ENTRIES.put(shortName, new Entry(of.workload(), of.system(), of.order(), true));
    }

    /** @return the entry for a result, or an OTHER entry named after the benchmark */
    static Entry lookup(BenchResult result) {
        Entry entry = ENTRIES.get(result.shortName());
        return entry != null ? entry : new Entry(Workload.OTHER, result.shortName(), Integer.MAX_VALUE, false);
    }
}
