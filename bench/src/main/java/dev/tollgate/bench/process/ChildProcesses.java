package dev.tollgate.bench.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Every process the benchmark starts, so that all of them are stopped at the end, whatever happens:
 * by {@link #close()}, by a JVM shutdown hook if the suite is interrupted, and, should this JVM be
 * killed outright, by {@code bench/run.sh}, which kills the pids listed in {@code pids} on exit.
 */
public final class ChildProcesses implements AutoCloseable {

    private final Path logDir;
    private final Path argDir;
    private final Path pidFile;
    private int argFiles;
    private final List<ChildProcess> running = Collections.synchronizedList(new ArrayList<>());
    private final Thread shutdownHook = new Thread(this::stopAll, "bench-child-processes-shutdown");

    public ChildProcesses(Path runDir) {
        this.logDir = runDir.resolve("logs");
        this.argDir = runDir.resolve("args");
        this.pidFile = runDir.resolve("pids");
        try {
            Files.createDirectories(logDir);
            Files.createDirectories(argDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts {@code java} with {@code javaArgs} given in an argument file ({@code java @file}).
     *
     * <p>Why a file: this machine is shared, and other work on it may clean up with broad
     * {@code pkill -f} patterns (a jar name, a main class). With the arguments in a numbered file,
     * the process's command line names neither, so such a clean-up cannot stop a benchmark
     * half-way. The file also records exactly how each process was started.
     */
    public ChildProcess startJava(String name, List<String> javaArgs) {
        Path argFile;
        synchronized (this) {
            argFile = argDir.resolve("p" + (++argFiles) + ".args");
        }
        StringBuilder text = new StringBuilder("# ").append(name).append('\n');
        for (String arg : javaArgs) {
            text.append('"').append(arg.replace("\\", "\\\\").replace("\"", "\\\"")).append("\"\n");
        }
        try {
            Files.writeString(argFile, text.toString(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return start(name, List.of(JavaCommand.javaBinary(), "@" + argFile));
    }

    public ChildProcess start(String name, List<String> command) {
        Path log = logDir.resolve(name + ".log");
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            ChildProcess child = new ChildProcess(name, process, log);
            running.add(child);
            recordPid(process.pid());
            return child;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + command, e);
        }
    }

    /** Records the pid of a process started elsewhere (the Redis server) for run.sh's clean-up. */
    public void recordPid(long pid) {
        try {
            Files.writeString(pidFile, pid + "\n", StandardCharsets.US_ASCII,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void stop(ChildProcess child) {
        child.stop();
        running.remove(child);
    }

    /** Stops several at once: each gets its SIGTERM before any is waited for. */
    public void stopAll(List<ChildProcess> children) {
        children.parallelStream().forEach(ChildProcess::stop);
        running.removeAll(children);
    }

    private void stopAll() {
        List<ChildProcess> copy;
        synchronized (running) {
            copy = new ArrayList<>(running);
        }
        stopAll(copy);
    }

    @Override
    public void close() {
        stopAll();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running already
        }
    }
}
