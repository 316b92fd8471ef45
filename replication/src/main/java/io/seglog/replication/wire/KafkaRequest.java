package io.seglog.replication.wire;

import java.net.SocketAddress;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A decoded request: its API and version, its header (a missing client id reads as {@code ""}, as Kafka's) and
 * its body. The body is decoded from a private copy of the frame, so it stays valid for as long as it is held.
 *
 * @param api     the API
 * @param version the request's version
 * @param header  the request header (correlation id, client id)
 * @param body    the request body, the API's {@code *RequestData}
 * @param peer    the client's address
 */
public record KafkaRequest(ApiKeys api, short version, RequestHeaderData header, ApiMessage body,
                           SocketAddress peer) {
    /**
     * The correlation id the response must carry.
     *
     * @return the header's correlation id
     */
    public int correlationId() {
        return header.correlationId();
    }
}
