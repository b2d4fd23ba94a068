package dev.tollgate.testkit;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Calls per Redis command, from {@code INFO commandstats}. Redis counts the commands a Lua script
 * runs ({@code TIME}, {@code HMGET}, ...) as well as the {@code EVALSHA} that ran it, so both the
 * round trips and the work inside Redis can be read off a difference of two snapshots.
 *
 * <p>The one parser of {@code INFO commandstats} for the tests and the benchmarks alike.
 */
public record CommandCounts(Map<String, Long> calls) {

    /** Commands an observer (a test, the benchmark) sends to read statistics; never counted against the code under test. */
    private static final Set<String> OBSERVER_COMMANDS =
            Set.of("info", "dbsize", "memory|usage", "flushall", "ping", "hello", "client|setinfo");

    public CommandCounts {
        calls = Map.copyOf(calls);
    }

    /** Parses {@code INFO commandstats}: lines like {@code cmdstat_evalsha:calls=12,usec=...}. */
    public static CommandCounts parse(String info) {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : info.split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            int colon = line.indexOf(':');
            String command = line.substring("cmdstat_".length(), colon);
            for (String field : line.substring(colon + 1).split(",")) {
                if (field.startsWith("calls=")) {
                    calls.put(command, Long.parseLong(field.substring("calls=".length())));
                }
            }
        }
        return new CommandCounts(calls);
    }

    /** Calls made between {@code before} and this snapshot, leaving out the observer's own commands. */
    public CommandCounts since(CommandCounts before) {
        Map<String, Long> delta = new TreeMap<>();
        calls.forEach((command, n) -> {
            long d = n - before.calls.getOrDefault(command, 0L);
            if (d > 0 && !OBSERVER_COMMANDS.contains(command)) {
                delta.put(command, d);
            }
        });
        return new CommandCounts(delta);
    }

    /** Every command executed, those run inside scripts included. */
    public long total() {
        return calls.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Commands sent by clients that ran a script ({@code EVALSHA}, {@code EVAL}). */
    public long scriptCalls() {
        return calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L);
    }
}
