package io.seglog.replication.example;

import io.seglog.replication.broker.SeglogBrokerMain;
import java.io.IOException;
import java.io.InputStream;

/**
 * A broker process of the quickstart: exactly {@link SeglogBrokerMain} with a {@code broker.properties}, plus one
 * rule: the process exits (with SeglogBrokerMain's controlled shutdown) when its standard input closes. The demo
 * holds that pipe open, so brokers it started end with it even when the demo itself is killed with SIGKILL.
 *
 * <p>Not for production use: a broker run by a service manager is {@code SeglogBrokerMain}.
 */
public final class DemoBrokerMain {
    private DemoBrokerMain() {
    }

    /**
     * Runs a broker until it is asked to stop or its standard input closes.
     *
     * @param args {@code broker.properties}
     * @throws Exception when it cannot start (the message names the file or setting)
     */
    public static void main(final String[] args) throws Exception {
        final Thread watch = new Thread(() -> {
            final InputStream in = System.in;
            try {
                while (in.read() >= 0) {
                    // the demo writes nothing; any byte is ignored
                }
            } catch (final IOException e) {
                // a broken pipe means the same as end of input: the demo is gone
            }
            System.exit(0);
        }, "quickstart-parent-watch");
        watch.setDaemon(true);
        watch.start();
        SeglogBrokerMain.main(args);
    }
}
