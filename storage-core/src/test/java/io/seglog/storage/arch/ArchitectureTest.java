package io.seglog.storage.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Test;

/**
 * Keeps the storage core's structure true (docs/architecture.md): it knows nothing of ZooKeeper, networks, brokers
 * or the benchmarks; its package graph has no cycle, the root package included; and the arrows run one way, from
 * the API package through the partition-log internals to the segment layer, the file formats and the file seam.
 */
class ArchitectureTest {
    private static final String ROOT = "io.seglog.storage";
    private static final JavaClasses STORAGE_CORE = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages(ROOT);

    /** One slice per package, the root package included (a pattern like {@code storage.(*)..} leaves it out). */
    private static final SliceAssignment BY_PACKAGE = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(final JavaClass javaClass) {
            final String name = javaClass.getPackageName();
            return name.equals(ROOT) || name.startsWith(ROOT + ".") ? SliceIdentifier.of(name) : SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
            return "storage-core packages";
        }
    };

    static final ArchRule NO_PACKAGE_CYCLES = slices().assignedFrom(BY_PACKAGE).should().beFreeOfCycles();

    static final ArchRule LAYERS = layeredArchitecture().consideringOnlyDependenciesInLayers()
        .layer("Example").definedBy(ROOT + ".example..")
        .layer("Api").definedBy(ROOT)
        .layer("Config").definedBy(ROOT + ".config..")
        .layer("Log").definedBy(ROOT + ".log..")
        .layer("Producer").definedBy(ROOT + ".producer..")
        .layer("Segment").definedBy(ROOT + ".segment..")
        .layer("Files").definedBy(ROOT + ".index..", ROOT + ".checkpoint..", ROOT + ".epoch..", ROOT + ".dir..")
        .layer("Mapping").definedBy(ROOT + ".mapping..")
        .layer("Format").definedBy(ROOT + ".format..")
        .layer("Io").definedBy(ROOT + ".io..")
        .whereLayer("Example").mayNotBeAccessedByAnyLayer()
        .whereLayer("Api").mayOnlyBeAccessedByLayers("Example")
        .whereLayer("Config").mayOnlyBeAccessedByLayers("Api", "Log", "Producer", "Segment")
        .whereLayer("Log").mayOnlyBeAccessedByLayers("Api")
        .whereLayer("Producer").mayOnlyBeAccessedByLayers("Api", "Log")
        .whereLayer("Segment").mayOnlyBeAccessedByLayers("Api", "Log", "Producer")
        .whereLayer("Files").mayOnlyBeAccessedByLayers("Api", "Log", "Producer", "Segment", "Files")
        .whereLayer("Mapping").mayOnlyBeAccessedByLayers("Segment", "Files")
        .whereLayer("Format").mayOnlyBeAccessedByLayers("Example", "Api", "Log", "Producer", "Segment", "Files")
        .because("the API package composes the internals, which never reach back up (docs/architecture.md)");

    @Test
    void importsStorageCoreClasses() {
        // Guards the rules below against passing vacuously on an empty import.
        assertFalse(STORAGE_CORE.isEmpty(), "no storage-core classes were imported");
    }

    @Test
    void storageCoreDoesNotDependOnCoordinationNetworkOrUpperModules() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage(
                "org.apache.zookeeper..",
                "org.apache.curator..",
                "io.netty..",
                "java.net..",
                "io.seglog.replication..",
                "io.seglog.bench..")
            .because("storage-core depends on Agrona and SLF4J only (DESIGN.md section 2)")
            .check(STORAGE_CORE);
    }

    @Test
    void packagesAreFreeOfCycles() {
        NO_PACKAGE_CYCLES.check(STORAGE_CORE);
    }

    @Test
    void dependenciesRunDownTheLayers() {
        LAYERS.check(STORAGE_CORE);
    }

    @Test
    void rulesDetectViolations() throws ClassNotFoundException {
        final JavaClasses withFixture = new ClassFileImporter().withImportOption(
                location -> !location.contains("/test-classes/") || location.contains("UpwardArrowFixture"))
            .importPackages(ROOT);
        assertTrue(withFixture.contain(Class.forName(ROOT + ".segment.UpwardArrowFixture")), "the fixture is imported");
        assertTrue(NO_PACKAGE_CYCLES.evaluate(withFixture).hasViolation(),
            "segment -> root is a cycle (root -> segment exists) and must be caught");
        assertTrue(LAYERS.evaluate(withFixture).hasViolation(), "segment -> root breaks the layers and must be caught");
    }
}
