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
        assertEquals("min.compaction.lag.ms=1.5 is not an integer", assertThrows(IllegalArgumentException.class,
            () -> DEF.parse(Map.of("min.compaction.lag.ms", 1.5), DEF.defaults())).getMessage());
        assertEquals("cleaner.enable=yes is not true or false", assertThrows(IllegalArgumentException.class,
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

    @Test
    void oneSetOfParsersAcceptsTextAndNumbersAndNamesTheKey() {
        assertEquals(7, ConfigDef.parseInt("a", " 7 "));
        assertEquals(7L, ConfigDef.parseLong("a", 7));
        assertEquals(0.5, ConfigDef.parseDouble("a", "0.5"));
        assertEquals(true, ConfigDef.parseBoolean("a", "TRUE"));
        assertEquals("a=4294967296 does not fit in an int", assertThrows(IllegalArgumentException.class,
            () -> ConfigDef.parseInt("a", 1L << 32)).getMessage());
        assertEquals("a=x is not a number", assertThrows(IllegalArgumentException.class,
            () -> ConfigDef.parseDouble("a", "x")).getMessage());
    }

    @Test
    void aRecordShapedConfigRunsTheSameValidationPass() {
        assertEquals("conflict: min.compaction.lag.ms=10 is above max.compaction.lag.ms=9",
            assertThrows(IllegalArgumentException.class,
                () -> DEF.assign().set(MIN_LAG, 10L).set(MAX_LAG, 9L).validate()).getMessage());
        assertEquals("max.compaction.lag.ms=0 must be at least 1", assertThrows(IllegalArgumentException.class,
            () -> DEF.assign().set(MAX_LAG, 0L).validate()).getMessage());
        DEF.assign().set(MIN_LAG, 1L).validate();
    }

    @Test
    void secretsAreHiddenAndOptionalKeysMayStayUnset() {
        final ConfigDef def = new ConfigDef("Zk");
        final ConfigKey<String> digest = def.stringKey("digest", null, "user:password", "zk");
        final ConfigKey<Integer> port = def.intKey("port", 1, 0, 9, "a port", "wire");
        def.secret(digest);
        def.dynamic(port);
        final Object[] values = def.defaults();
        assertEquals("Zk{digest=, port=1}", def.toString(values));
        def.parse(Map.of("digest", "u:s3cret"), values);
        assertEquals("Zk{digest=[hidden], port=1}", def.toString(values));
        assertEquals(List.of(false, true), List.of(digest.dynamic(), port.dynamic()));
        assertEquals(null, digest.read(Map.of()));
        assertEquals(List.of("x"), def.unknown(List.of("port", "x")));
        assertEquals(port, def.key("port", Integer.class));
        assertThrows(IllegalStateException.class, () -> def.key("port", Long.class));
    }

    @Test
    void requiredKeysAreRefusedUnsetByTheValidationPass() {
        final ConfigDef def = new ConfigDef("Broker");
        final ConfigKey<Integer> id = def.intKeyWhere("id", -1, v -> v >= -1, "must be set and >= 0", "id", "broker");
        final ConfigKey<String> connect = def.stringKey("connect", null, "where", "zk");
        final ConfigKey<String> rack = def.stringKey("rack", null, "rack", "controller");
        def.required(id, connect);
        assertEquals("id=-1 must be set and >= 0", assertThrows(IllegalArgumentException.class,
            () -> def.assign().set(connect, "zk:1").validate()).getMessage());
        assertEquals("connect=null must be set", assertThrows(IllegalArgumentException.class,
            () -> def.assign().set(id, 1).validate()).getMessage());
        assertEquals("connect=  must be set", assertThrows(IllegalArgumentException.class,
            () -> def.assign().set(id, 1).set(connect, " ").validate()).getMessage());
        assertEquals("id=-1 must be set and >= 0", assertThrows(IllegalArgumentException.class,
            () -> id.read(Map.of("id", "-1"))).getMessage());
        def.assign().set(id, 0).set(connect, "zk:1").validate();
        assertEquals(List.of(true, true, false), List.of(id.required(), connect.required(), rack.required()));
    }

    @Test
    void theReferenceListsEveryKeyWithItsTypeDefaultRangeAndReader() {
        final String md = ConfigDocs.markdown("Ref", "Intro.", List.of(new ConfigDocs.Section(DEF, "The lags.")));
        assertEquals("# Ref\n\nIntro.\n\n## Compaction\n\nThe lags.\n\n"
            + "| Key | Type | Default | Valid values | Read by | Dynamic | Description |\n|---|---|---|---|---|---|---|\n"
            + "| `min.compaction.lag.ms` | long | `0` | at least 0 | cleaner | no | min lag |\n"
            + "| `max.compaction.lag.ms` | long | `9223372036854775807` | at least 1 | cleaner | no | max lag |\n"
            + "| `cleaner.enable` | boolean | `true` | true or false | cleaner | no | on |\n", md);
    }
}
