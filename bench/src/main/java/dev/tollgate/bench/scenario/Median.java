package dev.tollgate.bench.scenario;

import java.util.Collection;

/** The median of repeated measurements: robust to the one run a noisy neighbour spoiled. */
public final class Median {

    private Median() {
    }

    public static double of(Collection<Double> values) {
        double[] sorted = values.stream().filter(v -> !Double.isNaN(v)).mapToDouble(Double::doubleValue)
                .sorted().toArray();
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }
}
