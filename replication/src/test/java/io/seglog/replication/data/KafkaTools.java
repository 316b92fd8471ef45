package io.seglog.replication.data;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.utils.internals.Exit;

/**
 * Runs Kafka's command-line tools (kafka-tools' main classes) in this JVM against Seglog brokers, as an operator
 * would run {@code kafka-topics.sh} or {@code kafka-consumer-groups.sh}.
 */
final class KafkaTools {
    private KafkaTools() {
    }

    /**
     * What a tool printed and the first status it exited with (0 when it returned without calling exit).
     *
     * @param status the exit status
     * @param out    its standard output
     * @param err    its standard error
     */
    record ToolRun(int status, String out, String err) {
    }

    /** A tool's main body, as the test calls it. */
    @FunctionalInterface
    interface ToolMain {
        /**
         * Runs the tool.
         *
         * @throws Exception whatever it throws
         */
        void run() throws Exception;
    }

    /**
     * Runs a tool's main method in this thread with stdin, stdout and stderr redirected, Kafka's {@code Exit}
     * recording the first status instead of stopping the JVM (the tools return after calling it; some catch every
     * throwable, so it cannot throw), and the shutdown hooks it registers (a producer's close) run when it is done.
     *
     * @param stdin what the tool reads
     * @param main  the tool
     * @return what it printed and its status
     * @throws Exception what the tool threw
     */
    static synchronized ToolRun run(final String stdin, final ToolMain main) throws Exception {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final PrintStream oldOut = System.out;
        final PrintStream oldErr = System.err;
        final InputStream oldIn = System.in;
        final List<Runnable> hooks = new ArrayList<>();
        final AtomicReference<Integer> status = new AtomicReference<>();
        Exit.setExitProcedure((code, message) -> status.compareAndSet(null, code));
        Exit.setShutdownHookAdder((name, hook) -> hooks.add(hook));
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        try {
            main.run();
        } finally {
            hooks.forEach(Runnable::run);
            System.setOut(oldOut);
            System.setErr(oldErr);
            System.setIn(oldIn);
            Exit.resetExitProcedure();
            Exit.resetShutdownHookAdder();
        }
        final ToolRun run = new ToolRun(status.get() == null ? 0 : status.get(), out.toString(StandardCharsets.UTF_8),
            err.toString(StandardCharsets.UTF_8));
        System.out.println("tool run: status=" + run.status() + "\n--- stdout\n" + run.out() + "--- stderr\n"
            + run.err());
        return run;
    }
}
