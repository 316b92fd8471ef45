package io.seglog.storage.checkpoint;

/**
 * Strict parsing of the fields of a checkpoint line. Stateless.
 *
 * <p>Numbers are plain decimal: an optional {@code '-'} then 1 to 19 digits, nothing else (no {@code '+'},
 * no blanks); fields are separated by exactly one space, which is what Kafka writes.
 */
final class CheckpointFields {
    private CheckpointFields() {
    }

    /**
     * Splits a line at single spaces into exactly {@code expected} non-empty fields.
     *
     * @param line     the line
     * @param expected the number of fields
     * @param names    the field names, for the error message
     * @return the fields
     * @throws IllegalArgumentException if the count differs or a field is empty
     */
    static String[] split(final String line, final int expected, final String names) {
        final String[] fields = new String[expected];
        int start = 0;
        for (int i = 0; i < expected; i++) {
            final int space = line.indexOf(' ', start);
            final boolean last = i == expected - 1;
            if (last != (space < 0)) {
                throw new IllegalArgumentException("expected " + expected + " fields separated by single spaces ("
                    + names + ")");
            }
            final int end = last ? line.length() : space;
            if (end == start) {
                throw new IllegalArgumentException("empty field " + (i + 1) + " (expected " + names + ")");
            }
            fields[i] = line.substring(start, end);
            start = end + 1;
        }
        return fields;
    }

    /**
     * Parses a decimal {@code long}.
     *
     * @param text  the text
     * @param field the field name, for the error message
     * @return the value
     * @throws IllegalArgumentException if the text is not a plain decimal number in range
     */
    static long parseLong(final String text, final String field) {
        final int length = text.length();
        final boolean negative = length > 0 && text.charAt(0) == '-';
        final int first = negative ? 1 : 0;
        if (length == first) {
            throw new IllegalArgumentException(field + "='" + text + "' is not a decimal number");
        }
        // Accumulate negatively so that Long.MIN_VALUE parses without overflow, as Long.parseLong does.
        long value = 0;
        for (int i = first; i < length; i++) {
            final char c = text.charAt(i);
            if (c < '0' || c > '9') {
                throw new IllegalArgumentException(field + "='" + text + "' is not a decimal number");
            }
            final int digit = c - '0';
            if (value < (Long.MIN_VALUE + digit) / 10) {
                throw new IllegalArgumentException(field + "='" + text + "' is out of the range of a 64-bit integer");
            }
            value = value * 10 - digit;
        }
        if (!negative && value == Long.MIN_VALUE) {
            throw new IllegalArgumentException(field + "='" + text + "' is out of the range of a 64-bit integer");
        }
        return negative ? value : -value;
    }

    /**
     * Parses a decimal {@code int}.
     *
     * @param text  the text
     * @param field the field name, for the error message
     * @return the value
     * @throws IllegalArgumentException if the text is not a plain decimal number in range
     */
    static int parseInt(final String text, final String field) {
        final long value = parseLong(text, field);
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(field + "='" + text + "' is out of the range of a 32-bit integer");
        }
        return (int) value;
    }

    /**
     * Parses a decimal number that must be zero or more.
     *
     * @param text  the text
     * @param field the field name, for the error message
     * @return the value
     * @throws IllegalArgumentException if malformed or negative
     */
    static long parseNonNegativeLong(final String text, final String field) {
        final long value = parseLong(text, field);
        if (value < 0) {
            throw new IllegalArgumentException(field + "=" + value + " must be >= 0");
        }
        return value;
    }

    /**
     * Parses a decimal {@code int} that must be zero or more.
     *
     * @param text  the text
     * @param field the field name, for the error message
     * @return the value
     * @throws IllegalArgumentException if malformed, out of range or negative
     */
    static int parseNonNegativeInt(final String text, final String field) {
        final int value = parseInt(text, field);
        if (value < 0) {
            throw new IllegalArgumentException(field + "=" + value + " must be >= 0");
        }
        return value;
    }
}
