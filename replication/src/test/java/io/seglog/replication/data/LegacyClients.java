package io.seglog.replication.data;

import io.seglog.replication.data.clients.ProducerDriver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * An older kafka-clients (3.9.1, copied into {@code target/legacy-clients} by the build) in a class loader of its own,
 * beside the 4.4 the main code needs on the class path. The loader's URLs are the old jar and the test classes; it is
 * child-first for {@code org.apache.kafka.*} (classes and the {@code kafka/} resources such as
 * {@code kafka-version.properties}) and for the drivers' package {@code io.seglog.replication.data.clients}, and
 * parent-first for everything else (the JDK, SLF4J, the compression libraries). A Kafka class missing from the old jar
 * is a {@link ClassNotFoundException}, never a silent fall back to 4.4's.
 *
 * <p>The build passes the jar and its version in the system properties {@value #JAR_PROPERTY} and
 * {@value #VERSION_PROPERTY} (failsafe's configuration in replication's pom).
 */
final class LegacyClients implements AutoCloseable {
    /** The system property naming the old kafka-clients jar. */
    static final String JAR_PROPERTY = "seglog.legacyKafkaClients.jar";
    /** The system property with its version. */
    static final String VERSION_PROPERTY = "seglog.legacyKafkaClients.version";
    private static final List<String> CHILD_FIRST_CLASSES = List.of("org.apache.kafka.",
        ProducerDriver.class.getPackageName() + ".");
    private static final List<String> CHILD_FIRST_RESOURCES = List.of("org/apache/kafka/", "kafka/",
        ProducerDriver.class.getPackageName().replace('.', '/') + "/");

    private final Path jar;
    private final String version;
    private final ChildFirstLoader loader;

    private static final class ChildFirstLoader extends URLClassLoader {
        static {
            registerAsParallelCapable();
        }

        ChildFirstLoader(final URL[] urls, final ClassLoader parent) {
            super("legacy-kafka-clients", urls, parent);
        }

        @Override
        protected Class<?> loadClass(final String name, final boolean resolve) throws ClassNotFoundException {
            if (CHILD_FIRST_CLASSES.stream().noneMatch(name::startsWith)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = findClass(name);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }

        @Override
        public URL getResource(final String name) {
            final String path = name.startsWith("/") ? name.substring(1) : name;
            if (CHILD_FIRST_RESOURCES.stream().anyMatch(path::startsWith)) {
                return findResource(path);
            }
            return super.getResource(name);
        }
    }

    /** Opens the loader over the jar the build copied; fails naming the property or the file when it is missing. */
    LegacyClients() {
        final String jarName = System.getProperty(JAR_PROPERTY);
        this.version = System.getProperty(VERSION_PROPERTY);
        if (jarName == null || version == null) {
            throw new IllegalStateException(JAR_PROPERTY + "=" + jarName + ", " + VERSION_PROPERTY + "=" + version
                + ": run through failsafe (mvn verify), which sets both");
        }
        this.jar = Path.of(jarName);
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(JAR_PROPERTY + "=" + jar + " is not a file (copied at pre-integration-test)");
        }
        try {
            final Path testClasses = Path.of(ProducerDriver.class.getProtectionDomain().getCodeSource().getLocation()
                .toURI());
            this.loader = new ChildFirstLoader(new URL[] {jar.toUri().toURL(), testClasses.toUri().toURL()},
                LegacyClients.class.getClassLoader());
        } catch (final URISyntaxException | MalformedURLException e) {
            throw new IllegalStateException("cannot build the class loader over " + jar, e);
        }
    }

    /** The old jar. */
    Path jar() {
        return jar;
    }

    /** The old jar's version, as the build says. */
    String version() {
        return version;
    }

    /**
     * A new instance of a driver class, loaded from the test classes through this loader (so it links with the old
     * kafka-clients).
     *
     * @param driver the driver class as the test's own loader sees it
     * @return an instance of its twin in this loader (call it by reflection)
     */
    Object newDriver(final Class<?> driver) {
        try {
            final Class<?> twin = loader.loadClass(driver.getName());
            if (twin.getClassLoader() != loader) {
                throw new IllegalStateException(driver.getName() + " came from " + twin.getClassLoader());
            }
            return twin.getConstructor().newInstance();
        } catch (final ReflectiveOperationException e) {
            throw new IllegalStateException("cannot load " + driver.getName() + " through " + loader, e);
        }
    }

    /** Loads a class through this loader, for the test's checks. */
    Class<?> load(final String name) throws ClassNotFoundException {
        return loader.loadClass(name);
    }

    @Override
    public void close() {
        try {
            loader.close();
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
