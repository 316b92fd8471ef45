/**
 * Runnable examples of the storage core's public API; {@link io.seglog.storage.example.QuickStart} is the
 * README's main command.
 */
package io.seglog.storage.example;
