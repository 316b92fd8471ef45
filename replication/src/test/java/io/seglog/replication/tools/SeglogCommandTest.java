package io.seglog.replication.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.LogConfig;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code seglog} command line on real log directories: exit codes, what goes to standard output and error, and
 * that {@code verify}, {@code dump-log} and {@code recover --dry-run} change nothing.
 */
class SeglogCommandTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final int BATCHES = 40;

    @TempDir
    Path root;

    private record Run(int code, String out, String err) {
        List<String> lines() {
            return out.lines().toList();
        }
    }

    private static Run seglog(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = SeglogCommand.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(code, out.toString(), err.toString());
    }

    /** A closed partition "orders-0" of several segments, one two-record batch per append. */
    private Path partition() {
        final Path dir = root.resolve("logs").resolve("orders-0");
        try (PartitionLog log = PartitionLog.open(dir, LogConfig.builder().segmentBytes(2_048).indexIntervalBytes(128)
            .build(), FileIO.system(), InstantSource.fixed(java.time.Instant.ofEpochMilli(T0)))) {
            for (int i = 0; i < BATCHES; i++) {
                log.appendAsLeader(MemoryRecords.withRecords(0L, Compression.NONE,
                    new SimpleRecord(T0 + i, ("k" + i).getBytes(StandardCharsets.UTF_8),
                        ("v" + i).getBytes(StandardCharsets.UTF_8)),
                    new SimpleRecord(T0 + i, null, ("w" + i).getBytes(StandardCharsets.UTF_8))).buffer(), 1);
            }
        }
        return dir;
    }

    private static Map<Path, String> hashes(final Path dir) throws IOException, NoSuchAlgorithmException {
        final Map<Path, String> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (final Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                out.put(f, HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f)))
                    + "@" + Files.getLastModifiedTime(f).toMillis());
            }
        }
        return out;
    }

    private static List<Path> segments(final Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".log")).sorted().toList();
        }
    }

    @Test
    void everyCommandHasHelpAndABadOptionIsAUsageError() {
        final Run help = seglog("--help");
        assertEquals(0, help.code());
        for (final String command : List.of("dump-log", "verify", "recover", "zk")) {
            assertTrue(help.out().contains(command), help.out());
            final Run sub = seglog(command, "--help");
            assertEquals(0, sub.code(), command);
            assertTrue(sub.out().contains("Usage: seglog " + command), sub.out());
        }
        // Each command's summary in the list is one whole sentence (a header), not a description cut mid-sentence.
        final String commands = help.out().substring(help.out().indexOf("Commands:"));
        for (final String summary : commands.split("\n  (?=[a-z])")) {
            if (!summary.startsWith("Commands:")) {
                assertTrue(summary.strip().endsWith("."), "a whole sentence: " + summary);
            }
        }
        final Run version = seglog("-V");
        assertEquals(0, version.code());
        assertTrue(version.out().lines().findFirst().orElse("").matches("seglog \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"),
            "the build's version, not a placeholder: " + version.out());
        final Run bad = seglog("verify", "--no-such-option", root.toString());
        assertEquals(SeglogCommand.FAILED, bad.code());
        assertTrue(bad.err().contains("--no-such-option"), bad.err());
        assertEquals(SeglogCommand.FAILED, seglog("verify", root.resolve("missing").toString()).code(),
            "a directory that does not exist");
    }

    @Test
    void verifyPassesAHealthyLogDirectoryAndReportsDamageWithExitCodeOne() throws Exception {
        final Path dir = partition();
        final Map<Path, String> before = hashes(dir.getParent());
        final Run ok = seglog("verify", dir.getParent().toString());
        assertEquals(0, ok.code(), ok.out() + ok.err());
        assertEquals(List.of("OK: 1 partition(s), " + segments(dir).size() + " segment(s), " + BATCHES
            + " batch(es), " + segments(dir).stream().mapToLong(p -> p.toFile().length()).sum() + " bytes checked"),
            ok.lines());
        assertEquals(segments(dir).size(), ok.err().lines().count(), "one progress line per segment: " + ok.err());
        assertEquals(before, hashes(dir.getParent()), "nothing written");

        final Path second = segments(dir).get(1);
        try (RandomAccessFile f = new RandomAccessFile(second.toFile(), "rw")) {
            f.seek(70);
            f.write(f.read() ^ 0x10);
        }
        final Run damaged = seglog("verify", "--quiet", dir.toString());
        assertEquals(SeglogCommand.PROBLEMS, damaged.code());
        assertEquals("", damaged.err());
        assertTrue(damaged.lines().get(0).startsWith(second + ": position 0, offset "), damaged.out());
        assertTrue(damaged.lines().get(0).contains("CRC-32C"), damaged.out());
        // Recovery would cut the log there, so the snapshot the close wrote at the old end is past the new one.
        assertTrue(damaged.lines().get(1).endsWith(".snapshot: offset " + 2 * BATCHES
            + ": a producer snapshot past the log end offset " + segments(dir).get(1).getFileName().toString()
            .replaceFirst("^0+(?=.)", "").replace(".log", "")), damaged.out());
        assertTrue(damaged.lines().get(2).startsWith("2 problem(s): "), damaged.out());
    }

    @Test
    void dumpLogPrintsEveryBatchAndWithPrintDataEveryRecord() throws Exception {
        final Path dir = partition();
        final Map<Path, String> before = hashes(dir);
        final Run batches = seglog("dump-log", dir.toString());
        assertEquals(0, batches.code(), batches.err());
        assertEquals(BATCHES, batches.lines().stream().filter(l -> l.startsWith("baseOffset: ")).count());
        final Run records = seglog("dump-log", "--print-data", segments(dir).get(0).toString());
        assertEquals(0, records.code(), records.err());
        assertTrue(records.lines().contains("| offset: 0 CreateTime: " + T0
            + " keySize: 2 valueSize: 2 sequence: -1 headerKeys: [] key: k0 payload: v0"), records.out());
        assertTrue(records.lines().contains("| offset: 1 CreateTime: " + T0
            + " keySize: -1 valueSize: 2 sequence: -1 headerKeys: [] payload: w0"), records.out());
        assertEquals(before, hashes(dir), "nothing written");
    }

    @Test
    void recoverDryRunReportsATornTailAndChangesNothingThenRecoverCutsIt() throws Exception {
        final Path dir = partition();
        final List<Path> logs = segments(dir);
        final Path last = logs.get(logs.size() - 1);
        final long length = Files.size(last);
        try (RandomAccessFile f = new RandomAccessFile(last.toFile(), "rw")) {
            f.setLength(length - 5);
        }
        final Map<Path, String> before = hashes(dir);
        final Run dry = seglog("recover", "--dry-run", dir.toString());
        assertEquals(0, dry.code(), dry.out() + dry.err());
        assertTrue(dry.out().contains("would truncate " + last + " at position "), dry.out());
        assertTrue(dry.out().contains("TORN_TAIL"), dry.out());
        assertEquals(before, hashes(dir), "a dry run writes nothing");

        final Run real = seglog("recover", dir.toString());
        assertEquals(0, real.code(), real.out() + real.err());
        assertTrue(real.out().contains("truncated " + last + " at position "), real.out());
        assertTrue(real.out().contains("log end offset " + 2 * (BATCHES - 1)), real.out());
        final Run verified = seglog("verify", "-q", dir.toString());
        assertEquals(0, verified.code(), "healthy after recovery: " + verified.out());
    }
}
