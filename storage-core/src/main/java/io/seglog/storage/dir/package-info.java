/**
 * Log-directory ownership: the {@code .lock} file that one process at a time holds with an OS file lock
 * while it uses a log directory.
 */
package io.seglog.storage.dir;
