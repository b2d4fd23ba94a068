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
    private final Path pidFile;
    private final List<ChildProcess> running = Collections.synchronizedList(new ArrayList<>());
    private final Thread shutdownHook = new Thread(this::stopAll, "bench-child-processes-shutdown");

    public ChildProcesses(Path runDir) {
        this.logDir = runDir.resolve("logs");
        this.pidFile = runDir.resolve("pids");
        try {
            Files.createDirectories(logDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Runtime.getRuntime().addShutdownHook(shutdownHook);
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
