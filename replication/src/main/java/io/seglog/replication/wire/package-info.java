/**
 * Kafka's wire protocol, served over Netty: framing (an int32 size, bounded before anything is buffered),
 * request headers v1/v2, response headers v0/v1, bodies decoded and encoded with kafka-clients' generated
 * {@code *Data} classes, ApiVersions (answered at v0 when its version is unknown), and responses in request order
 * on each connection. A malformed frame closes that connection only, with a log line naming the peer and the
 * field. The APIs themselves are handlers the broker registers ({@link io.seglog.replication.wire.KafkaApi}).
 *
 * <p>Only kafka-clients' message classes and their accessors are used ({@code org.apache.kafka.common.message},
 * {@code ApiKeys}, {@code ApiMessage}, {@code ByteBufferAccessor}, {@code ObjectSerializationCache},
 * {@code MessageSizeAccumulator}, {@code Errors}); the rest of kafka-clients is internal and changes between
 * releases (an architecture test keeps it so).
 */
package io.seglog.replication.wire;
