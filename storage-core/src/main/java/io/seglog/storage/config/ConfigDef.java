package io.seglog.storage.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The keys of one configuration object, in one table (Kafka's {@code ConfigDef}, Aeron's {@code Context}): each
 * key is defined once ({@link ConfigKey}) and this class does the rest for every key alike. Values live in an
 * {@code Object[]} indexed by key; {@link #parse} reads properties (unknown keys are collected, not dropped
 * silently), {@link #validate} runs each key's range check and then the cross-field rules, each of which names
 * both keys.
 *
 * <p>Keys are defined in static initialisers of the owning class; a definition is immutable afterwards.
 * Thread-safe once defined.
 */
public final class ConfigDef {
    /** A rule between keys; returns null when the values agree, else the error message (naming both keys). */
    @FunctionalInterface
    public interface CrossRule {
        /**
         * Checks the values.
         *
         * @param values the values, by key
         * @return null when they agree, else the message
         */
        String check(Values values);
    }

    /** Read access to a value array, for cross-field rules. */
    @FunctionalInterface
    public interface Values {
        /**
         * The value of a key.
         *
         * @param key the key
         * @param <T> its type
         * @return its value
         */
        <T> T get(ConfigKey<T> key);
    }

    private final String owner;
    private final List<ConfigKey<?>> keys = new ArrayList<>();
    private final Map<String, ConfigKey<?>> byName = new LinkedHashMap<>();
    private final List<CrossRule> rules = new ArrayList<>();

    /**
     * An empty table.
     *
     * @param owner the configuration class, for messages
     */
    public ConfigDef(final String owner) {
        this.owner = owner;
    }

    private <T> ConfigKey<T> add(final String name, final Class<T> type, final T defaultValue,
                                 final Function<String, T> parser, final Function<T, String> printer,
                                 final Predicate<T> valid, final String rule, final String doc, final String readBy) {
        if (byName.containsKey(name)) {
            throw new IllegalStateException(owner + " defines " + name + " twice");
        }
        final ConfigKey<T> key = new ConfigKey<>(keys.size(), name, type, defaultValue, parser, printer, valid, rule,
            doc, readBy);
        keys.add(key);
        byName.put(name, key);
        return key;
    }

    /**
     * Defines an int key with a lower bound.
     *
     * @param name         the property name
     * @param defaultValue the default
     * @param min          the smallest value allowed
     * @param doc          what the key is for
     * @param readBy       the component that reads it
     * @return the key
     */
    public ConfigKey<Integer> intKey(final String name, final int defaultValue, final int min, final String doc,
                                     final String readBy) {
        return add(name, Integer.class, defaultValue, text -> parseInt(name, text), String::valueOf, v -> v >= min,
            "must be at least " + min, doc, readBy);
    }

    /**
     * Defines an int key with a range, whose default may lie outside it as a "library default" sentinel (gzip's
     * level -1).
     *
     * @param name         the property name
     * @param defaultValue the default, always accepted
     * @param min          the smallest other value allowed
     * @param max          the largest other value allowed
     * @param doc          what the key is for
     * @param readBy       the component that reads it
     * @return the key
     */
    public ConfigKey<Integer> intKey(final String name, final int defaultValue, final int min, final int max,
                                     final String doc, final String readBy) {
        return add(name, Integer.class, defaultValue, text -> parseInt(name, text), String::valueOf,
            v -> v == defaultValue || (v >= min && v <= max),
            "must lie in [" + min + ", " + max + "]" + (defaultValue < min || defaultValue > max
                ? " or be " + defaultValue : ""), doc, readBy);
    }

    /**
     * Defines a long key with a lower bound.
     *
     * @param name         the property name
     * @param defaultValue the default
     * @param min          the smallest value allowed
     * @param doc          what the key is for
     * @param readBy       the component that reads it
     * @return the key
     */
    public ConfigKey<Long> longKey(final String name, final long defaultValue, final long min, final String doc,
                                   final String readBy) {
        return add(name, Long.class, defaultValue, text -> parseLong(name, text), String::valueOf, v -> v >= min,
            "must be at least " + min, doc, readBy);
    }

    /**
     * Defines a boolean key; only {@code true} and {@code false} (any case) parse.
     *
     * @param name         the property name
     * @param defaultValue the default
     * @param doc          what the key is for
     * @param readBy       the component that reads it
     * @return the key
     */
    public ConfigKey<Boolean> booleanKey(final String name, final boolean defaultValue, final String doc,
                                         final String readBy) {
        return add(name, Boolean.class, defaultValue, text -> parseBoolean(name, text), String::valueOf, v -> true,
            "", doc, readBy);
    }

    /**
     * Defines a key whose values are names (an enum, a list of names).
     *
     * @param name         the property name
     * @param type         the value type
     * @param defaultValue the default
     * @param parser       reads a name, throwing {@link IllegalArgumentException} naming the key for a bad one
     * @param printer      spells a value
     * @param doc          what the key is for
     * @param readBy       the component that reads it
     * @param <T>          the value type
     * @return the key
     */
    public <T> ConfigKey<T> namedKey(final String name, final Class<T> type, final T defaultValue,
                                     final Function<String, T> parser, final Function<T, String> printer,
                                     final String doc, final String readBy) {
        return add(name, type, defaultValue, parser, printer, Objects::nonNull, "must be set", doc, readBy);
    }

    /**
     * Adds a rule between keys, checked by {@link #validate} after every key's own range.
     *
     * @param rule the rule
     */
    public void crossRule(final CrossRule rule) {
        rules.add(rule);
    }

    /**
     * The keys in definition order.
     *
     * @return an unmodifiable list
     */
    public List<ConfigKey<?>> keys() {
        return Collections.unmodifiableList(keys);
    }

    /**
     * The key of a property name.
     *
     * @param name the name
     * @return the key, or null
     */
    public ConfigKey<?> key(final String name) {
        return byName.get(name);
    }

    /**
     * A value array holding every default.
     *
     * @return a new array
     */
    public Object[] defaults() {
        final Object[] values = new Object[keys.size()];
        for (final ConfigKey<?> key : keys) {
            values[key.index()] = key.defaultValue();
        }
        return values;
    }

    /**
     * Sets one value in an array, checking its range.
     *
     * @param values the array
     * @param key    the key
     * @param value  the value
     * @param <T>    its type
     * @throws IllegalArgumentException naming the key and the value when out of range
     */
    public static <T> void set(final Object[] values, final ConfigKey<T> key, final T value) {
        values[key.index()] = key.check(value);
    }

    /**
     * Stores one value in an array without checking it (a builder's setter; {@link #validate} checks later).
     *
     * @param values the array
     * @param key    the key
     * @param value  the value
     * @param <T>    its type
     */
    public static <T> void put(final Object[] values, final ConfigKey<T> key, final T value) {
        values[key.index()] = value;
    }

    /**
     * Reads one value of an array.
     *
     * @param values the array
     * @param key    the key
     * @param <T>    its type
     * @return the value
     */
    @SuppressWarnings("unchecked")
    public static <T> T get(final Object[] values, final ConfigKey<T> key) {
        return (T) values[key.index()];
    }

    /**
     * Reads properties into {@code values}: every known key present is parsed and range-checked; the names of the
     * unknown ones are returned, sorted, for the caller to report (Kafka logs "supplied but isn't a known config").
     *
     * @param properties names to values (strings, numbers, booleans)
     * @param values     the array to fill (usually {@link #defaults()})
     * @return the unknown names
     * @throws IllegalArgumentException naming the key and value of the first invalid entry
     */
    public List<String> parse(final Map<String, ?> properties, final Object[] values) {
        final TreeSet<String> unknown = new TreeSet<>();
        for (final Map.Entry<String, ?> e : properties.entrySet()) {
            final ConfigKey<?> key = byName.get(e.getKey());
            if (key == null) {
                unknown.add(e.getKey());
            } else {
                values[key.index()] = key.fromProperty(e.getValue());
            }
        }
        return List.copyOf(unknown);
    }

    /**
     * The one validation pass: every value against its key's range, then the cross-field rules.
     *
     * @param values the values
     * @throws IllegalArgumentException naming the key (or keys) and values of the first violation
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public void validate(final Object[] values) {
        for (final ConfigKey key : keys) {
            key.check(values[key.index()]);
        }
        final Values view = new Values() {
            @Override
            public <T> T get(final ConfigKey<T> key) {
                return ConfigDef.get(values, key);
            }
        };
        for (final CrossRule rule : rules) {
            final String problem = rule.check(view);
            if (problem != null) {
                throw new IllegalArgumentException(problem);
            }
        }
    }

    /**
     * {@code name=value} for every key in definition order, for {@code toString}.
     *
     * @param values the values
     * @return the text, e.g. {@code LogConfig{segment.bytes=1073741824, ...}}
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public String toString(final Object[] values) {
        final StringBuilder out = new StringBuilder(owner).append('{');
        for (final ConfigKey key : keys) {
            if (key.index() > 0) {
                out.append(", ");
            }
            out.append(key.name()).append('=').append(key.format(values[key.index()]));
        }
        return out.append('}').toString();
    }

    /**
     * Whether two value arrays hold equal values.
     *
     * @param a one
     * @param b the other
     * @return whether every value is equal
     */
    public static boolean equal(final Object[] a, final Object[] b) {
        return Arrays.equals(a, b);
    }

    /**
     * A hash of a value array, consistent with {@link #equal}.
     *
     * @param values the values
     * @return the hash
     */
    public static int hash(final Object[] values) {
        return Arrays.hashCode(values);
    }

    private static int parseInt(final String name, final String text) {
        final long value = parseLong(name, text);
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(name + "=" + text + " does not fit an int");
        }
        return (int) value;
    }

    private static long parseLong(final String name, final String text) {
        try {
            return Long.parseLong(text);
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException(name + "=" + text + " is not a number", e);
        }
    }

    private static boolean parseBoolean(final String name, final String text) {
        if ("true".equalsIgnoreCase(text) || "false".equalsIgnoreCase(text)) {
            return Boolean.parseBoolean(text);
        }
        throw new IllegalArgumentException(name + "=" + text + " is not a boolean (true or false)");
    }
}
