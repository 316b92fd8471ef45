package io.seglog.storage.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's embedding snippet is {@link Embedding} as a newcomer copies it (its whole file from the first import),
 * and that class runs as written: twice on one directory, the second run finding the first one's records.
 */
class EmbeddingTest {
    @TempDir
    Path dir;

    /** The README's fenced block that follows the marker naming {@code file}. */
    static List<String> quoted(final List<String> readme, final String file) {
        final String marker = "<!-- snippet: " + file + " -->";
        final int at = readme.indexOf(marker);
        assertTrue(at >= 0, "README.md has no " + marker);
        assertEquals("```java", readme.get(at + 1), "a java block follows " + marker);
        final List<String> block = new ArrayList<>();
        for (int i = at + 2; !readme.get(i).equals("```"); i++) {
            block.add(readme.get(i));
        }
        return block;
    }

    /** A source file from its first import to its end: what a newcomer pastes into a file of their own. */
    static List<String> fromImports(final List<String> source) {
        int first = 0;
        while (!source.get(first).startsWith("import ")) {
            first++;
        }
        return source.subList(first, source.size());
    }

    @Test
    void theReadmeQuotesTheWholeSampleClass() throws IOException {
        final Path root = Path.of(System.getProperty("user.dir")).getParent();
        final String file = "storage-core/src/main/java/io/seglog/storage/example/Embedding.java";
        assertEquals(fromImports(Files.readAllLines(root.resolve(file))),
            quoted(Files.readAllLines(root.resolve("README.md")), file));
    }

    @Test
    void theSampleRunsAsWritten() throws IOException {
        final List<String> first = run();
        assertEquals(3, first.size(), String.join("\n", first));
        assertTrue(first.get(0).matches("first offset at \\d+: 0"), first.get(0));
        assertEquals(List.of("0: order-1 = {\"qty\":2}", "1: order-2 = {\"qty\":5}"), first.subList(1, 3));
        assertTrue(Files.size(dir.resolve("orders-0.copy")) > 0, "the zero-copy transfer wrote the batch");
        // Again on the same directory: the log reopens (a clean shutdown) and appends after what it holds.
        final List<String> second = run();
        assertEquals(List.of("0: order-1 = {\"qty\":2}", "1: order-2 = {\"qty\":5}", "2: order-1 = {\"qty\":2}",
            "3: order-2 = {\"qty\":5}"), second.subList(1, 5));
    }

    private List<String> run() throws IOException {
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();
        final PrintStream out = System.out;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            Embedding.main(new String[] {dir.toString()});
        } finally {
            System.setOut(out);
        }
        return printed.toString(StandardCharsets.UTF_8).lines().toList();
    }
}
