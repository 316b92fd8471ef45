package io.seglog.storage.config;

import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One configuration key, defined once: its property name (Kafka's where Kafka has the key), type, default, range,
 * documentation, the component that reads it and whether it may change at run time (a topic-level setting a running
 * log takes over, {@link #dynamic()}). A {@link ConfigDef} holds the keys of one configuration object and drives
 * everything else from them: the builder's defaults, parsing properties, validation, equality, {@code toString}
 * and the generated reference ({@link ConfigDocs}). A key with a null default is optional (unset means absent).
 *
 * @param <T> the value type
 */
public final class ConfigKey<T> {
    private final int index;
    private final String name;
    private final Class<T> type;
    private final T defaultValue;
    private final Function<String, T> parser;
    private final Function<T, String> printer;
    private final Predicate<T> valid;
    private final String rule;
    private final String doc;
    private final String readBy;
    /** Set while the owning class's static initialiser defines its table ({@link ConfigDef#dynamic}), then read only. */
    private boolean dynamic;
    /** Likewise ({@link ConfigDef#secret}): the value is never printed. */
    private boolean secret;
    /** Likewise ({@link ConfigDef#required}): the key must be given a value. */
    private boolean required;
    /** Likewise ({@link ConfigDef#synonym}): the key of another table this one stands for, or null. */
    private ConfigKey<T> synonymOf;

    ConfigKey(final int index, final String name, final Class<T> type, final T defaultValue,
              final Function<String, T> parser, final Function<T, String> printer, final Predicate<T> valid,
              final String rule, final String doc, final String readBy) {
        this.index = index;
        this.name = Objects.requireNonNull(name, "name");
        this.type = type;
        this.defaultValue = defaultValue;
        this.parser = parser;
        this.printer = printer;
        this.valid = valid;
        this.rule = rule;
        this.doc = doc;
        this.readBy = readBy;
        if (defaultValue != null && !valid.test(defaultValue)) {
            throw new IllegalStateException("the default of " + name + " breaks its own rule: " + rule);
        }
    }

    int index() {
        return index;
    }

    /**
     * The value type (a reader that maps it to another vocabulary, such as Kafka's DescribeConfigs type ids).
     *
     * @return the class of the values
     */
    public Class<T> type() {
        return type;
    }

    boolean valid(final T value) {
        return valid.test(value);
    }

    boolean hasType(final Class<?> expected) {
        return type == expected;
    }

    void markDynamic() {
        dynamic = true;
    }

    void markSynonymOf(final ConfigKey<T> of) {
        synonymOf = of;
    }

    /**
     * The key this one is another name for (Kafka's broker-level {@code log.segment.bytes} for the topic-level
     * {@code segment.bytes}), or null.
     *
     * @return the key, or null
     */
    public ConfigKey<T> synonymOf() {
        return synonymOf;
    }

    void markSecret() {
        secret = true;
    }

    void markRequired() {
        required = true;
    }

    /**
     * Whether the key must be given a value: unset (null, blank text, or the default, which for a required key only
     * stands for unset, as {@code broker.id}'s -1 does) is refused with the key's rule.
     *
     * @return whether the key is required
     */
    public boolean required() {
        return required;
    }

    /**
     * Whether a running component takes a new value of this key over (a topic-level setting changed through
     * Kafka's {@code AlterConfigs} or {@code kafka-configs.sh}); false for a key read once at start.
     *
     * @return whether the key is dynamic
     */
    public boolean dynamic() {
        return dynamic;
    }

    /**
     * Whether the value is a secret, never printed ({@code toString} and messages show {@code [hidden]}).
     *
     * @return whether the key is secret
     */
    public boolean secret() {
        return secret;
    }

    /**
     * The value type as the reference names it: {@code int}, {@code long}, {@code double}, {@code boolean} or
     * {@code string} (a name, a list of names, a path).
     *
     * @return the type name
     */
    public String typeName() {
        if (type == Integer.class) {
            return "int";
        }
        if (type == Long.class) {
            return "long";
        }
        if (type == Double.class) {
            return "double";
        }
        if (type == Boolean.class) {
            return "boolean";
        }
        return "string";
    }

    /**
     * The property name.
     *
     * @return the name, e.g. {@code segment.bytes}
     */
    public String name() {
        return name;
    }

    /**
     * The default value.
     *
     * @return the default
     */
    public T defaultValue() {
        return defaultValue;
    }

    /**
     * What the key is for.
     *
     * @return the documentation
     */
    public String doc() {
        return doc;
    }

    /**
     * The component that reads the key (a key a component claims to accept is validated by it).
     *
     * @return the component, e.g. {@code segments}, {@code append}, {@code replication}
     */
    public String readBy() {
        return readBy;
    }

    /**
     * The range rule, as the error message states it.
     *
     * @return the rule, e.g. {@code must be at least 1}
     */
    public String rule() {
        return rule;
    }

    /**
     * Checks a value against the range.
     *
     * @param value the value
     * @return the value
     * @throws IllegalArgumentException naming the key and the value when it is out of range or null, or unset when
     *     required
     */
    public T check(final T value) {
        if (required && unset(value)) {
            throw new IllegalArgumentException(name + "=" + (value == null ? "null" : secret ? "[hidden]"
                : format(value)) + " " + rule);
        }
        if (value == null && defaultValue == null) {
            return null; // an optional key left unset
        }
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        if (!valid.test(value)) {
            throw new IllegalArgumentException(name + "=" + (secret ? "[hidden]" : format(value)) + " " + rule);
        }
        return value;
    }

    private boolean unset(final T value) {
        return value == null || value.equals(defaultValue) || value instanceof String text && text.isBlank();
    }

    /**
     * Reads a property value (a string as in a properties file, or a number or boolean of the key's type) and checks
     * it.
     *
     * @param raw the value as given
     * @return the typed, checked value
     * @throws IllegalArgumentException naming the key and the value when it does not parse or is out of range
     */
    public T fromProperty(final Object raw) {
        if (raw == null) {
            throw new IllegalArgumentException(name + "=null has no value");
        }
        final T value;
        if (type.isInstance(raw) && type != String.class) {
            value = type.cast(raw);
        } else if (type == Long.class && (raw instanceof Integer || raw instanceof Short)) {
            value = type.cast(((Number) raw).longValue());
        } else if (type == Integer.class && (raw instanceof Long || raw instanceof Short)) {
            final long wide = ((Number) raw).longValue();
            value = type.cast(ConfigDef.parseInt(name, wide));
        } else {
            value = parser.apply(String.valueOf(raw).trim());
        }
        return check(value);
    }

    /**
     * Reads this key from properties: its value parsed and range-checked when present, else the default. Asks the map
     * for this name only, so a map that records what was asked learns which keys Seglog knows.
     *
     * @param properties names to values (strings, numbers, booleans)
     * @return the value
     * @throws IllegalArgumentException naming the key and the value when it does not parse or is out of range
     */
    public T read(final Map<String, ?> properties) {
        final Object raw = properties.get(name);
        return raw == null ? defaultValue : fromProperty(raw);
    }

    /**
     * The value as a property would spell it.
     *
     * @param value the value
     * @return its text
     */
    public String format(final T value) {
        return value == null ? "" : printer.apply(value);
    }

    @Override
    public String toString() {
        return name;
    }
}
