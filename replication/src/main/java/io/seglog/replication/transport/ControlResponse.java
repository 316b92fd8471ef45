package io.seglog.replication.transport;

import io.seglog.storage.TopicPartition;
import java.util.Map;

/**
 * A broker's answer to an accepted control request: the partitions it did not apply, with why.
 *
 * @param partitionErrors partition to the refusal (empty when everything was applied)
 */
public record ControlResponse(Map<TopicPartition, ControlRequestRefusedException> partitionErrors) {
    /**
     * Copies the map.
     *
     * @param partitionErrors partition to the refusal
     */
    public ControlResponse {
        partitionErrors = Ordered.byPartition(partitionErrors);
    }

    /**
     * An answer without errors.
     *
     * @return the response
     */
    public static ControlResponse ok() {
        return new ControlResponse(Map.of());
    }
}
