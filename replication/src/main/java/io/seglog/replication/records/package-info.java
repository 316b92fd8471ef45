/**
 * Kafka's primitive encodings for the coordinators' records ({@code __consumer_offsets}, {@code __transaction_state}):
 * a writer, and a reader that trusts no length read from the record.
 */
package io.seglog.replication.records;
