package io.seglog.replication.arch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Keeps docs/api.md true: the public top-level types of the replication module's main code are exactly the types
 * docs/api.md lists, in its API sections and in its section of types public only for another package of Seglog.
 * Replication is not a named module (ZooKeeper 3.9 splits packages between its jars), so {@code public} is its only
 * boundary, and this list is where a new public type is noticed.
 *
 * <p>How docs/api.md lists a type: a bullet that starts with the type's name in backquotes. Under a heading that
 * names a replication package in backquotes ({@code ### `io.seglog.replication.broker`}) the name is simple
 * ({@code - `SeglogBroker`: ...}); anywhere else it is qualified from {@code io.seglog.replication}
 * ({@code - `wire.KafkaApis`: ...}). Bullets under a heading that names another package (storage-core's) are not
 * replication's and are skipped.
 */
class PublicSurfaceTest {
    private static final String ROOT = "io.seglog.replication";
    private static final Pattern HEADING = Pattern.compile("^#+ .*?`(io\\.seglog[\\w.]*)`.*$");
    private static final Pattern OTHER_HEADING = Pattern.compile("^#+ .*$");
    private static final Pattern BULLET = Pattern.compile("^- `([A-Za-z][\\w.]*)`.*$");

    @Test
    void publicTypesAreExactlyTheOnesDocsApiLists() throws IOException {
        final Set<String> documented = documented(Files.readAllLines(apiDoc()));
        final Set<String> actual = publicTopLevelTypes();
        assertTrue(actual.size() > 50 && actual.contains(ROOT + ".broker.SeglogBroker"),
            () -> "the import found too few public types: " + actual);
        final Optional<String> difference = difference(actual, documented);
        assertFalse(difference.isPresent(), difference::get);
    }

    @Test
    void aTypeMissingFromTheListIsReported() {
        final Set<String> actual = Set.of(ROOT + ".broker.SeglogBroker", ROOT + ".wire.KafkaApis");
        final Set<String> documented = documented(List.of(
            "## API",
            "### `io.seglog.replication.broker`",
            "- `SeglogBroker`: a broker",
            "### `io.seglog.storage`",
            "- `LogManager`: storage-core's, not replication's",
            "## Internal",
            "### For the broker's assembly",
            "- `zk.KafkaZkStore`: no longer public"));
        assertEquals(Set.of(ROOT + ".broker.SeglogBroker", ROOT + ".zk.KafkaZkStore"), documented);
        final String message = difference(actual, documented).orElseThrow();
        assertTrue(message.contains("public but not in docs/api.md: [" + ROOT + ".wire.KafkaApis]"), message);
        assertTrue(message.contains("in docs/api.md but not public: [" + ROOT + ".zk.KafkaZkStore]"), message);
        assertTrue(message.contains("update docs/api.md"), message);
        assertTrue(difference(actual, Set.copyOf(actual)).isEmpty(), "equal sets differ in nothing");
    }

    /** The public top-level types of replication's main code (test classes and package-info excluded). */
    static Set<String> publicTopLevelTypes() {
        final Set<String> names = new TreeSet<>();
        for (final JavaClass type : new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(ROOT)) {
            if (type.isTopLevelClass() && type.getModifiers().contains(JavaModifier.PUBLIC)
                    && !type.getSimpleName().equals("package-info")) {
                names.add(type.getName());
            }
        }
        return names;
    }

    /** The replication types a docs/api.md listing names, fully qualified (the format is in the class comment). */
    static Set<String> documented(final List<String> lines) {
        final Set<String> names = new TreeSet<>();
        String pkg = null;
        for (final String line : lines) {
            final Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                final String named = heading.group(1);
                pkg = named.equals(ROOT) || named.startsWith(ROOT + ".") ? named : "";
                continue;
            }
            if (OTHER_HEADING.matcher(line).matches()) {
                pkg = null;
                continue;
            }
            final Matcher bullet = BULLET.matcher(line);
            if (!bullet.matches()) {
                continue;
            }
            final String name = bullet.group(1);
            if (pkg == null) {
                names.add(ROOT + "." + name);
            } else if (!pkg.isEmpty()) {
                names.add(name.contains(".") ? ROOT + "." + name : pkg + "." + name);
            }
        }
        return names;
    }

    /** Empty when the two sets are equal, else a message naming every type on either side only. */
    static Optional<String> difference(final Set<String> actual, final Set<String> documented) {
        final Set<String> undocumented = new TreeSet<>(actual);
        undocumented.removeAll(documented);
        final Set<String> stale = new TreeSet<>(documented);
        stale.removeAll(actual);
        if (undocumented.isEmpty() && stale.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("replication's public top-level types and docs/api.md differ; public but not in"
            + " docs/api.md: " + undocumented + "; in docs/api.md but not public: " + stale + ". A type that"
            + " no other package needs is package-private; otherwise update docs/api.md (its API sections, or the"
            + " internal section with the reason it is public).");
    }

    private static Path apiDoc() {
        Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("docs/api.md"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("no docs/api.md above " + System.getProperty("user.dir"));
        }
        return dir.resolve("docs/api.md");
    }
}
