package io.seglog.replication.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import io.seglog.replication.zk.AdminZkStore;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.ZkClient;
import io.seglog.replication.zk.ZkOp;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;

/**
 * Keeps the replication module's layering true: the election rules are pure (no ZooKeeper, Curator, sockets or
 * Netty, and no dependency on the ZooKeeper package), and ZooKeeper/Curator are used only in
 * {@code io.seglog.replication.zk}.
 */
class ReplicationArchitectureTest {
    private static final String ROOT = "io.seglog.replication";
    private static final JavaClasses REPLICATION = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.seglog.replication");

    /** The election package depends on no coordination, network or ZooKeeper-layer code. */
    static final ArchRule ELECTION_IS_PURE = noClasses()
        .that().resideInAPackage("io.seglog.replication.election..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "org.apache.zookeeper..",
            "org.apache.curator..",
            "java.net..",
            "io.netty..",
            "io.seglog.replication.zk..")
        .because("election rules are pure functions tested with plain tables (DESIGN.md, replication layering)");

    /**
     * The types the message classes expose for records fields and unknown tagged fields: a Fetch response's
     * records are a {@code BaseRecords} (Seglog's zero-copy slice implements it), a request's are read as
     * {@code MemoryRecords}, Seglog's own tags travel as {@code RawTaggedField}, and topic ids (CreateTopics,
     * DeleteTopics) are a {@code Uuid}.
     */
    private static final Class<?>[] RECORDS_FIELD_TYPES = {
        org.apache.kafka.common.record.internal.BaseRecords.class,
        org.apache.kafka.common.record.internal.MemoryRecords.class,
        org.apache.kafka.common.record.internal.RecordsSend.class,
        org.apache.kafka.common.protocol.types.RawTaggedField.class,
        // The type of the messages' topic-id fields (KIP-516), converted to Seglog's TopicId in wire.TopicIds.
        org.apache.kafka.common.Uuid.class};

    /** The data path's rules (policy) are pure too, and the replica layer reaches networks and stores only through seams. */
    static final ArchRule REPLICA_LAYER_HAS_NO_NETWORK_OR_STORE = noClasses()
        .that().resideInAnyPackage("io.seglog.replication.policy..", "io.seglog.replication.replica..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "org.apache.zookeeper..",
            "org.apache.curator..",
            "java.net..",
            "io.netty..",
            "org.apache.kafka..",
            "io.seglog.replication.zk..",
            "io.seglog.replication.wire..",
            "io.seglog.replication.controller..",
            "io.seglog.replication.broker..")
        .because("the replica logic runs on an injected clock and reaches the network and ZooKeeper through"
            + " interfaces, so that a deterministic simulation can drive it on one thread");

    /** The policy package does not even know the replica layer: rules take state in and give decisions out. */
    static final ArchRule POLICY_IS_PURE = noClasses()
        .that().resideInAPackage("io.seglog.replication.policy..")
        .should().dependOnClassesThat().resideInAnyPackage("io.seglog.replication.replica..",
            "java.util.concurrent..", "java.nio.channels..", "java.io..")
        .because("HW, ISR and truncation rules are functions tested with plain tables");

    /**
     * The group coordinator's rules (and the assignors) reach the log, the clock and the network through interfaces
     * only: a simulation runs them on one thread with a clock and a log of its own.
     */
    static final ArchRule GROUP_COORDINATOR_HAS_NO_NETWORK_OR_STORE = noClasses()
        .that().resideInAPackage("io.seglog.replication.group..")
        .should().dependOnClassesThat().resideInAnyPackage("io.netty..", "java.net..", "java.nio.channels..",
            "io.seglog.replication.zk..", "io.seglog.replication.wire..", "io.seglog.replication.controller..",
            "io.seglog.replication.broker..", "io.seglog.replication.replica..")
        .because("group state moves by requests, timers and write completions that a deterministic simulation drives");

