package io.seglog.storage.segment;

/**
 * Names of a segment's files, as Kafka names them ({@code LogFileUtils}): the base offset in 20 decimal
 * digits, so names sort in offset order, plus {@code .log}, {@code .index} or {@code .timeindex}.
 *
 * <p>Thread-safety: stateless.
 */
public final class SegmentFiles {
    /** Suffix of the data file. */
    public static final String LOG_SUFFIX = ".log";
    /** Suffix of the offset index. */
    public static final String INDEX_SUFFIX = ".index";
    /** Suffix of the time index. */
    public static final String TIME_INDEX_SUFFIX = ".timeindex";
    /** Digits of the base offset in file names: Kafka pads to 20, enough for any non-negative long. */
    public static final int FILE_NAME_DIGITS = 20;

    private SegmentFiles() {
    }

    /**
     * The name of a segment file.
     *
     * @param baseOffset the segment's base offset, 0 or more
     * @param suffix     {@link #LOG_SUFFIX}, {@link #INDEX_SUFFIX} or {@link #TIME_INDEX_SUFFIX}
     * @return e.g. {@code 00000000000000000042.log}
     */
    public static String fileName(final long baseOffset, final String suffix) {
        final String digits = Long.toString(baseOffset);
        final StringBuilder name = new StringBuilder(FILE_NAME_DIGITS + suffix.length());
        for (int i = digits.length(); i < FILE_NAME_DIGITS; i++) {
            name.append('0');
        }
        return name.append(digits).append(suffix).toString();
    }

    /**
     * Parses a segment data file name.
     *
     * @param fileName a file name (no directory)
     * @return the base offset, or -1 when the name is not {@code <20 digits>.log}
     */
    public static long parseBaseOffset(final String fileName) {
        if (fileName.length() != FILE_NAME_DIGITS + LOG_SUFFIX.length() || !fileName.endsWith(LOG_SUFFIX)) {
            return -1;
        }
        for (int i = 0; i < FILE_NAME_DIGITS; i++) {
            final char c = fileName.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
        }
        try {
            return Long.parseLong(fileName, 0, FILE_NAME_DIGITS, 10);
        } catch (final NumberFormatException tooLarge) {
            return -1;
        }
    }
}
