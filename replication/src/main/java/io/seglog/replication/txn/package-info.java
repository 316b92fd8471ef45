/**
 * Transactions: the transaction coordinator's states and its records in {@code __transaction_state}, in Kafka's
 * schemas (the coordinator itself, its APIs and its markers are being built: issue 35).
 */
package io.seglog.replication.txn;