    /**
     * The transaction coordinator's rules and the coordinators' record codecs reach the log, the clock, the markers and
     * the network through interfaces only, as the group coordinator's do.
     */
    static final ArchRule TRANSACTION_COORDINATOR_HAS_NO_NETWORK_OR_STORE = noClasses()
        .that().resideInAnyPackage("io.seglog.replication.txn..", "io.seglog.replication.records..")
        .should().dependOnClassesThat().resideInAnyPackage("io.netty..", "java.net..", "java.nio.channels..",
            "org.apache.kafka..", "io.seglog.replication.zk..", "io.seglog.replication.wire..",
            "io.seglog.replication.controller..", "io.seglog.replication.broker..", "io.seglog.replication.replica..")
        .because("transaction state moves by requests, timers, write and marker completions that a deterministic"
            + " simulation drives, and Kafka's classes are its oracles in tests, not its code");

    /** The assignors are pure functions an embedder calls without a broker: no network, ZooKeeper, Kafka or threads. */
    static final ArchRule ASSIGNORS_ARE_PURE = noClasses()
        .that().resideInAPackage("io.seglog.replication.group.assignor..")
        .should().dependOnClassesThat().resideInAnyPackage(
            "org.apache.zookeeper..",
            "org.apache.curator..",
            "org.apache.kafka..",
            "java.net..",
            "java.nio.channels..",
            "java.util.concurrent..",
            "io.netty..")
        .because("assignors are our own code, functions of their input (issue 14), tested against Kafka's in tests");

    /** Only the zk package talks to ZooKeeper. */
    static final ArchRule ZOOKEEPER_ONLY_IN_ZK = noClasses()
        .that().resideOutsideOfPackage("io.seglog.replication.zk..")
        .should().dependOnClassesThat().resideInAnyPackage("org.apache.zookeeper..", "org.apache.curator..")
        .because("all ZooKeeper and Curator usage is confined to io.seglog.replication.zk");

    /**
     * ZooKeeper writes are built only in the zk package: elsewhere the main code writes through {@code KafkaZkStore}
     * (whose fenced writes carry the controller-epoch check). {@code ZkOp} is public only so that the simulation's
     * in-memory ZooKeeper (test code) can run it.
     */
    static final ArchRule ZK_OPS_ONLY_IN_ZK = noClasses()
        .that().resideOutsideOfPackage("io.seglog.replication.zk..")
        .should().dependOnClassesThat().areAssignableTo(ZkOp.class)
        .because("writes outside the zk package would bypass the store's fencing");

    /**
     * The stores and the controller use a session through the {@code ZkConnection} seam only, never the Curator
     * client, so that a deterministic simulation can run them over an in-memory ZooKeeper.
     */
    static final ArchRule STORES_AND_CONTROLLER_USE_THE_CONNECTION_SEAM = noClasses()
        .that().resideInAPackage("io.seglog.replication.controller..")
        .or().belongToAnyOf(KafkaZkStore.class, AdminZkStore.class)
        .should().dependOnClassesThat().belongToAnyOf(ZkClient.class)
        .because("the simulation replaces ZkClient by an in-memory ZkConnection (issue 15)");

    /**
     * The packages storage-core's module descriptor exports to everyone, read from its compiled {@code module-info}
     * (the jar in a reactor build, the classes directory in an IDE), so that this rule follows the descriptor and not
     * a list kept by hand.
     */
    static final Set<String> STORAGE_CORE_EXPORTS = storageCoreExports();

    private static Set<String> storageCoreExports() {
        try {
            final Path location = Path.of(io.seglog.storage.LogManager.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI());
            final ModuleDescriptor descriptor;
            if (Files.isDirectory(location)) {
                try (InputStream in = Files.newInputStream(location.resolve("module-info.class"))) {
                    descriptor = ModuleDescriptor.read(in);
                }
            } else {
                try (JarFile jar = new JarFile(location.toFile());
                     InputStream in = jar.getInputStream(jar.getEntry("module-info.class"))) {
                    descriptor = ModuleDescriptor.read(in);
                }
            }
            final Set<String> exported = new TreeSet<>();
            descriptor.exports().stream().filter(e -> !e.isQualified()).forEach(e -> exported.add(e.source()));
            return exported;
        } catch (final IOException | URISyntaxException | RuntimeException e) {
            throw new IllegalStateException("cannot read storage-core's module-info next to "
                + io.seglog.storage.LogManager.class, e);
        }
    }

