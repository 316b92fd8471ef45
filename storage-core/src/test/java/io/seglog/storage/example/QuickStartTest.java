package io.seglog.storage.example;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QuickStartTest {
    @TempDir
    Path dir;

    @Test
    void runsAndFindsTheSameLogAfterReopen() throws Exception {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        QuickStart.run(dir.resolve("quickstart-0"), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        final String out = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains("reopened log matches"), out);
        assertTrue(out.contains("offsetForTimestamp(1700000004000) = 4"), out);
        assertTrue(out.contains("offset 7 ts 1700000007000 key key-7 value order #7"), out);
        assertTrue(Files.exists(dir.resolve("quickstart-0/00000000000000000006.log")), out);
    }

    @Test
    void mainAcceptsADirectory() throws Exception {
        QuickStart.main(new String[] {dir.toString()});
        assertTrue(Files.exists(dir.resolve("quickstart-0/00000000000000000000.index")));
    }
}
