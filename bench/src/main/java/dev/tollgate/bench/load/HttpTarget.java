package dev.tollgate.bench.load;

import io.netty.channel.ChannelOption;
import java.net.InetSocketAddress;
import java.time.Duration;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.HttpClientResponse;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

/**
 * An HTTP/1.1 keep-alive client bound to one base URL on the loopback interface, with a fixed pool
 * of connections of its own. Requests are GETs carrying their caller's {@link Credentials} (the API
 * key header unless the target is given others); the answer is the
 * status code (the body is read and dropped, so a connection is reusable as soon as the response
 * ends).
 *
 * <p>The pool is bounded, as wrk2's connection count is: when every connection is busy, requests
 * queue in the client, and the time they wait counts in their latency (it is measured from the
 * intended send time). An unbounded pool would instead open ever more connections to a struggling
 * target and make it collapse under connection setup, which is not what is being measured.
 *
 * <p>Retries are off: Reactor Netty would otherwise resend a request whose connection closed, and
 * a benchmark must see that failure, not hide it.
 */
public final class HttpTarget implements AutoCloseable {

    public static final String API_KEY_HEADER = Credentials.API_KEY_HEADER;

    private final String name;
    private final String baseUrl;
    private final Credentials credentials;
    private final ConnectionProvider pool;
    private final HttpClient client;

    /** Connections per target: far more than the in-flight requests of any rate the runs use. */
    public static final int CONNECTIONS = 64;

    /** {@link #CONNECTIONS} connections from 127.0.0.1, each caller sending its name as its API key. */
    public HttpTarget(String name, String baseUrl, LoopResources loops, Duration responseTimeout) {
        this(name, baseUrl, loops, responseTimeout, Credentials.apiKey(), CONNECTIONS, null);
    }

    /** {@link #CONNECTIONS} connections from 127.0.0.1, callers identified by {@code credentials}. */
    public HttpTarget(String name, String baseUrl, LoopResources loops, Duration responseTimeout,
                      Credentials credentials) {
        this(name, baseUrl, loops, responseTimeout, credentials, CONNECTIONS, null);
    }

    /**
     * @param connections  the pool's size
     * @param localAddress the loopback address the connections come from (another 127.x.y.z makes
     *                     them another client address to the gateway), or null for the system's choice
     */
    public HttpTarget(String name, String baseUrl, LoopResources loops, Duration responseTimeout,
                      Credentials credentials, int connections, String localAddress) {
        if (!baseUrl.startsWith("http://127.0.0.1:")) {
            // Load is only ever sent to this machine's loopback interface.
            throw new IllegalArgumentException("load targets must be on http://127.0.0.1, was " + baseUrl);
        }
        if (localAddress != null && !localAddress.startsWith("127.")) {
            throw new IllegalArgumentException("load comes from the loopback network only, was " + localAddress);
        }
        this.name = name;
        this.baseUrl = baseUrl;
        this.credentials = credentials;
        this.pool = ConnectionProvider.builder("bench-" + name)
                .maxConnections(connections)
                .pendingAcquireMaxCount(-1)
                .pendingAcquireTimeout(Duration.ofMinutes(5))
                .build();
        HttpClient http = HttpClient.create(pool)
                .runOn(loops)
                .baseUrl(baseUrl)
                .keepAlive(true)
                .compress(false)
                .disableRetry(true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
                .responseTimeout(responseTimeout);
        this.client = localAddress == null ? http : http.bindAddress(() -> new InetSocketAddress(localAddress, 0));
    }

    public String name() {
        return name;
    }

    public String baseUrl() {
        return baseUrl;
    }

    /** One GET from {@code caller}; emits the status code, or an error if no response came in time. */
    public Mono<Integer> get(String path, String caller) {
        return client.headers(h -> credentials.apply(caller, h))
                .get()
                .uri(path)
                .responseSingle((response, body) -> body.asByteArray()
                        .then(Mono.fromSupplier(() -> response.status().code())));
    }

    /** One GET from {@code caller} that also returns the response headers; for checks, not for load. */
    public Mono<HttpClientResponse> probe(String path, String caller) {
        return probe(path, caller, credentials);
    }

    /** {@link #probe(String, String)} with other credentials than the target's own. */
    public Mono<HttpClientResponse> probe(String path, String caller, Credentials as) {
        return client.headers(h -> as.apply(caller, h))
                .get()
                .uri(path)
                .responseSingle((response, body) -> body.asByteArray().then(Mono.just(response)));
    }

    @Override
    public void close() {
        pool.disposeLater().block(Duration.ofSeconds(5));
    }
}
