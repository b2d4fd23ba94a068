package dev.tollgate.bench.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * A grouped bar chart drawn with java.awt into a PNG (headless; no service, no library). Groups run
 * along the x axis (e.g. request rates), one bar per series in each group (e.g. limiters), the
 * value written above each bar. Negative values (an added latency that noise made negative) are
 * drawn below a zero line.
 */
public final class BarChart {

    /** Colour-blind-safe palette (Okabe–Ito). */
    private static final Color[] PALETTE = {
            new Color(0x0072B2), new Color(0xE69F00), new Color(0x009E73),
            new Color(0xCC79A7), new Color(0x56B4E9), new Color(0xD55E00)};

    private static final int WIDTH = 1000;
    private static final int HEIGHT = 560;
    private static final int LEFT = 90;
    private static final int RIGHT = 30;
    private static final int TOP = 90;
    private static final int BOTTOM = 70;

    private final String title;
    private final String yLabel;
    private final List<String> groups;
    private final List<String> seriesNames = new ArrayList<>();
    private final List<double[]> seriesValues = new ArrayList<>();
    private String valueFormat = "%.2f";
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
        seriesNames.add(name);
        seriesValues.add(values.clone());
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

    /** {@link String#format} pattern of the labels above the bars. */
    public BarChart valueFormat(String format) {
        this.valueFormat = format;
        return this;
    }

    public void writePng(Path file) {
        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            draw(g);
        } finally {
            g.dispose();
        }
        try {
            Files.createDirectories(file.getParent());
            ImageIO.write(image, "png", file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private void draw(Graphics2D g) {
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, WIDTH, HEIGHT);

        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 20));
        g.drawString(title, LEFT, 34);

        int plotBottom = HEIGHT - BOTTOM;
        int plotHeight = plotBottom - TOP;
        int plotWidth = WIDTH - LEFT - RIGHT;
        Axis axis = logScale ? logAxis(plotHeight) : linearAxis(plotHeight);

        // grid and y ticks
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        FontMetrics fm = g.getFontMetrics();
        for (int i = 0; i < axis.ticks.length; i++) {
            int y = axis.y(axis.ticks[i]);
            g.setColor(new Color(0xE0E0E0));
            g.drawLine(LEFT, y, WIDTH - RIGHT, y);
            g.setColor(Color.DARK_GRAY);
            String label = axis.labels[i];
            g.drawString(label, LEFT - 8 - fm.stringWidth(label), y + fm.getAscent() / 2 - 1);
        }
        // y axis label, rotated
        Graphics2D rotated = (Graphics2D) g.create();
        rotated.rotate(-Math.PI / 2);
        rotated.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
        rotated.setColor(Color.BLACK);
        int labelWidth = rotated.getFontMetrics().stringWidth(yLabel);
        rotated.drawString(yLabel, -(TOP + plotHeight / 2 + labelWidth / 2), 22);
        rotated.dispose();

