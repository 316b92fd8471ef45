/**
 * Log-directory ownership: the {@code .lock} file that one process at a time holds with an OS file lock
 * while it uses a log directory. Owns the lock file and its OS lock. Internal; not exported.
 */
package io.seglog.storage.dir;