    /**
     * Replication uses only what storage-core exports. ZooKeeper 3.9 splits packages between its two jars
     * ({@code org.apache.zookeeper.server.persistence} and {@code .quorum} in both {@code zookeeper} and
     * {@code zookeeper-jute}), so this module cannot be a named module that requires them; this rule holds it to
     * storage-core's module descriptor instead.
     */
    static final ArchRule ONLY_STORAGE_CORE_EXPORTS = noClasses()
        .that().resideInAPackage("io.seglog.replication..")
        .should().dependOnClassesThat(new DescribedPredicate<JavaClass>("are in a storage-core package its"
            + " module-info does not export (it exports " + STORAGE_CORE_EXPORTS + ")") {
            @Override
            public boolean test(final JavaClass type) {
                final String name = type.getPackageName();
                return (name.equals("io.seglog.storage") || name.startsWith("io.seglog.storage."))
                    && !STORAGE_CORE_EXPORTS.contains(name);
            }
        })
        .because("a module's internals are free to change; its module-info says what others may use");

    /** One slice per replication package, the root package included. */
    private static final SliceAssignment BY_PACKAGE = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(final JavaClass javaClass) {
            final String name = javaClass.getPackageName();
            return name.equals(ROOT) || name.startsWith(ROOT + ".") ? SliceIdentifier.of(name)
                : SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
            return "replication packages";
        }
    };

    /** The packages form a graph without cycles: arrows run one way, from the broker's assembly down to the rules. */
    static final ArchRule NO_PACKAGE_CYCLES = slices().assignedFrom(BY_PACKAGE).should().beFreeOfCycles();

    /** The demo (the README's main job) is not part of the broker: it is a Kafka application, as a user writes one. */
    private static final String EXAMPLE = "io.seglog.replication.example..";

    /**
     * kafka-clients is used for its generated message classes and their accessors only, and only by the wire
     * package: the rest is internal and changes between releases (kafka-protocol.md: 4.3 moved 37 record classes).
     */
    static final ArchRule KAFKA_CLIENTS_MESSAGE_CLASSES_ONLY = noClasses()
        .that().resideInAPackage("io.seglog.replication..")
        .and().resideOutsideOfPackage(EXAMPLE)
        .should().dependOnClassesThat(JavaClass.Predicates.resideInAPackage("org.apache.kafka..").and(
            DescribedPredicate.not(JavaClass.Predicates.resideInAnyPackage("org.apache.kafka.common.message",
                "org.apache.kafka.common.protocol"))).and(DescribedPredicate.not(
                    JavaClass.Predicates.belongToAnyOf(RECORDS_FIELD_TYPES))))
        .because("only kafka-clients' *Data message classes, ApiKeys, Errors and the accessors are stable enough to"
            + " use, and the types of their records, tagged fields and topic ids");

    /** Only the wire package speaks Kafka's protocol. */
    static final ArchRule KAFKA_CLIENTS_ONLY_IN_WIRE = noClasses()
        .that().resideOutsideOfPackage("io.seglog.replication.wire..")
        .and().resideOutsideOfPackage(EXAMPLE)
        .and().resideInAPackage("io.seglog.replication..")
        .should().dependOnClassesThat().resideInAPackage("org.apache.kafka..")
        .because("Kafka's wire protocol is decoded and encoded in io.seglog.replication.wire");

    /**
     * The demo drives the brokers as an application would: through kafka-clients' public client API only (producer,
     * consumer, admin, serializers, {@code TopicPartition}, {@code KafkaFuture}), never through the internals the rules
     * above keep to the wire.
     */
    static final ArchRule EXAMPLE_USES_THE_PUBLIC_CLIENT_API = noClasses()
        .that().resideInAPackage(EXAMPLE)
        .should().dependOnClassesThat(JavaClass.Predicates.resideInAPackage("org.apache.kafka..").and(
            DescribedPredicate.not(JavaClass.Predicates.resideInAnyPackage("org.apache.kafka.clients.producer",
                "org.apache.kafka.clients.consumer", "org.apache.kafka.clients.admin",
                "org.apache.kafka.common.serialization")))
            .and(DescribedPredicate.not(JavaClass.Predicates.belongToAnyOf(org.apache.kafka.common.TopicPartition.class,
                org.apache.kafka.common.KafkaFuture.class))))
        .because("the demo is what a user's application does, and their public API is what stays stable");

    @Test
    void kafkaClientsIsUsedForItsMessageClassesAndOnlyInTheWirePackage() {
        KAFKA_CLIENTS_MESSAGE_CLASSES_ONLY.check(REPLICATION);
        KAFKA_CLIENTS_ONLY_IN_WIRE.check(REPLICATION);
        assertTrue(REPLICATION.containPackage("io.seglog.replication.example"), "example package not imported");
        EXAMPLE_USES_THE_PUBLIC_CLIENT_API.check(REPLICATION);
    }

    @Test
    void usesOnlyWhatStorageCoreExports() {
        ONLY_STORAGE_CORE_EXPORTS.check(REPLICATION);
    }

    @Test
    void importsTheElectionAndZkPackages() {
        // Guards the rules below against passing vacuously on an empty or partial import.
        assertTrue(REPLICATION.containPackage("io.seglog.replication.election"), "election package not imported");
        assertTrue(REPLICATION.containPackage("io.seglog.replication.zk"), "zk package not imported");
    }

    @Test
    void replicaLayerAndPolicyReachNoNetworkOrStoreDirectly() {
        assertTrue(REPLICATION.containPackage("io.seglog.replication.replica"), "replica package not imported");
        assertTrue(REPLICATION.containPackage("io.seglog.replication.policy"), "policy package not imported");
        REPLICA_LAYER_HAS_NO_NETWORK_OR_STORE.check(REPLICATION);
        POLICY_IS_PURE.check(REPLICATION);
    }

    @Test
    void groupCoordinatorReachesNoNetworkOrStoreDirectly() {
        assertTrue(REPLICATION.containPackage("io.seglog.replication.group"), "group package not imported");
        GROUP_COORDINATOR_HAS_NO_NETWORK_OR_STORE.check(REPLICATION);
    }

    @Test
    void transactionCoordinatorReachesNoNetworkOrStoreDirectly() {
        assertTrue(REPLICATION.containPackage("io.seglog.replication.txn"), "txn package not imported");
        TRANSACTION_COORDINATOR_HAS_NO_NETWORK_OR_STORE.check(REPLICATION);
    }

    @Test
    void electionImportsNoZooKeeperCuratorNetworkOrNetty() {
        ELECTION_IS_PURE.check(REPLICATION);
    }

    @Test
    void assignorsArePure() {
        assertTrue(REPLICATION.containPackage("io.seglog.replication.group.assignor"), "assignor package not imported");
        ASSIGNORS_ARE_PURE.check(REPLICATION);
    }

    @Test
    void zooKeeperAndCuratorAreUsedOnlyInTheZkPackage() {
        ZOOKEEPER_ONLY_IN_ZK.check(REPLICATION);
    }

    @Test
    void zooKeeperWritesAndTheCuratorClientStayBehindTheSeam() {
        assertTrue(REPLICATION.containPackage("io.seglog.replication.controller"), "controller package not imported");
        ZK_OPS_ONLY_IN_ZK.check(REPLICATION);
        STORES_AND_CONTROLLER_USE_THE_CONNECTION_SEAM.check(REPLICATION);
    }

    @Test
    void storageCoreExportsAreReadFromItsModuleDescriptor() {
        assertTrue(STORAGE_CORE_EXPORTS.contains("io.seglog.storage"), () -> "exports " + STORAGE_CORE_EXPORTS);
        assertTrue(STORAGE_CORE_EXPORTS.contains("io.seglog.storage.format"), () -> "exports " + STORAGE_CORE_EXPORTS);
        assertFalse(STORAGE_CORE_EXPORTS.contains("io.seglog.storage.segment"), () -> "exports " + STORAGE_CORE_EXPORTS);
    }

    @Test
    void packagesHaveNoCycles() {
        NO_PACKAGE_CYCLES.check(REPLICATION);
    }

    @Test
    void rulesDetectViolations() throws ClassNotFoundException {
        final JavaClasses fixtures = new ClassFileImporter().importClasses(
            Class.forName("io.seglog.replication.election.NetworkUsingFixture"), ZooKeeperUsingFixture.class);
        assertTrue(ELECTION_IS_PURE.evaluate(fixtures).hasViolation(), "a socket in election must be caught");
        assertTrue(ZOOKEEPER_ONLY_IN_ZK.evaluate(fixtures).hasViolation(), "ZooKeeper outside zk must be caught");
        assertTrue(ONLY_STORAGE_CORE_EXPORTS.evaluate(new ClassFileImporter().importClasses(InternalsUsingFixture.class))
            .hasViolation(), "a storage-core internal used from replication must be caught");
        assertTrue(REPLICA_LAYER_HAS_NO_NETWORK_OR_STORE.evaluate(new ClassFileImporter().importClasses(
            Class.forName("io.seglog.replication.replica.NettyUsingFixture"))).hasViolation(),
            "Netty in the replica layer must be caught");
        assertTrue(EXAMPLE_USES_THE_PUBLIC_CLIENT_API.evaluate(new ClassFileImporter().importClasses(
            Class.forName("io.seglog.replication.example.ClientInternalsUsingFixture"))).hasViolation(),
            "kafka-clients internals in the demo must be caught");
        assertTrue(ASSIGNORS_ARE_PURE.evaluate(new ClassFileImporter().importClasses(
            Class.forName("io.seglog.replication.group.assignor.KafkaUsingFixture"))).hasViolation(),
            "kafka-clients in the assignors must be caught");
        assertTrue(ZK_OPS_ONLY_IN_ZK.evaluate(new ClassFileImporter().importClasses(ZkOpBuildingFixture.class))
            .hasViolation(), "a ZkOp built outside zk must be caught");
        assertTrue(STORES_AND_CONTROLLER_USE_THE_CONNECTION_SEAM.evaluate(new ClassFileImporter().importClasses(
            Class.forName("io.seglog.replication.controller.ZkClientUsingFixture"))).hasViolation(),
            "the controller using ZkClient must be caught");
        assertTrue(NO_PACKAGE_CYCLES.evaluate(new ClassFileImporter().importClasses(
            Class.forName("io.seglog.replication.election.CycleFixture"),
            Class.forName("io.seglog.replication.policy.CycleFixture"))).hasViolation(),
            "a cycle between two packages must be caught");
        assertFalse(ELECTION_IS_PURE.allowEmptyShould(true).evaluate(new ClassFileImporter().importClasses(ZooKeeperUsingFixture.class))
            .hasViolation(), "the purity rule applies to the election package only");
    }

    /**
     * Test fixture, never used at run time: a class outside {@code ..replication.zk..} that touches ZooKeeper, so
     * that the confinement rule can be shown to report a violation.
     */
    static final class ZooKeeperUsingFixture {
        private ZooKeeperUsingFixture() {
        }

        static CreateMode mode() {
            return CreateMode.EPHEMERAL;
        }
    }

    /** Test fixture, never used at run time: a write built outside the zk package. */
    static final class ZkOpBuildingFixture {
        private ZkOpBuildingFixture() {
        }

        static Object check() {
            return new ZkOp.Check("/controller_epoch", 0);
        }
    }

    /** Test fixture, never used at run time: replication code reaching into a storage-core internal. */
    static final class InternalsUsingFixture {
        private InternalsUsingFixture() {
        }

        static Class<?> internal() {
            return io.seglog.storage.log.Segments.class;
        }
    }
}
