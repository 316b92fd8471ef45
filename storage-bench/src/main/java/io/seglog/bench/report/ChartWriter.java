package io.seglog.bench.report;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.List;

import javax.imageio.ImageIO;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * Draws the summary as one PNG: a horizontal bar chart per workload (the systems, by the workload's headline
 * metric), laid out in a grid. Works headless ({@code java.awt.headless} is set before AWT loads).
 *
 * <p>Stateless; thread-safe.
 */
public final class ChartWriter {

    private static final int COLUMNS = 2;
    private static final int CELL_WIDTH = 760;
    private static final int BAR_HEIGHT = 26;
    private static final int CHROME_HEIGHT = 130;

    private ChartWriter() {
    }

    /**
     * Writes the chart.
     *
     * @param summary the run's summary
     * @param file    the PNG to write, replaced
     * @throws IOException when the PNG cannot be written
     * @throws IllegalArgumentException when the summary has no workload
     */
    public static void writePng(Summary summary, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<String> workloads = summary.workloads();
        if (workloads.isEmpty()) {
            throw new IllegalArgumentException("summary has no workload to draw, file=" + file);
        }
        int rows = (workloads.size() + COLUMNS - 1) / COLUMNS;
        int[] rowHeights = new int[rows];
        for (int i = 0; i < workloads.size(); i++) {
            int height = CHROME_HEIGHT + BAR_HEIGHT * summary.systems(workloads.get(i)).size();
            rowHeights[i / COLUMNS] = Math.max(rowHeights[i / COLUMNS], height);
        }
        int totalHeight = 0;
        for (int h : rowHeights) {
            totalHeight += h;
        }
        BufferedImage image = new BufferedImage(CELL_WIDTH * COLUMNS, totalHeight, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, image.getWidth(), image.getHeight());
            int y = 0;
            for (int row = 0; row < rows; row++) {
                for (int column = 0; column < COLUMNS; column++) {
                    int index = row * COLUMNS + column;
                    if (index < workloads.size()) {
                        chart(summary, workloads.get(index))
                            .draw(g, new Rectangle2D.Double(column * CELL_WIDTH, y, CELL_WIDTH, rowHeights[row]));
                    }
                }
                y += rowHeights[row];
            }
        } finally {
            g.dispose();
        }
        if (!ImageIO.write(image, "png", file.toFile())) {
            throw new IOException("no PNG writer available for " + file);
        }
    }

    private static JFreeChart chart(Summary summary, String workload) {
        String metric = summary.headlineMetric(workload);
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        for (String system : summary.systems(workload)) {
            SummaryRow row = summary.find(workload, system, metric);
            if (row != null) {
                dataset.addValue(row.value(), metric, system);
            }
        }
        String baseline = summary.baselines().get(workload);
        String title = workload + " - " + metric + (metric.startsWith("p50") || metric.startsWith("us") ? " (lower is better)" : "");
        JFreeChart chart = ChartFactory.createBarChart(title, null, metric, dataset, PlotOrientation.HORIZONTAL,
            false, false, false);
        chart.getTitle().setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        if (baseline != null) {
            chart.addSubtitle(new org.jfree.chart.title.TextTitle("baseline: " + baseline,
                new Font(Font.SANS_SERIF, Font.PLAIN, 11)));
        }
        chart.setBackgroundPaint(Color.WHITE);
        CategoryPlot plot = chart.getCategoryPlot();
        plot.setBackgroundPaint(new Color(248, 248, 248));
        plot.getDomainAxis().setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        plot.getDomainAxis().setMaximumCategoryLabelWidthRatio(0.45f);
        BarRenderer renderer = (BarRenderer) plot.getRenderer();
        renderer.setBarPainter(new StandardBarPainter());
        renderer.setShadowVisible(false);
        renderer.setSeriesPaint(0, new Color(54, 110, 170));
        renderer.setDefaultItemLabelGenerator(new StandardCategoryItemLabelGenerator("{2}", new DecimalFormat("#,##0.###")));
        renderer.setDefaultItemLabelsVisible(true);
        renderer.setMaximumBarWidth(0.8);
        // Room for the value label of the longest bar.
        plot.getRangeAxis().setUpperMargin(0.18);
        return chart;
    }
}
