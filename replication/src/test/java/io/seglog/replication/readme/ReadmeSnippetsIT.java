package io.seglog.replication.readme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.data.DataCluster;
import io.seglog.replication.example.EmbeddedBroker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Java snippet in README.md is a class the build compiles, quoted whole from its first import (marked
 * {@code <!-- snippet: path -->} before the block), and each runs as written here: the embedded broker on a real
 * ZooKeeper, Kafka's clients against a three-broker cluster. (The storage snippet runs in storage-core's
 * EmbeddingTest.)
 */
@Timeout(300)
class ReadmeSnippetsIT {
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

    @TempDir
    Path dir;

    @Test
    void everySnippetIsTheWholeClassItNames() throws Exception {
        final List<String> readme = Files.readAllLines(ROOT.resolve("README.md"));
        int snippets = 0;
        int javaBlocks = 0;
        for (int i = 0; i < readme.size(); i++) {
            if (readme.get(i).equals("```java")) {
                javaBlocks++;
                final String marker = readme.get(i - 1);
                assertTrue(marker.startsWith("<!-- snippet: ") && marker.endsWith(" -->"),
                    "the java block at README.md line " + (i + 1) + " names no class: " + marker);
                final Path file = ROOT.resolve(marker.substring("<!-- snippet: ".length(), marker.length() - 4));
                final List<String> block = new ArrayList<>();
                for (int j = i + 1; !readme.get(j).equals("```"); j++) {
                    block.add(readme.get(j));
                }
                final List<String> source = Files.readAllLines(file);
                int first = 0;
                while (!source.get(first).startsWith("import ")) {
                    first++;
                }
                assertEquals(source.subList(first, source.size()), block, "README.md's block at line " + (i + 1)
                    + " must be " + file + " from its first import");
                snippets++;
            }
        }
        assertTrue(snippets >= 3, "the storage, broker and clients snippets: " + snippets);
        assertEquals(javaBlocks, snippets);
    }

    private static List<String> printed(final ThrowingRunnable run) throws Exception {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = System.out;
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            run.run();
        } finally {
            System.setOut(out);
        }
        return bytes.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void theEmbeddedBrokerSnippetRunsAsWrittenTwice() throws Exception {
        try (TestingServer zk = new TestingServer()) {
            final String logs = dir.resolve("broker").toString();
            final List<String> first = printed(() -> EmbeddedBroker.main(new String[] {zk.getConnectString(), logs}));
            assertEquals(List.of("appended at offset 0: NONE", "read 1 record(s) from offset 0, high watermark 1"),
                first);
            // A second run on the same directory and ZooKeeper: the topic exists, the log goes on.
            final List<String> second = printed(() -> EmbeddedBroker.main(new String[] {zk.getConnectString(), logs}));
            assertEquals(List.of("appended at offset 1: NONE", "read 1 record(s) from offset 1, high watermark 2"),
                second);
        }
    }

    @Test
    void theKafkaClientsSnippetRunsAsWrittenAgainstACluster() throws Exception {
        try (TestingServer zk = new TestingServer();
             DataCluster cluster = new DataCluster(zk.getConnectString(), dir, props -> { })) {
            cluster.startAll(1, 2, 3);
            final List<String> lines = printed(() -> KafkaClientsExample.main(new String[] {
                cluster.allBootstrapServers()}));
            assertFalse(lines.isEmpty(), "the consumer read the record back");
            assertEquals("0 k hello", lines.get(0));
        }
    }
}
