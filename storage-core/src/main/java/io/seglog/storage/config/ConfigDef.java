package io.seglog.storage.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
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
 * both keys. A configuration that keeps its values in record components reads each key with
 * {@link ConfigKey#read} and runs the same pass from its constructor through {@link #assign()}. Every component of
 * Seglog, storage core and broker, defines its keys in such a table; a key another component's table defines is
 * read through that table ({@link #key(String, Class)}), never spelled again. The one set of number parsers
 * ({@link #parseInt}, {@link #parseLong}, {@link #parseDouble}, {@link #parseBoolean}) is here;
 * {@link ConfigDocs} renders the tables as the reference.
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
            "must be in [" + min + ", " + max + "]" + (defaultValue < min || defaultValue > max
                ? " or " + defaultValue : ""), doc, readBy);
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
     * Defines a floating-point key with an inclusive range.
     *
     * @param name         the property name
     * @param defaultValue the default
     * @param min          the smallest valid value
     * @param max          the largest valid value
     * @param doc          what the key is for
     * @param readBy       the component that reads it
     * @return the key
     */
    public ConfigKey<Double> doubleKey(final String name, final double defaultValue, final double min,
                                       final double max, final String doc, final String readBy) {
        return add(name, Double.class, defaultValue, text -> parseDouble(name, text), String::valueOf,
            v -> v >= min && v <= max, "must be in [" + min + ", " + max + "]", doc, readBy);
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
            "must be true or false", doc, readBy);
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
     * Defines an int key with a rule of its own (e.g. {@code -1} or positive).
     *
     * @param name         the property name
     * @param defaultValue the default
     * @param valid        the rule
     * @param rule         the rule as the error message states it, e.g. {@code must be -1 (the OS's) or positive}
     * @param doc          what the key is for
     * @param readBy       the component that reads it
     * @return the key
     */
    public ConfigKey<Integer> intKeyWhere(final String name, final int defaultValue, final Predicate<Integer> valid,
                                          final String rule, final String doc, final String readBy) {
        return add(name, Integer.class, defaultValue, text -> parseInt(name, text), String::valueOf, valid, rule, doc,
            readBy);
    }

    /**
     * Defines a long key with a rule of its own.
     *
     * @param name         the property name
     * @param defaultValue the default
     * @param valid        the rule
     * @param rule         the rule as the error message states it
     * @param doc          what the key is for
     * @param readBy       the component that reads it
     * @return the key
     */
    public ConfigKey<Long> longKeyWhere(final String name, final long defaultValue, final Predicate<Long> valid,
                                        final String rule, final String doc, final String readBy) {
        return add(name, Long.class, defaultValue, text -> parseLong(name, text), String::valueOf, valid, rule, doc,
            readBy);
    }

    /**
     * Defines a floating-point key with a rule of its own (e.g. a half-open range).
     *
     * @param name         the property name
     * @param defaultValue the default
     * @param valid        the rule
     * @param rule         the rule as the error message states it
     * @param doc          what the key is for
     * @param readBy       the component that reads it
     * @return the key
     */
    public ConfigKey<Double> doubleKeyWhere(final String name, final double defaultValue,
                                            final Predicate<Double> valid, final String rule, final String doc,
                                            final String readBy) {
        return add(name, Double.class, defaultValue, text -> parseDouble(name, text), String::valueOf, valid, rule,
            doc, readBy);
    }

    /**
     * Defines an optional long key: absent, its value is null (the reader falls back to another key).
     *
     * @param name   the property name
     * @param min    the smallest value allowed
     * @param doc    what the key is for
     * @param readBy the component that reads it
     * @return the key
     */
    public ConfigKey<Long> optionalLongKey(final String name, final long min, final String doc, final String readBy) {
        return add(name, Long.class, null, text -> parseLong(name, text), String::valueOf, v -> v >= min,
            "must be at least " + min, doc, readBy);
    }

    /**
     * Defines another name for a key of another table, with that key's type, parser and range and no default of its
     * own (Kafka's broker-level {@code log.segment.bytes} for the topic-level {@code segment.bytes}: the broker-wide
     * default of the topic setting).
     *
     * @param name   the property name
     * @param of     the key it stands for
     * @param readBy the component that reads it
     * @param <T>    the value type
     * @return the key
     */
    public <T> ConfigKey<T> synonym(final String name, final ConfigKey<T> of, final String readBy) {
        final ConfigKey<T> key = add(name, of.type(), null, text -> of.fromProperty(text), of::format, of::valid,
            of.rule(), "the broker-wide default of the topic setting " + of.name(), readBy);
        key.markSynonymOf(of);
        return key;
    }

    /**
     * Defines a text key (a host, a path list, a connect string); its value is trimmed. A null default makes the key
     * optional: absent, its value is null.
     *
     * @param name         the property name
     * @param defaultValue the default, or null for none
     * @param doc          what the key is for
     * @param readBy       the component that reads it
     * @return the key
     */
    public ConfigKey<String> stringKey(final String name, final String defaultValue, final String doc,
                                       final String readBy) {
        return add(name, String.class, defaultValue, text -> text, text -> text, Objects::nonNull, "must be set", doc,
            readBy);
    }

    /**
     * Marks keys dynamic: a running component takes a new value over (see {@link ConfigKey#dynamic()}). Called from
     * the static initialiser that defines them.
     *
     * @param dynamicKeys keys of this table
     */
    public void dynamic(final ConfigKey<?>... dynamicKeys) {
        for (final ConfigKey<?> key : dynamicKeys) {
            own(key).markDynamic();
        }
    }

    /**
     * Marks keys secret: {@link #toString(Object[])} and range errors show {@code [hidden]} for their values.
     *
     * @param secretKeys keys of this table
     */
    public void secret(final ConfigKey<?>... secretKeys) {
        for (final ConfigKey<?> key : secretKeys) {
            own(key).markSecret();
        }
    }

    /**
     * Marks keys required: the validation pass refuses them unset (null, blank text, or a default that only stands
     * for unset, such as {@code broker.id}'s -1), naming the key, its value and its rule.
     *
     * @param requiredKeys keys of this table
     */
    public void required(final ConfigKey<?>... requiredKeys) {
        for (final ConfigKey<?> key : requiredKeys) {
            own(key).markRequired();
        }
    }

    /**
     * Marks every key of this table dynamic but the given ones (a topic table, whose keys a running log takes over
     * save those read only when it opens).
     *
     * @param readOnce keys of this table that are not dynamic
     */
    public void dynamicAllBut(final ConfigKey<?>... readOnce) {
        final List<ConfigKey<?>> excluded = Arrays.asList(readOnce);
        for (final ConfigKey<?> key : readOnce) {
            own(key);
        }
        for (final ConfigKey<?> key : keys) {
            if (!excluded.contains(key)) {
                key.markDynamic();
            }
        }
    }

    /**
     * The key of a property name, typed, for a component that reads a key another component's table defines.
     *
     * @param name the name
     * @param type the value type the caller expects
     * @param <T>  that type
     * @return the key
     * @throws IllegalStateException if this table has no such key or it has another type
     */
    @SuppressWarnings("unchecked")
    public <T> ConfigKey<T> key(final String name, final Class<T> type) {
        final ConfigKey<?> key = byName.get(name);
        if (key == null || !key.hasType(type)) {
            throw new IllegalStateException(owner + " defines no " + type.getSimpleName() + " key " + name);
        }
        return (ConfigKey<T>) key;
    }

    private ConfigKey<?> own(final ConfigKey<?> key) {
        if (byName.get(key.name()) != key) {
            throw new IllegalStateException(owner + " does not define " + key.name());
        }
        return key;
    }

    /**
     * The configuration class this table belongs to.
     *
     * @return its name, e.g. {@code LogConfig}
     */
    public String owner() {
        return owner;
    }

    /**
     * Starts the validation pass of a record-shaped configuration (its values in fields, not in a value array).
     *
     * @return an assignment holding every default, to set and validate
     */
    public Assignment assign() {
        return new Assignment(defaults());
    }

    /**
     * Values of a record-shaped configuration gathered for the one validation pass ({@link ConfigDef#validate}):
     * a record's compact constructor sets each of its values and calls {@link #validate()}.
     */
    public final class Assignment {
        private final Object[] values;

        private Assignment(final Object[] values) {
            this.values = values;
        }

        /**
         * Sets one value (checked by {@link #validate()}).
         *
         * @param key   the key
         * @param value the value
         * @param <T>   its type
         * @return this
         */
        public <T> Assignment set(final ConfigKey<T> key, final T value) {
            values[own(key).index()] = value;
            return this;
        }

        /**
         * Runs the validation pass: every key's range, then the cross-field rules.
         *
         * @throws IllegalArgumentException naming the key (or keys) and values of the first violation
         */
        public void validate() {
            ConfigDef.this.validate(values);
        }

        /**
         * The keys that have a value, as a property would spell them, secrets left out (see
         * {@link ConfigDef#shownProperties}).
         *
         * @return name to value text, in definition order, unmodifiable
         */
        public Map<String, String> shownProperties() {
            return ConfigDef.this.shownProperties(values);
        }

        /**
         * {@code Owner{name=value, ...}} for every key of the table, secrets hidden (a record's {@code toString}).
         *
         * @return the text
         */
        @Override
        public String toString() {
            return ConfigDef.this.toString(values);
        }
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
     * The property names of the keys, in definition order.
     *
     * @return the names
     */
    public List<String> names() {
        final List<String> names = new ArrayList<>(keys.size());
        for (final ConfigKey<?> key : keys) {
            names.add(key.name());
        }
        return List.copyOf(names);
    }

    /**
     * The given names this table does not define, sorted (what a component warns about as "supplied but isn't a
     * known config").
     *
     * @param names property names
     * @return the unknown ones
     */
    public List<String> unknown(final Collection<String> names) {
        final TreeSet<String> unknown = new TreeSet<>();
        for (final String name : names) {
            if (!byName.containsKey(name)) {
                unknown.add(name);
            }
        }
        return List.copyOf(unknown);
    }

    /**
     * Every key's value as a property would spell it, in definition order (a secret's as {@code [hidden]}).
     *
     * @param values the values
     * @return name to value text, ordered and unmodifiable
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public Map<String, String> toProperties(final Object[] values) {
        final Map<String, String> out = new LinkedHashMap<>();
        for (final ConfigKey key : keys) {
            final Object value = values[key.index()];
            out.put(key.name(), key.secret() && value != null ? "[hidden]" : key.format(value));
        }
        return Collections.unmodifiableMap(out);
    }

    /**
     * The keys that have a value, as a property would spell them, in definition order, secrets and unset keys left out:
     * what a component shows a client of its configuration (a broker's DescribeConfigs).
     *
     * @param values the values
     * @return name to value text, ordered and unmodifiable
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public Map<String, String> shownProperties(final Object[] values) {
        final Map<String, String> out = new LinkedHashMap<>();
        for (final ConfigKey key : keys) {
            final Object value = values[key.index()];
            if (value != null && !key.secret()) {
                out.put(key.name(), key.format(value));
            }
        }
        return Collections.unmodifiableMap(out);
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
            out.append(key.name()).append('=').append(key.secret() && values[key.index()] != null ? "[hidden]"
                : key.format(values[key.index()]));
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

    /**
     * The one int parser of every configuration: a number or its text, which must fit an int.
     *
     * @param name the key, for the message
     * @param raw  the value as given (text or a number)
     * @return the value
     * @throws IllegalArgumentException {@code name=raw is not an integer} or {@code ... does not fit in an int}
     */
    public static int parseInt(final String name, final Object raw) {
        final long value = parseLong(name, raw);
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(name + "=" + raw + " does not fit in an int");
        }
        return (int) value;
    }

    /**
     * The one long parser of every configuration: an integral number or its text (surrounding blanks ignored).
     *
     * @param name the key, for the message
     * @param raw  the value as given (text or a number)
     * @return the value
     * @throws IllegalArgumentException {@code name=raw is not an integer}
     */
    public static long parseLong(final String name, final Object raw) {
        if (raw instanceof Long || raw instanceof Integer || raw instanceof Short || raw instanceof Byte) {
            return ((Number) raw).longValue();
        }
        try {
            return Long.parseLong(String.valueOf(raw).trim());
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException(name + "=" + raw + " is not an integer", e);
        }
    }

    /**
     * The one floating-point parser of every configuration.
     *
     * @param name the key, for the message
     * @param raw  the value as given (text or a number)
     * @return the value
     * @throws IllegalArgumentException {@code name=raw is not a number}
     */
    public static double parseDouble(final String name, final Object raw) {
        if (raw instanceof Number n) {
            return n.doubleValue();
        }
        try {
            return Double.parseDouble(String.valueOf(raw).trim());
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException(name + "=" + raw + " is not a number", e);
        }
    }

    /**
     * The one boolean parser of every configuration: {@code true} or {@code false} in any case, nothing else
     * (Kafka refuses {@code yes} too).
     *
     * @param name the key, for the message
     * @param raw  the value as given (text or a boolean)
     * @return the value
     * @throws IllegalArgumentException {@code name=raw is not true or false}
     */
    public static boolean parseBoolean(final String name, final Object raw) {
        if (raw instanceof Boolean b) {
            return b;
        }
        final String text = String.valueOf(raw).trim();
        if ("true".equalsIgnoreCase(text) || "false".equalsIgnoreCase(text)) {
            return Boolean.parseBoolean(text);
        }
        throw new IllegalArgumentException(name + "=" + raw + " is not true or false");
    }
}
