package io.seglog.replication.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.storage.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Seeded mutation fuzzing of every decoder: whatever bytes another ZooKeeper client writes, a decoder either
 * returns a value or throws {@link MalformedZnodeException}; nothing else escapes. Decoded values that have an
 * exact writer must also survive a write-and-read round trip.
 */
class ZnodeFuzzTest {
    private static final long SEED = 0x5e61_06L;
    private static final int ROUNDS_PER_DECODER = 3000;
    private static final Pattern NUMBER = Pattern.compile("-?[0-9]+");
    private static final String[] REPLACEMENTS = {
        "-1", "-2", "0", "2147483647", "2147483648", "-2147483649", "99999999999999999999999", "1.5", "1e3", "null",
        "\"x\"", "\"\"", "[]", "{}", "true", "[1,1]", "\"../x\"", "\"\\u0000\"",
    };
    private static final String ALPHABET = "{}[]\":,-0123456789aelnrstuv \\é\u0000";

    @FunctionalInterface
    interface Decoder {
        Object decode(byte[] json) throws MalformedZnodeException;
    }

    @FunctionalInterface
    interface Encoder {
        byte[] encode(Object value);
    }

    private record Target(String name, String seed, Decoder decoder, Encoder encoder) {
    }

    private static List<Target> targets() {
        return List.of(
            new Target("state", new String(new PartitionStateZnode(new LeaderAndIsr(2, 7, List.of(2, 3, 5), 0), 5, true)
                .toJson(), StandardCharsets.UTF_8),
                json -> PartitionStateZnode.fromJson(json, 3), v -> ((PartitionStateZnode) v).toJson()),
            new Target("broker", "{\"version\":5,\"host\":\"localhost\",\"port\":9092,\"jmx_port\":9999,"
                + "\"timestamp\":\"2233345666\",\"endpoints\":[\"CLIENT://host1:9092\",\"REPLICATION://[::1]:9093\"],"
                + "\"listener_security_protocol_map\":{\"CLIENT\":\"SSL\",\"REPLICATION\":\"PLAINTEXT\"},\"rack\":\"dc1\","
                + "\"features\":{\"f\":{\"min_version\":1,\"max_version\":2}}}",
                json -> BrokerRegistration.fromJson(1, json), null),
            new Target("topic", new String(new TopicAssignmentZnode(Map.of(0, List.of(1, 2, 3, 4), 1, List.of(2, 3)),
                Map.of(0, List.of(4)), Map.of(0, List.of(1)), Optional.of("ZbD4IQlmRk-ENlQ6vVdi_g")).toJson(),
                StandardCharsets.UTF_8),
                json -> TopicAssignmentZnode.fromJson("t", json), v -> ((TopicAssignmentZnode) v).toJson()),
            new Target("controller", "{\"version\":2,\"brokerid\":1,\"timestamp\":\"1700000000000\",\"kraftControllerEpoch\":-1}",
                ControllerZnode::fromJson, v -> ((ControllerZnode) v).toJson()),
            new Target("epoch", "12345", ControllerEpochZnode::fromBytes, v -> ControllerEpochZnode.toBytes((Integer) v)),
            new Target("isr", new String(new IsrChangeNotificationZnode(Set.of(new TopicPartition("a", 0),
                new TopicPartition("b", 3))).toJson(), StandardCharsets.UTF_8),
                json -> IsrChangeNotificationZnode.fromJson("/isr_change_notification/isr_change_1", json),
                v -> ((IsrChangeNotificationZnode) v).toJson()),
            new Target("preferred", "{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0}]}",
                PreferredReplicaElectionZnode::fromJson, v -> ((PreferredReplicaElectionZnode) v).toJson()),
            new Target("reassign", "{\"version\":1,\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"replicas\":[1,2,3]},"
                + "{\"topic\":\"u\",\"partition\":2,\"replicas\":[3]}]}",
                ReassignPartitionsZnode::fromJson, v -> ((ReassignPartitionsZnode) v).toJson()));
    }

    @Test
    void decodersThrowOnlyMalformedZnodeException() {
        final SplittableRandom random = new SplittableRandom(SEED);
        int accepted = 0;
        int rejected = 0;
        for (final Target target : targets()) {
            for (int round = 0; round < ROUNDS_PER_DECODER; round++) {
                String text = target.seed();
                final int mutations = 1 + random.nextInt(3);
                for (int m = 0; m < mutations; m++) {
                    text = mutate(text, random);
                }
                final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
                final Object decoded;
                try {
                    decoded = target.decoder().decode(bytes);
                } catch (final MalformedZnodeException e) {
                    rejected++;
                    assertTrue(e.path() != null && e.field() != null, e.getMessage());
                    continue;
                } catch (final RuntimeException | Error e) {
                    throw new AssertionError(target.name() + " threw " + e + " for payload: " + text, e);
                }
                accepted++;
                if (target.encoder() != null) {
                    try {
                        assertEquals(decoded, target.decoder().decode(target.encoder().encode(decoded)),
                            target.name() + " round trip of " + text);
                    } catch (final MalformedZnodeException e) {
                        fail(target.name() + ": our own encoding of " + decoded + " was rejected: " + e.getMessage());
                    }
                }
            }
        }
        // Both outcomes must occur, or the fuzzer is not exercising anything.
        assertTrue(accepted > 100, "accepted=" + accepted);
        assertTrue(rejected > 1000, "rejected=" + rejected);
    }

    @Test
    void childNameParsersThrowOnlyMalformedZnodeException() {
        final SplittableRandom random = new SplittableRandom(SEED);
        for (int i = 0; i < 5000; i++) {
            final StringBuilder sb = new StringBuilder();
            final int length = random.nextInt(14);
            for (int c = 0; c < length; c++) {
                sb.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
            }
            final String name = sb.toString();
            try {
                final int id = ZkPaths.brokerIdFromChild(name);
                assertEquals(name, Integer.toString(id), "only canonical names parse");
            } catch (final MalformedZnodeException expected) {
                assertEquals("brokerId", expected.field());
            }
        }
    }

    private static String mutate(final String text, final SplittableRandom random) {
        if (text.isEmpty()) {
            return String.valueOf(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        final int at = random.nextInt(text.length());
        switch (random.nextInt(6)) {
            case 0:
                return text.substring(0, at) + ALPHABET.charAt(random.nextInt(ALPHABET.length())) + text.substring(at + 1);
            case 1:
                return text.substring(0, at) + text.substring(Math.min(text.length(), at + 1 + random.nextInt(8)));
            case 2: {
                final int end = Math.min(text.length(), at + 1 + random.nextInt(16));
                return text.substring(0, end) + text.substring(at, end) + text.substring(end);
            }
            case 3:
                return text.substring(0, at);
            default: {
                final Matcher m = NUMBER.matcher(text);
                final java.util.List<int[]> spans = new java.util.ArrayList<>();
                while (m.find()) {
                    spans.add(new int[] {m.start(), m.end()});
                }
                if (spans.isEmpty()) {
                    return text + REPLACEMENTS[random.nextInt(REPLACEMENTS.length)];
                }
                final int[] span = spans.get(random.nextInt(spans.size()));
                return text.substring(0, span[0]) + REPLACEMENTS[random.nextInt(REPLACEMENTS.length)]
                    + text.substring(span[1]);
            }
        }
    }
}
