package dev.tollgate.bench.report;

import java.util.Locale;

/** How the report writes numbers; {@code NaN} (a figure this run did not produce) is "n/a". */
final class Fmt {

    private Fmt() {
    }

    /** An added latency, signed: "+0.50 ms". */
    static String ms(double ms) {
        return Double.isNaN(ms) ? "n/a" : String.format(Locale.ROOT, "%+.2f ms", ms);
    }

    static String fmt2(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.2f", v);
    }

    static String fmt3(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.3f", v);
    }

    /** A whole number with thousands separators: rates, counts. */
    static String rate(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%,.0f", v);
    }

    static String pct(double ratio) {
        return Double.isNaN(ratio) ? "n/a" : String.format(Locale.ROOT, "%.0f%%", ratio * 100);
    }

    static String bytes(double bytes) {
        return Double.isNaN(bytes) ? "n/a" : String.format(Locale.ROOT, "%.0f B", bytes);
    }

    static String percentile(double p) {
        return p == Math.rint(p) ? String.format(Locale.ROOT, "%.0f", p) : String.format(Locale.ROOT, "%.1f", p);
    }

    static String verdict(boolean met, String otherwise) {
        return met ? "**met**" : "**missed**, " + otherwise;
    }
}
