package io.seglog.storage.inspect;

import java.util.List;

/**
 * What {@link LogVerifier#verify} checked and found. Immutable.
 *
 * @param partitions the partition directories checked
 * @param segments   the segment files scanned
 * @param batches    the record batches whose CRC was checked
 * @param bytes      the bytes of those batches
 * @param problems   everything found wrong, in the order found (empty for a healthy directory)
 */
public record VerifyReport(int partitions, int segments, long batches, long bytes, List<Problem> problems) {
    /**
     * Copies the list.
     *
     * @param partitions the partition directories checked
     * @param segments   the segment files scanned
     * @param batches    the batches checked
     * @param bytes      their bytes
     * @param problems   the problems found
     */
    public VerifyReport {
        problems = List.copyOf(problems);
    }

    /**
     * Whether nothing was found wrong.
     *
     * @return true when there are no problems
     */
    public boolean healthy() {
        return problems.isEmpty();
    }
}
