/**
 * Kafka v2 (magic 2) record batches: layout descriptors, validation, flyweight iteration and a builder.
 */
package io.seglog.storage.format;
