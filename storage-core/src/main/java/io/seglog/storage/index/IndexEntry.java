package io.seglog.storage.index;

/**
 * The answer of one index lookup, as fields: the entry's offset, and its file position (offset index) or timestamp
 * (time index). Indexes are not checksummed (Kafka's format has no room for one), so a reader checks the entry
 * against the batch it points to before it trusts it; that needs the entry's offset, not only the position a
 * lookup used to return. Reused by one reader; not thread-safe.
 */
public final class IndexEntry {
    private boolean found;
    private long offset;
    private int position;
    private long timestamp;
    private long previousOffset;

    /** Creates an empty answer. */
    public IndexEntry() {
    }

    void set(final long entryOffset, final int entryPosition, final long entryTimestamp, final long previous) {
        this.found = true;
        this.offset = entryOffset;
        this.position = entryPosition;
        this.timestamp = entryTimestamp;
        this.previousOffset = previous;
    }

    /**
     * Sets the answer for "no entry matched": the segment's start.
     *
     * @param baseOffset the segment's base offset
     */
    public void none(final long baseOffset) {
        this.found = false;
        this.offset = baseOffset;
        this.position = 0;
        this.timestamp = IndexDescriptor.NO_TIMESTAMP;
        this.previousOffset = baseOffset;
    }

    /**
     * Whether an entry matched; when none did, the answer is the segment's start (base offset, position 0).
     *
     * @return whether an entry matched
     */
    public boolean found() {
        return found;
    }

    /**
     * The entry's offset (the last offset of the batch it indexes), or the base offset when none matched.
     *
     * @return the offset
     */
    public long offset() {
        return offset;
    }

    /**
     * The entry's file position (offset index), 0 when none matched or for a time-index entry.
     *
     * @return the position
     */
    public int position() {
        return position;
    }

    /**
     * The offset of the entry before this one (time index), or the base offset for the first entry: a timestamp
     * search that starts at the smaller of the two stays correct even if one of the two entries is damaged.
     *
     * @return the offset
     */
    public long previousOffset() {
        return previousOffset;
    }

    /**
     * The entry's timestamp (time index): the largest timestamp of the batch holding {@link #offset()}; -1 otherwise.
     *
     * @return the timestamp
     */
    public long timestamp() {
        return timestamp;
    }
}
