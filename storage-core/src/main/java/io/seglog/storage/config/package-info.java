/**
 * Configuration as one table of keys ({@link io.seglog.storage.config.ConfigDef},
 * {@link io.seglog.storage.config.ConfigKey}): each key is defined once, with its property name, type, default,
 * range, documentation and reader, and the table drives defaults, property parsing, the validation pass (ranges,
 * then cross-field rules), equality and {@code toString}. Internal; the API's configuration classes are built on it.
 */
package io.seglog.storage.config;
