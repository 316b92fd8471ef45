package io.seglog.storage;

import io.seglog.storage.checkpoint.PartitionMetadataFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The topic-id entry points of one {@link PartitionLog}: the id in the directory's {@code partition.metadata}
 * ({@link PartitionMetadataFile} owns the file and the id, read at open and written once), its failures as the API
 * reports them. Owns no state.
 */
final class TopicIds {
    private final Path dir;
    private final PartitionMetadataFile metadataFile;
    private final LogHealth health;

    TopicIds(final Path dir, final PartitionMetadataFile metadataFile, final LogHealth health) {
        this.dir = dir;
        this.metadataFile = metadataFile;
        this.health = health;
    }

    /** {@link PartitionLog#topicId}. */
    Optional<TopicId> topicId() {
        return metadataFile.topicId().map(TopicId::of);
    }

    /** {@link PartitionLog#assignTopicId}. */
    boolean assign(final TopicId id) {
        Objects.requireNonNull(id, "id");
        final Optional<TopicId> current = topicId();
        if (current.isPresent() && current.get().equals(id)) {
            return false;
        }
        if (current.isEmpty()) {
            health.ensureWritable();
        } else {
            health.ensureReadable(); // a conflict is reported on a read-only log too
        }
        try {
            return switch (metadataFile.assign(id.toUuid())) {
                case WRITTEN -> true;
                case ALREADY_HELD -> false;
                case CONFLICT -> throw new InconsistentTopicIdException(dir, topicId().orElseThrow(), id);
            };
        } catch (final IOException e) {
            throw health.goOffline("write of " + PartitionMetadataFile.FILE_NAME, e);
        }
    }
}
