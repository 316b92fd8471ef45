package io.seglog.bench;

/**
 * JVM flags for every benchmark fork, as constants so {@code @Fork(jvmArgsAppend = ...)} can name them.
 *
 * <p>Chronicle (Queue and Bytes) needs the opens/exports on Java 17 (without them it fails in
 * {@code FileChannelImpl.map0} or warns that the cleaner is disabled) and must never phone home, hence
 * {@code chronicle.analytics.disable}. The heap is fixed so GC sizing does not differ between forks.
 */
public final class JvmFlags {

    /** Fixed heap, same for all systems. */
    public static final String XMS = "-Xms1g";
    /** Fixed heap, same for all systems. */
    public static final String XMX = "-Xmx1g";
    /** Chronicle otherwise tries to reach www.google-analytics.com. */
    public static final String NO_ANALYTICS = "-Dchronicle.analytics.disable=true";
    /** Chronicle maps files through FileChannelImpl.map0. */
    public static final String OPEN_NIO_CH = "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED";
    /** Chronicle reflects on java.lang.reflect internals. */
    public static final String OPEN_REFLECT = "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED";
    /** Chronicle's documented set for Java 17. */
    public static final String OPEN_LANG = "--add-opens=java.base/java.lang=ALL-UNNAMED";
    /** Chronicle's documented set for Java 17. */
    public static final String OPEN_NIO = "--add-opens=java.base/java.nio=ALL-UNNAMED";
    /** Chronicle's documented set for Java 17. */
    public static final String OPEN_IO = "--add-opens=java.base/java.io=ALL-UNNAMED";
    /** Chronicle's documented set for Java 17. */
    public static final String OPEN_UTIL = "--add-opens=java.base/java.util=ALL-UNNAMED";
    /** The ByteBuffer cleaner; without it Chronicle cannot unmap. */
    public static final String EXPORT_REF = "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED";
    /** Chronicle's documented set for Java 17. */
    public static final String EXPORT_NIO_CH = "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED";
    /** Chronicle's documented set for Java 17. */
    public static final String EXPORT_MISC = "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED";

    private JvmFlags() {
    }
}
