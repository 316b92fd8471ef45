package io.seglog.storage.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.format.RecordBatchBuilder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's embedding snippet is {@link Embedding}'s code, and that code runs. */
class EmbeddingTest {
    @TempDir
    Path dir;

    private static List<String> between(final List<String> lines, final String begin, final String end) {
        final int from = indexOf(lines, begin) + 1;
        return lines.subList(from, indexOf(lines.subList(from, lines.size()), end) + from);
    }

    private static int indexOf(final List<String> lines, final String marker) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).trim().startsWith(marker)) {
                return i;
            }
        }
        throw new AssertionError("no line starting with " + marker);
    }

    private static List<String> stripped(final List<String> lines) {
        // The README shows the snippet without the method's indentation.
        final int indent = lines.get(0).length() - lines.get(0).stripLeading().length();
        return lines.stream().map(l -> l.length() >= indent ? l.substring(indent) : l.strip()).toList();
    }

    @Test
    void theReadmeQuotesTheSampleClass() throws IOException {
        final Path root = Path.of(System.getProperty("user.dir")).getParent();
        final List<String> readme = Files.readAllLines(root.resolve("README.md"));
        final List<String> source = Files.readAllLines(root.resolve(
            "storage-core/src/main/java/io/seglog/storage/example/Embedding.java"));
        final List<String> quoted = between(readme.subList(indexOf(readme, "## Embedding the log"), readme.size()),
            "```java", "```");
        assertEquals(stripped(between(source, "// README-begin", "// README-end")), quoted,
            "README.md's embedding snippet must be Embedding.java's README-begin..README-end region");
    }

    @Test
    void theSampleRuns() throws IOException {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocate(4096));
        final RecordBatchBuilder builder = new RecordBatchBuilder().wrap(buffer, 0, buffer.capacity());
        for (int r = 0; r < 3; r++) {
            builder.beginRecord(1_000L + r, null, ("v" + r).getBytes(StandardCharsets.UTF_8), 0).endRecord();
        }
        final ByteBuffer batch = buffer.byteBuffer().duplicate().limit(builder.build());
        final ByteArrayOutputStream sent = new ByteArrayOutputStream();
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();
        Embedding.run(dir, batch, 0, Channels.newChannel(sent), 1_001L,
            new PrintStream(printed, true, StandardCharsets.UTF_8));
        assertEquals(batch.limit(), sent.size(), "the read sent the whole batch");
        assertEquals(List.of("first offset at 1001: 1", "0: 2 bytes", "1: 2 bytes", "2: 2 bytes"),
            printed.toString(StandardCharsets.UTF_8).lines().toList());
        assertTrue(Files.exists(dir.resolve("orders-0/00000000000000000000.log")));
    }
}
