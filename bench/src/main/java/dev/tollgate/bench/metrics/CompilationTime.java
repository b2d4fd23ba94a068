package dev.tollgate.bench.metrics;

import dev.tollgate.bench.load.HttpTarget;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * A gateway's total JIT compilation time so far, from its {@code /actuator/prometheus}
 * ({@code jvm_compilation_time_ms_total}, Micrometer's reading of the JVM's compilation bean): while
 * it still grows fast, the gateway is compiling and not yet what it will be.
 */
public final class CompilationTime {

    private static final String SERIES = "jvm_compilation_time_ms_total";

    private CompilationTime() {
    }

    /** Reads {@code target}'s compilation time on each call; empty where it cannot be read. */
    public static Supplier<OptionalLong> of(HttpTarget target) {
        return () -> {
            try {
                return parse(DecisionCounters.fetch(target.baseUrl() + "/actuator/prometheus"));
            } catch (RuntimeException e) {
                return OptionalLong.empty();
            }
        };
    }

    /** For a target that exports no such figure (the bare upstream). */
    public static Supplier<OptionalLong> unknown() {
        return OptionalLong::empty;
    }

    static OptionalLong parse(String exposition) {
        long total = 0;
        boolean found = false;
        for (String line : exposition.split("\n")) {
            if (line.startsWith(SERIES + "{") || line.startsWith(SERIES + " ")) {
                total += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                found = true;
            }
        }
        return found ? OptionalLong.of(total) : OptionalLong.empty();
    }
}
