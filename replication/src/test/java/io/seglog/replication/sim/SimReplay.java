package io.seglog.replication.sim;

import java.nio.file.Path;

/**
 * Replays one seed with every fix on and prints its digest, event count and fault list: run in a JVM of its own by
 * {@link ClusterSimulationTest} to check that a printed seed replays the same run in another JVM, whose
 * {@code Map.of} salt and identity hashes differ.
 */
final class SimReplay {
    private SimReplay() {
    }

    /**
     * Runs a seed.
     *
     * @param args the seed, a scratch directory and the simulated duration in milliseconds
     */
    public static void main(final String[] args) {
        final long seed = Long.parseLong(args[0]);
        final SimRun.Result r = SimRun.run(seed, Path.of(args[1]), SimCluster.Settings.defaults(),
            Long.parseLong(args[2]));
        System.out.println(line(r));
        System.exit(r.failed() ? 1 : 0);
    }

    /**
     * What two replays of a seed must print alike.
     *
     * @param r a run's result
     * @return one line
     */
    static String line(final SimRun.Result r) {
        return "seed=" + r.seed() + " digest=" + Long.toHexString(r.digest()) + " events=" + r.events() + " acked="
            + r.acked() + " faults=" + r.faults();
    }
}
