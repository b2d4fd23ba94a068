package dev.tollgate.bench.report;

import static dev.tollgate.bench.report.Targets.BUILT_IN;
import static dev.tollgate.bench.report.Targets.NO_LIMITER;
import static dev.tollgate.bench.report.Targets.TOLLGATE;

import dev.tollgate.bench.scenario.LatencyRun;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** Redis round trips and commands per request of each gateway; template {@code report/redis-commands.mustache}. */
record RedisCommandsSection(List<Row> rows) {

    /** One gateway: script calls and commands per request, and per command in its largest run. */
    record Row(String limiter, String scriptCalls, String commands, String perCommand) {
    }

    static RedisCommandsSection of(Figures f) {
        return new RedisCommandsSection(List.of(NO_LIMITER, TOLLGATE, BUILT_IN).stream().map(target -> {
            String perCommand = f.results().latency().stream().filter(r -> r.target().equals(target))
                    .max(Comparator.comparingLong(r -> r.result().responses()))
                    .map(RedisCommandsSection::perCommand).orElse("");
            return new Row(target, Fmt.fmt2(f.medianOverRuns(target, Figures::scriptCallsPerRequest)),
                    Fmt.fmt2(f.medianOverRuns(target, Figures::commandsPerRequest)),
                    perCommand.isEmpty() ? "none" : perCommand);
        }).toList());
    }

    /** "`EVALSHA` 1.00, `HMGET` 1.00, ...": the client's script call first, then what the script ran, by name. */
    private static String perCommand(LatencyRun run) {
        return run.redisCommands().calls().entrySet().stream()
                .sorted(Comparator.comparing((Map.Entry<String, Long> e) -> !e.getKey().startsWith("eval"))
                        .thenComparing(Map.Entry::getKey))
                .map(e -> "`" + e.getKey().toUpperCase(Locale.ROOT) + "` "
                        + Fmt.fmt2((double) e.getValue() / Math.max(1, run.result().responses())))
                .collect(Collectors.joining(", "));
    }
}
