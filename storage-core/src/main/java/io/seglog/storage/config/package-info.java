/**
 * Configuration as one table of keys ({@link io.seglog.storage.config.ConfigDef},
 * {@link io.seglog.storage.config.ConfigKey}): each key is defined once, with its property name, type, default,
 * range, documentation and reader, and the table drives defaults, property parsing, the validation pass (ranges,
 * then cross-field rules), equality, {@code toString}, unknown-key reports and the generated reference
 * ({@link io.seglog.storage.config.ConfigDocs}). Exported because every component's configuration, the broker
 * layer's included, is built on it; the one set of number parsers lives here ({@code ConfigDef.parseInt} and
 * siblings).
 */
package io.seglog.storage.config;
