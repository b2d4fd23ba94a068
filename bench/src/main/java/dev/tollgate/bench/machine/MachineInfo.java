package dev.tollgate.bench.machine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;

/** What the report says about the machine a run was made on. */
public record MachineInfo(String date, int cpus, String cpuModel, String memory, String os, String java,
                         String redis, String loadAverageAtStart) {

    public static MachineInfo collect(String redisVersion) {
        return new MachineInfo(
                ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")),
                Runtime.getRuntime().availableProcessors(),
                firstValue("/proc/cpuinfo", "model name", "unknown CPU"),
                totalMemory(),
                firstValue("/etc/os-release", "PRETTY_NAME", System.getProperty("os.name")).replace("\"", "")
                        + ", kernel " + System.getProperty("os.version"),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                "redis-server " + redisVersion,
                loadAverage());
    }

    /** The 1-, 5- and 15-minute load averages: how busy the machine was with other work. */
    public static String loadAverage() {
        List<String> parts = List.of(read("/proc/loadavg").split("\\s+"));
        return parts.size() >= 3 ? String.join(" / ", parts.subList(0, 3)) : "unknown";
    }

    public static double oneMinuteLoad() {
        try {
            return Double.parseDouble(read("/proc/loadavg").split("\\s+")[0]);
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            return Double.NaN;
        }
    }

    private static String totalMemory() {
        String kb = firstValue("/proc/meminfo", "MemTotal", "").replace("kB", "").trim();
        try {
            return String.format("%.1f GiB", Long.parseLong(kb) / 1024.0 / 1024.0);
        } catch (NumberFormatException e) {
            return "unknown";
        }
    }

    private static String firstValue(String file, String key, String fallback) {
        for (String line : read(file).split("\n")) {
            int sep = line.indexOf(line.contains("=") && !line.contains(":") ? '=' : ':');
            if (sep > 0 && line.substring(0, sep).trim().equals(key)) {
                return line.substring(sep + 1).trim();
            }
        }
        return fallback;
    }

    private static String read(String file) {
        try {
            return Files.readString(Path.of(file));
        } catch (IOException e) {
            return "";
        }
    }
}
