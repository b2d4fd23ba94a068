package dev.tollgate.bench.machine;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import oshi.SystemInfo;
import oshi.hardware.CentralProcessor;
import oshi.software.os.OperatingSystem;

/** What the report says about the machine a run was made on (read by OSHI). */
public record MachineInfo(String date, int cpus, String cpuModel, String memory, String os, String java,
                         String redis, String loadAverageAtStart) {

    private static final SystemInfo SYSTEM = new SystemInfo();

    public static MachineInfo collect(String redisVersion) {
        CentralProcessor cpu = SYSTEM.getHardware().getProcessor();
        OperatingSystem os = SYSTEM.getOperatingSystem();
        OperatingSystem.OSVersionInfo version = os.getVersionInfo();
        return new MachineInfo(
                ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")),
                cpu.getLogicalProcessorCount(),
                cpu.getProcessorIdentifier().getName(),
                String.format(Locale.ROOT, "%.1f GiB", SYSTEM.getHardware().getMemory().getTotal() / 1024.0 / 1024 / 1024),
                os.getFamily() + " " + version.getVersion()
                        + (version.getCodeName().isEmpty() ? "" : " (" + version.getCodeName() + ")")
                        + ", kernel " + version.getBuildNumber(),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                "redis-server " + redisVersion,
                loadAverage());
    }

    /** The 1-, 5- and 15-minute load averages: how busy the machine was with other work. */
    public static String loadAverage() {
        double[] load = SYSTEM.getHardware().getProcessor().getSystemLoadAverage(3);
        if (Arrays.stream(load).anyMatch(l -> l < 0)) {
            return "unknown";
        }
        return Arrays.stream(load).mapToObj(l -> String.format(Locale.ROOT, "%.2f", l))
                .collect(Collectors.joining(" / "));
    }
}