        // bars
        int groupWidth = plotWidth / groups.size();
        int barGap = 4;
        int barWidth = Math.min(90, (int) (groupWidth * 0.8 / seriesNames.size()) - barGap);
        int zeroY = axis.y(axis.base);
        Font valueFont = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
        for (int gi = 0; gi < groups.size(); gi++) {
            int groupLeft = LEFT + gi * groupWidth;
            int barsWidth = seriesNames.size() * (barWidth + barGap) - barGap;
            int x0 = groupLeft + (groupWidth - barsWidth) / 2;
            for (int si = 0; si < seriesNames.size(); si++) {
                double v = seriesValues.get(si)[gi];
                int x = x0 + si * (barWidth + barGap);
                if (Double.isNaN(v) || (logScale && v <= 0)) {
                    continue;
                }
                int yv = axis.y(v);
                g.setColor(PALETTE[si % PALETTE.length]);
                g.fillRect(x, Math.min(yv, zeroY), barWidth, Math.max(1, Math.abs(zeroY - yv)));
                g.setColor(Color.BLACK);
                g.setFont(valueFont);
                String text = String.format(Locale.ROOT, valueFormat, v);
                int tw = g.getFontMetrics().stringWidth(text);
                int ty = v >= 0 ? yv - 4 : yv + g.getFontMetrics().getAscent() + 2;
                g.drawString(text, x + (barWidth - tw) / 2, ty);
            }
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
            FontMetrics gm = g.getFontMetrics();
            g.setColor(Color.BLACK);
            String group = groups.get(gi);
            g.drawString(group, groupLeft + (groupWidth - gm.stringWidth(group)) / 2, plotBottom + 24);
        }
        // axes
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(1.2f));
        g.drawLine(LEFT, TOP, LEFT, plotBottom);
        g.drawLine(LEFT, zeroY, WIDTH - RIGHT, zeroY);

        drawLegend(g);
    }

    private void drawLegend(Graphics2D g) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
        FontMetrics fm = g.getFontMetrics();
        int x = LEFT;
        int y = 60;
        for (int si = 0; si < seriesNames.size(); si++) {
            String name = seriesNames.get(si);
            g.setColor(PALETTE[si % PALETTE.length]);
            g.fillRect(x, y - 11, 14, 14);
            g.setColor(Color.BLACK);
            g.drawString(name, x + 20, y + 1);
            x += 20 + fm.stringWidth(name) + 28;
        }
    }

    /** Maps values to pixel rows, with the ticks to draw and the value bars grow from. */
    private record Axis(double lo, double hi, boolean log, int plotHeight, double base, double[] ticks,
                        String[] labels) {

        int y(double v) {
            double f = log ? (Math.log10(hi) - Math.log10(v)) / (Math.log10(hi) - Math.log10(lo)) : (hi - v) / (hi - lo);
            return TOP + (int) Math.round(f * plotHeight);
        }
    }

    private Axis linearAxis(int plotHeight) {
        double[] range = range();
        double step = niceStep((range[1] - range[0]) / 6);
        double lo = Math.floor(range[0] / step) * step;
        double hi = Math.ceil(range[1] / step) * step;
        int n = (int) Math.round((hi - lo) / step) + 1;
        double[] ticks = new double[n];
        String[] labels = new String[n];
        for (int i = 0; i < n; i++) {
            ticks[i] = lo + i * step;
            labels[i] = tickLabel(ticks[i], step);
        }
        return new Axis(lo, hi, false, plotHeight, 0, ticks, labels);
    }

    private Axis logAxis(int plotHeight) {
        double min = Double.MAX_VALUE;
        double max = 0;
        for (double[] values : seriesValues) {
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
        int loExp = (int) Math.floor(Math.log10(min));
        // head room for the value labels above the tallest bar
        int hiExp = (int) Math.ceil(Math.log10(max * 1.6));
        if (hiExp == loExp) {
            hiExp++;
        }
        double[] ticks = new double[hiExp - loExp + 1];
        String[] labels = new String[ticks.length];
        for (int i = 0; i < ticks.length; i++) {
            int exp = loExp + i;
            ticks[i] = Math.pow(10, exp);
            labels[i] = String.format(Locale.ROOT, exp >= 0 ? "%,.0f" : "%." + (-exp) + "f", ticks[i]);
        }
        return new Axis(ticks[0], ticks[ticks.length - 1], true, plotHeight, ticks[0], ticks, labels);
    }

    private double[] range() {
        double min = 0;
        double max = 0;
        for (double[] values : seriesValues) {
            for (double v : values) {
                if (!Double.isNaN(v)) {
                    min = Math.min(min, v);
                    max = Math.max(max, v);
                }
            }
        }
        if (max == min) {
            max = min + 1;
        }
        // head room for the value labels
        return new double[] {min < 0 ? min * 1.12 : 0, max * 1.12};
    }

    static double niceStep(double rough) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(rough)));
        double fraction = rough / magnitude;
        double nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 2.5 ? 2.5 : fraction <= 5 ? 5 : 10;
        return nice * magnitude;
    }

    private static String tickLabel(double v, double step) {
        if (Math.abs(v) < step / 1e6) {
            return "0";
        }
        if (step >= 1 && Math.abs(v - Math.rint(v)) < 1e-9) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        int decimals = (int) Math.max(0, Math.ceil(-Math.log10(step)) + 1);
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
