package dev.tollgate.bench.process;

/** A gateway running as a process of its own. */
public record GatewayProcess(String name, GatewayVariant variant, int port, ChildProcess process) {

    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }
}
