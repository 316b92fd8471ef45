package io.seglog.replication.wire;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * InitProducerId (API 22) for idempotent producers, which kafka-clients are by default ({@code enable.idempotence=true}):
 * each request without a transactional id gets a new producer id at epoch 0, as Kafka's
 * {@code TransactionCoordinator.handleInitProducerId} answers a null transactional id (the producer id and epoch that
 * v3+ requests carry are not looked at: a client bumping its epoch after an OUT_OF_ORDER_SEQUENCE_NUMBER gets a fresh
 * id, and its sequences start again at 0).
 *
 * <p>Errors:
 * <ul>
 *   <li>No id at hand (the next block is still being reserved in ZooKeeper, or ZooKeeper failed: the source logs
 *       why): COORDINATOR_LOAD_IN_PROGRESS, which the producer retries. Kafka's {@code RPCProducerIdManager} answers
 *       the same, because older clients take REQUEST_TIMED_OUT here as fatal.</li>
 *   <li>A transactional id: Seglog has no transactions (no coordinator, no markers). INVALID_REQUEST, which kafka-clients'
 *       {@code InitProducerIdHandler} treats as fatal ("Unexpected error in InitProducerIdResponse; ... sent to an
 *       incompatible broker. See the broker logs"), and the broker logs the transactional id and the client. The other
 *       candidates would mislead: TRANSACTIONAL_ID_AUTHORIZATION_FAILED and CLUSTER_AUTHORIZATION_FAILED blame ACLs
 *       (and the client only aborts the transaction, then tries again); UNSUPPORTED_VERSION says the version is wrong
 *       when it is the feature that is missing. Kafka's transactional clients never get this far anyway: they look
 *       up their coordinator with FindCoordinator first, which Seglog does not advertise, so
 *       {@code initTransactions()} fails with UnsupportedVersionException before sending InitProducerId.</li>
 * </ul>
 *
 * <p>Versions 0 to 5 (flexible from 2); v6 (two-phase commit, KIP-939) is unstable in kafka-clients 4.4 and not
 * advertised. Thread-safe if its source is; never blocks.
 */
final class InitProducerIds {
    /** The lowest version served: all of them. */
    static final short MIN_VERSION = 0;
    /** The highest version served: the last stable one. */
    static final short MAX_VERSION = 5;
    private static final Logger LOG = LoggerFactory.getLogger(InitProducerIds.class);
    /** The epoch of a new producer id. */
    private static final short FIRST_EPOCH = 0;

    private final int brokerId;
    private final ProducerIdSource source;

    /**
     * @param brokerId this broker, for log lines
     * @param source   the producer ids
     */
    InitProducerIds(final int brokerId, final ProducerIdSource source) {
        this.brokerId = brokerId;
        this.source = source;
    }

    /** The API's entry for {@link KafkaApis#apis()}. */
    KafkaApi api() {
        return new KafkaApi(ApiKeys.INIT_PRODUCER_ID, MIN_VERSION, MAX_VERSION, this::handle);
    }

    CompletionStage<ApiMessage> handle(final KafkaRequest request) {
        return CompletableFuture.completedFuture(answer(request));
    }

    InitProducerIdResponseData answer(final KafkaRequest request) {
        final InitProducerIdRequestData req = (InitProducerIdRequestData) request.body();
        final InitProducerIdResponseData resp = new InitProducerIdResponseData().setThrottleTimeMs(0)
            .setProducerId(-1).setProducerEpoch((short) -1);
        if (req.transactionalId() != null) {
            LOG.warn("broker.id={} refuses InitProducerId for transactional.id={} from client {} at {}: Seglog does"
                + " not support transactions (answered INVALID_REQUEST)", brokerId, req.transactionalId(),
                request.header().clientId(), request.peer());
            return resp.setErrorCode(Errors.INVALID_REQUEST.code());
        }
        final long id = source.nextProducerId();
        if (id < 0) {
            return resp.setErrorCode(Errors.COORDINATOR_LOAD_IN_PROGRESS.code());
        }
        return resp.setErrorCode(Errors.NONE.code()).setProducerId(id).setProducerEpoch(FIRST_EPOCH);
    }
}
