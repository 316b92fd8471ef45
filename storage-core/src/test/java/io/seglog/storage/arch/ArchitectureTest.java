package io.seglog.storage.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Keeps DESIGN.md's dependency arrows true: storage-core knows nothing of ZooKeeper, networks, brokers or
 * the benchmarks.
 */
class ArchitectureTest {
    private static final JavaClasses STORAGE_CORE = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.seglog.storage");

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
}
