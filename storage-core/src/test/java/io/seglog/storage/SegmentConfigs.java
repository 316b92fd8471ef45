package io.seglog.storage;

import io.seglog.storage.segment.SegmentConfig;

/** Gives tests of the segment layer the segment configuration a log would derive from a {@link LogConfig}. */
public final class SegmentConfigs {
    private SegmentConfigs() {
    }

    /**
     * The segment configuration of a log configuration.
     *
     * @param config the log configuration
     * @return what its segments get
     */
    public static SegmentConfig of(final LogConfig config) {
        return config.segmentConfig();
    }
}
