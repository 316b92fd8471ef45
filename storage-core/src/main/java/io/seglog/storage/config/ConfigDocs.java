package io.seglog.storage.config;

import java.util.List;

/**
 * The configuration reference, generated from the tables (Kafka publishes its reference the same way): one Markdown
 * section per configuration class, one row per key with its name, type, default, valid values, reader, whether it
 * is dynamic, and its documentation. {@code docs/configuration.md} is this text; a test regenerates it and fails
 * when the committed file differs.
 *
 * <p>Thread-safety: stateless.
 */
public final class ConfigDocs {
    private ConfigDocs() {
    }

    /**
     * The reference of the given tables, in their order.
     *
     * @param title    the document's title line (without the leading {@code #})
     * @param preamble the paragraph under the title
     * @param tables   the tables, each with a one-line introduction
     * @return the Markdown text, ending with a newline
     */
    public static String markdown(final String title, final String preamble, final List<Section> tables) {
        final StringBuilder out = new StringBuilder("# ").append(title).append("\n\n").append(preamble).append("\n");
        for (final Section section : tables) {
            out.append("\n## ").append(section.table().owner()).append("\n\n").append(section.intro()).append("\n\n");
            out.append("| Key | Type | Default | Valid values | Read by | Dynamic | Description |\n");
            out.append("|---|---|---|---|---|---|---|\n");
            for (final ConfigKey<?> key : section.table().keys()) {
                out.append("| `").append(key.name()).append("` | ").append(key.typeName()).append(" | ")
                    .append(defaultText(key)).append(" | ").append(cell(validValues(key.rule()))).append(" | ")
                    .append(cell(key.readBy())).append(" | ").append(key.dynamic() ? "yes" : "no").append(" | ")
                    .append(cell(key.doc())).append(" |\n");
            }
        }
        return out.toString();
    }

    private static <T> String defaultText(final ConfigKey<T> key) {
        final T value = key.defaultValue();
        return value == null ? "(none)" : "`" + cell(key.format(value)) + "`";
    }

    /** The range rule as a value column reads it: "at least 1" for "must be at least 1"; none for "must be set". */
    private static String validValues(final String rule) {
        if ("must be set".equals(rule) || ("must be at least " + Long.MIN_VALUE).equals(rule)) {
            return "";
        }
        return rule.startsWith("must be ") ? rule.substring("must be ".length()) : rule;
    }

    private static String cell(final String text) {
        return text == null || text.isEmpty() ? "" : text.replace("|", "\\|").replace("\n", " ");
    }

    /**
     * One table in the reference, with the sentence that introduces it.
     *
     * @param table the table
     * @param intro what the configuration class configures, one or two sentences
     */
    public record Section(ConfigDef table, String intro) {
    }
}
