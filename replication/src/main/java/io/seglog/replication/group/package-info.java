/**
 * Consumer groups: the classic group coordinator's state and its records in {@code __consumer_offsets}, in Kafka's
 * schemas.
 */
package io.seglog.replication.group;
