package dev.tollgate.bench.report;

import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.block.BlockBorder;
import org.jfree.chart.labels.ItemLabelAnchor;
import org.jfree.chart.labels.ItemLabelPosition;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * A grouped bar chart, drawn by JFreeChart into a PNG (headless). Groups run along the x axis
 * (e.g. request rates), one bar per series in each group (e.g. limiters), the value written above
 * each bar; negative values (an added latency that noise made negative) hang below zero.
 */
public final class BarChart {

    static final int WIDTH = 1000;
    static final int HEIGHT = 560;

    /** Colour-blind-safe palette (Okabe–Ito). */
    static final Color[] PALETTE = {
            new Color(0x0072B2), new Color(0xE69F00), new Color(0x009E73),
            new Color(0xCC79A7), new Color(0x56B4E9), new Color(0xD55E00)};

    private final String title;
    private final String yLabel;
    private final List<String> groups;
    private final Map<String, double[]> series = new LinkedHashMap<>();
    private String valuePattern = "0.00";
    private boolean logScale;

    public BarChart(String title, String yLabel, List<String> groups) {
        this.title = title;
        this.yLabel = yLabel;
        this.groups = List.copyOf(groups);
    }

    /** Adds a series: one value per group ({@code NaN} for none). */
    public BarChart series(String name, double... values) {
        if (values.length != groups.size()) {
            throw new IllegalArgumentException("series " + name + " has " + values.length
                    + " values for " + groups.size() + " groups");
        }
        series.put(name, values.clone());
        return this;
    }

    /**
     * A logarithmic y axis, for values spanning several orders of magnitude (latencies from a
     * quiet run and an overloaded one). Values at or below zero are not drawn on it.
     */
    public BarChart logScale() {
        this.logScale = true;
        return this;
    }

    /** {@link DecimalFormat} pattern of the labels above the bars and of the axis ticks. */
    public BarChart valuePattern(String pattern) {
        this.valuePattern = pattern;
        return this;
    }

    /** What is drawn: one row per series, one column per group; no value where there is no bar. */
    DefaultCategoryDataset dataset() {
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        series.forEach((name, values) -> {
            for (int g = 0; g < groups.size(); g++) {
                double v = values[g];
                boolean drawable = !Double.isNaN(v) && !(logScale && v <= 0);
                dataset.addValue(drawable ? Double.valueOf(v) : null, name, groups.get(g));
            }
        });
        return dataset;
    }

    JFreeChart chart() {
        DecimalFormat format = new DecimalFormat(valuePattern, DecimalFormatSymbols.getInstance(Locale.ROOT));
        ValueAxis y;
        BarRenderer bars = new BarRenderer();
        if (logScale) {
            LogAxis log = new LogAxis(yLabel);
            log.setNumberFormatOverride(new DecimalFormat("#,##0.###", DecimalFormatSymbols.getInstance(Locale.ROOT)));
            logRange(log);
            log.setTickUnit(new NumberTickUnit(1)); // one tick per decade
            bars.setIncludeBaseInRange(false); // zero has no place on a log axis
            y = log;
        } else {
            y = new NumberAxis(yLabel);
            y.setUpperMargin(0.12); // room for the labels above the tallest bar
        }
        bars.setBarPainter(new StandardBarPainter());
        bars.setShadowVisible(false);
        bars.setItemMargin(0.04);
        bars.setMaximumBarWidth(0.09);
        bars.setDefaultItemLabelGenerator(new StandardCategoryItemLabelGenerator("{2}", format));
        bars.setDefaultItemLabelsVisible(true);
        bars.setDefaultItemLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        bars.setDefaultNegativeItemLabelPosition(
                new ItemLabelPosition(ItemLabelAnchor.OUTSIDE6, TextAnchor.TOP_CENTER));
        for (int s = 0; s < series.size(); s++) {
            bars.setSeriesPaint(s, PALETTE[s % PALETTE.length]);
        }

        y.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        y.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
        CategoryAxis x = new CategoryAxis();
        x.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
        CategoryPlot plot = new CategoryPlot(dataset(), x, y, bars);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(new Color(0xE0E0E0));
        plot.setOutlineVisible(false);
        JFreeChart chart = new JFreeChart(title, new Font(Font.SANS_SERIF, Font.BOLD, 20), plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        LegendTitle legend = chart.getLegend();
        legend.setPosition(RectangleEdge.TOP);
        legend.setFrame(BlockBorder.NONE);
        return chart;
    }

    /**
     * Whole decades around the drawable values, with head room for the labels above the tallest
     * bar, so that bars grow from a round number.
     */
    private void logRange(LogAxis axis) {
        double min = Double.MAX_VALUE;
        double max = 0;
        for (double[] values : series.values()) {
            for (double v : values) {
                if (v > 0) {
                    min = Math.min(min, v);
                    max = Math.max(max, v);
                }
            }
        }
        if (max == 0) {
            min = 1;
            max = 10;
        }
        int low = (int) Math.floor(Math.log10(min));
        int high = Math.max(low + 1, (int) Math.ceil(Math.log10(max * 1.6)));
        // A hair below the lowest decade, or rounding leaves its tick (and label) out.
        axis.setRange(Math.pow(10, low) * 0.999, Math.pow(10, high));
    }

    public void writePng(Path file) {
        try {
            Files.createDirectories(file.getParent());
            ChartUtils.saveChartAsPNG(file.toFile(), chart(), WIDTH, HEIGHT);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
