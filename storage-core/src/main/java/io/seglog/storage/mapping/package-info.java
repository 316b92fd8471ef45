/**
 * The storage core's one mapping-lifetime protocol ({@link io.seglog.storage.mapping.SharedMapping}): every memory
 * mapping that lock-free readers touch (index files, segments' read mappings) is reference-counted and retired by
 * its owner, so it is never unmapped under a reader. Internal; not exported.
 */
package io.seglog.storage.mapping;
