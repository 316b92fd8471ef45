/**
 * Inspection of log directories without a broker, for operators' tools: {@link io.seglog.storage.inspect.LogVerifier}
 * checks every batch, index entry and checkpoint of a log or partition directory and reports each problem with its
 * file, position and offset, opening every file for reading only.
 */
package io.seglog.storage.inspect;
