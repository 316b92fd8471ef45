package io.seglog.storage.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The table's mechanics on a small definition: parsing, unknown keys, ranges, and a rule between two keys. */
class ConfigDefTest {
    private static final ConfigDef DEF = new ConfigDef("Compaction");
    private static final ConfigKey<Long> MIN_LAG = DEF.longKey("min.compaction.lag.ms", 0, 0, "min lag", "cleaner");
    private static final ConfigKey<Long> MAX_LAG = DEF.longKey("max.compaction.lag.ms", Long.MAX_VALUE, 1, "max lag",
        "cleaner");
    private static final ConfigKey<Boolean> ON = DEF.booleanKey("cleaner.enable", true, "on", "cleaner");

    static {
        // Kafka's own cross-field rule in LogConfig.validateValues, as the example.
        DEF.crossRule(values -> values.get(MIN_LAG) > values.get(MAX_LAG)
            ? "conflict: min.compaction.lag.ms=" + values.get(MIN_LAG) + " is above max.compaction.lag.ms="
                + values.get(MAX_LAG) : null);
    }

    @Test
    void parsesKnownKeysAndReturnsTheUnknownOnes() {
        final Object[] values = DEF.defaults();
        assertEquals(List.of("a.b", "z"), DEF.parse(Map.of("min.compaction.lag.ms", "5", "z", 1, "a.b", "x",
            "cleaner.enable", "FALSE"), values));
        assertEquals(5L, ConfigDef.get(values, MIN_LAG));
        assertEquals(false, ConfigDef.get(values, ON));
        DEF.validate(values);
        assertEquals("Compaction{min.compaction.lag.ms=5, max.compaction.lag.ms=9223372036854775807, "
            + "cleaner.enable=false}", DEF.toString(values));
    }

    @Test
    void rangesAndTypesAreCheckedWithTheKeyInTheMessage() {
        assertEquals("max.compaction.lag.ms=0 must be at least 1", assertThrows(IllegalArgumentException.class,
            () -> DEF.parse(Map.of("max.compaction.lag.ms", 0), DEF.defaults())).getMessage());
        assertEquals("min.compaction.lag.ms=1.5 is not a number", assertThrows(IllegalArgumentException.class,
            () -> DEF.parse(Map.of("min.compaction.lag.ms", 1.5), DEF.defaults())).getMessage());
        assertEquals("cleaner.enable=yes is not a boolean (true or false)", assertThrows(IllegalArgumentException.class,
            () -> DEF.parse(Map.of("cleaner.enable", "yes"), DEF.defaults())).getMessage());
    }

    @Test
    void theCrossFieldRuleNamesBothKeys() {
        final Object[] values = DEF.defaults();
        DEF.parse(Map.of("min.compaction.lag.ms", "10", "max.compaction.lag.ms", "9"), values);
        assertEquals("conflict: min.compaction.lag.ms=10 is above max.compaction.lag.ms=9",
            assertThrows(IllegalArgumentException.class, () -> DEF.validate(values)).getMessage());
    }

    @Test
    void aKeyDefinedTwiceOrWithABadDefaultIsRefused() {
        final ConfigDef def = new ConfigDef("Twice");
        def.intKey("a", 1, 0, "a", "test");
        assertThrows(IllegalStateException.class, () -> def.intKey("a", 1, 0, "a", "test"));
        assertThrows(IllegalStateException.class, () -> def.intKey("b", -1, 0, "b", "test"));
    }
}
