package dev.tollgate.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real {@code redis-server} process on a free loopback port, with nothing persisted. Closing it
 * kills the process; a JVM shutdown hook does the same if a caller forgets.
 *
 * <p>For failure tests the process can be killed ({@code SIGKILL}), frozen ({@code SIGSTOP}),
 * thawed ({@code SIGCONT}) and restarted on the same port.
 */
public final class RedisServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisServer.class);
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(20);

    private final Path binary;
    private final Path workDir;
    private final int port;
    private final List<String> extraArgs;
    private final Thread shutdownHook;
    private volatile Process process;

    private RedisServer(Path binary, Path workDir, int port, List<String> extraArgs) {
        this.binary = binary;
        this.workDir = workDir;
        this.port = port;
        this.extraArgs = List.copyOf(extraArgs);
        this.shutdownHook = new Thread(this::destroy, "redis-server-" + port + "-shutdown");
    }

    /** Starts a standalone server on a free port. */
    public static RedisServer start() {
        return start(List.of());
    }

    /** Starts a server on a free port with extra {@code redis-server} arguments. */
    public static RedisServer start(List<String> extraArgs) {
        return start(RedisBinary.locate(), extraArgs);
    }

    /**
     * Starts a server on a given port, e.g. one a gateway was already told to use. Fails if the port
     * is taken.
     */
    public static RedisServer startOnPort(int port) {
        Path workDir;
        try {
            workDir = Files.createTempDirectory("tollgate-redis");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        RedisServer server = new RedisServer(RedisBinary.locate(), workDir, port, List.of());
        try {
            server.launch();
        } catch (IllegalStateException e) {
            server.destroy();
            throw e;
        }
        Runtime.getRuntime().addShutdownHook(server.shutdownHook);
        return server;
    }

    /**
     * Starts a server on a free port whose stop belongs to the caller: no JVM shutdown hook stops
     * it, so an application that closes it from its own shutdown (a Spring bean's destroy method)
     * stops it after its clients have let go instead of racing them.
     */
    public static RedisServer startForApplication() {
        RedisServer server = start();
        Runtime.getRuntime().removeShutdownHook(server.shutdownHook);
        return server;
    }

    /** Starts {@code binary} on a free port with extra {@code redis-server} arguments. */
    public static RedisServer start(Path binary, List<String> extraArgs) {
        return start(binary, extraArgs, FreePort::find);
    }

    /**
     * Starts {@code binary} on a port drawn from {@code ports} (tried again with a fresh port if the
     * server cannot bind it), with extra {@code redis-server} arguments.
     */
    static RedisServer start(Path binary, List<String> extraArgs, IntSupplier ports) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            Path workDir;
            try {
                workDir = Files.createTempDirectory("tollgate-redis");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            RedisServer server = new RedisServer(binary, workDir, ports.getAsInt(), extraArgs);
            try {
                server.launch();
                Runtime.getRuntime().addShutdownHook(server.shutdownHook);
                return server;
            } catch (IllegalStateException e) {
                // Most likely another process took the port between the probe and the bind.
                server.destroy();
                last = e;
            }
        }
        throw last;
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:<port>}. */
    public String uri() {
        return "redis://" + host() + ":" + port;
    }

    public Path binary() {
        return binary;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** Kills the process at once ({@code SIGKILL}): no shutdown, clients see dropped connections. */
    public void kill() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
            waitForExit(p);
        }
    }

    /**
     * Gives the server scheduling priority over the other work of this machine ({@code renice -n -10}),
     * as a Redis on a host of its own would have: on a machine whose cores a test keeps busy, a
     * co-located Redis otherwise waits for a core and answers late, which is slowness of Redis's
     * to whoever calls it. Needs the right to raise priority (root); without it this says so and
     * changes nothing. Returns whether it worked.
     */
    public boolean prioritise() {
        try {
            Process renice = new ProcessBuilder("renice", "-n", "-10", "-p", String.valueOf(pid()))
                    .redirectErrorStream(true).start();
            String output = new String(renice.getInputStream().readAllBytes());
            boolean done = renice.waitFor(5, java.util.concurrent.TimeUnit.SECONDS) && renice.exitValue() == 0;
            if (!done) {
                System.err.println("redis-server " + pid() + " keeps its priority: " + output.trim());
            }
            return done;
        } catch (java.io.IOException e) {
            System.err.println("redis-server " + pid() + " keeps its priority: " + e.getMessage());
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Freezes the process ({@code SIGSTOP}): connections stay open but nothing is answered. */
    public void freeze() {
        signal("STOP");
    }

    /** Thaws a frozen process ({@code SIGCONT}). */
    public void thaw() {
        signal("CONT");
    }

    /** Starts the server again on the same port, empty, after {@link #kill()}. */
    public void restart() {
        kill();
        launch();
    }

    /** Runs a command over a fresh connection and returns the raw RESP reply. For test setup. */
    public String command(String... args) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host(), port), 1000);
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write(Resp.encode(args));
            out.flush();
            return Resp.readReply(socket.getInputStream());
        } catch (IOException e) {
            throw new UncheckedIOException("redis on port " + port + ": " + String.join(" ", args), e);
        }
    }

    @Override
    public void close() {
        destroy();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run: nothing left to do
        }
    }

    private void launch() {
        List<String> command = new ArrayList<>(List.of(binary.toString(),
                "--port", String.valueOf(port),
                "--bind", "127.0.0.1",
                "--save", "",
                "--appendonly", "no",
                "--daemonize", "no",
                "--protected-mode", "no",
                "--dir", workDir.toString(),
                "--logfile", workDir.resolve("redis.log").toString()));
        command.addAll(extraArgs);
        try {
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(workDir.resolve("stdout.log").toFile())
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + binary, e);
        }
        awaitPong();
        log.debug("redis-server {} listening on {}", binary, port);
    }

    private void awaitPong() {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server exited with " + process.exitValue()
                        + " on port " + port + ": " + tail(workDir.resolve("redis.log")));
            }
            try {
                if (command("PING").equals("+PONG")) {
                    return;
                }
            } catch (UncheckedIOException notYet) {
                // not listening yet
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for redis-server", e);
            }
        }
        throw new IllegalStateException("redis-server did not answer PING on port " + port
                + " within " + STARTUP_TIMEOUT);
    }

    private void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(pid())).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void destroy() {
        Process p = process;
        if (p != null && p.isAlive()) {
            try {
                // A frozen process ignores SIGTERM until thawed; SIGKILL works either way.
                p.destroyForcibly();
                waitForExit(p);
            } catch (RuntimeException e) {
                log.warn("could not stop redis-server on port {}", port, e);
            }
        }
    }

    private static void waitForExit(Process p) {
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    /** Just enough RESP for setup commands. */
    static final class Resp {

        private Resp() {
        }

        static byte[] encode(String... args) {
            StringBuilder sb = new StringBuilder().append('*').append(args.length).append("\r\n");
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                sb.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
            }
            return sb.toString().getBytes(StandardCharsets.UTF_8);
        }

        /** Reads one reply; arrays and bulk strings are flattened into one line for display. */
        static String readReply(InputStream in) throws IOException {
            String line = readLine(in);
            switch (line.charAt(0)) {
                case '$': {
                    int len = Integer.parseInt(line.substring(1));
                    if (len < 0) {
                        return "(nil)";
                    }
                    byte[] data = in.readNBytes(len + 2);
                    return new String(data, 0, len, StandardCharsets.UTF_8);
                }
                case '*': {
                    int n = Integer.parseInt(line.substring(1));
                    List<String> items = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        items.add(readReply(in));
                    }
                    return String.join(" ", items);
                }
                default:
                    return line;
            }
        }

        private static String readLine(InputStream in) throws IOException {
            StringBuilder sb = new StringBuilder();
            int c;
            while ((c = in.read()) != -1) {
                if (c == '\r') {
                    in.read(); // '\n'
                    return sb.toString();
                }
                sb.append((char) c);
            }
            throw new IOException("connection closed by redis");
        }
    }
}
