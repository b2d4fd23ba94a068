package dev.tollgate.spring.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;


import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/** {@code spring.data.redis.*} read as Spring Boot reads them, by Tollgate itself. */
class RedisConnectionPropertiesTest {

    private static RedisEndpoint endpoint(String... properties) {
        MockEnvironment environment = new MockEnvironment();
        for (String property : properties) {
            int eq = property.indexOf('=');
            environment.setProperty(property.substring(0, eq), property.substring(eq + 1));
        }
        return RedisConnectionProperties.endpoint(environment);
    }

    @Test
    void defaultsToLocalhost6379DatabaseZeroAndAOneSecondCommandTimeout() {
        RedisEndpoint redis = endpoint();
        assertThat(redis.nodes()).containsExactly(new RedisEndpoint.Node("localhost", 6379));
        assertThat(redis.cluster()).isFalse();
        assertThat(redis.database()).isZero();
        assertThat(redis.ssl()).isFalse();
        assertThat(redis.username()).isNull();
        assertThat(redis.password()).isNull();
        assertThat(redis.commandTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(redis.address()).isEqualTo("redis://localhost:6379/0");
    }

    @Test
    void readsHostPortCredentialsDatabaseSslAndTimeout() {
        RedisEndpoint redis = endpoint("spring.data.redis.host=cache.internal", "spring.data.redis.port=6380",
                "spring.data.redis.username=tollgate", "spring.data.redis.password=s3cret",
                "spring.data.redis.database=3", "spring.data.redis.ssl.enabled=true", "spring.data.redis.timeout=250ms");
        RedisURI uri = redis.uris().get(0);
        assertThat(uri.getHost()).isEqualTo("cache.internal");
        assertThat(uri.getPort()).isEqualTo(6380);
        assertThat(uri.getDatabase()).isEqualTo(3);
        assertThat(uri.isSsl()).isTrue();
        assertThat(uri.getUsername()).isEqualTo("tollgate");
        assertThat(new String(uri.getPassword())).isEqualTo("s3cret");
        assertThat(redis.commandTimeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(redis.toString()).doesNotContain("s3cret");
        assertThat(redis.address()).isEqualTo("redis://cache.internal:6380/3").doesNotContain("tollgate");
    }

    @Test
    void anSslBundleTurnsTlsOnAsInSpringBoot() {
        assertThat(endpoint("spring.data.redis.ssl.bundle=redis").ssl()).isTrue();
    }

    @Test
    void theUrlWinsOverHostPortAndCredentials() {
        RedisEndpoint redis = endpoint("spring.data.redis.host=ignored", "spring.data.redis.port=1",
                "spring.data.redis.password=ignored", "spring.data.redis.url=rediss://app:p%40ss@redis.example:6390/2");
        assertThat(redis.nodes()).containsExactly(new RedisEndpoint.Node("redis.example", 6390));
        assertThat(redis.ssl()).isTrue();
        assertThat(redis.username()).isEqualTo("app");
        assertThat(redis.password()).isEqualTo("p@ss");
        assertThat(redis.database()).isEqualTo(2);

        RedisEndpoint passwordOnly = endpoint("spring.data.redis.url=redis://:secret@10.0.0.5");
        assertThat(passwordOnly.nodes()).containsExactly(new RedisEndpoint.Node("10.0.0.5", 6379));
        assertThat(passwordOnly.username()).isNull();
        assertThat(passwordOnly.password()).isEqualTo("secret");
        assertThat(passwordOnly.ssl()).isFalse();
    }

    @Test
    void clusterNodesMakeItACluster() {
        RedisEndpoint redis = endpoint("spring.data.redis.cluster.nodes=b.internal:7001,a.internal:7000,[::1]:7002",
                "spring.data.redis.password=pw");
        assertThat(redis.cluster()).isTrue();
        assertThat(redis.nodes()).containsExactly(new RedisEndpoint.Node("b.internal", 7001),
                new RedisEndpoint.Node("a.internal", 7000), new RedisEndpoint.Node("::1", 7002));
        assertThat(redis.uris()).extracting(RedisURI::getPort).containsExactly(7001, 7000, 7002);
        assertThat(redis.address()).isEqualTo("redis-cluster://[::1]:7002,a.internal:7000,b.internal:7001");
    }

    @Test
    void refusesSentinelAndQuotesBadValues() {
        assertThatThrownBy(() -> endpoint("spring.data.redis.sentinel.master=mymaster"))
                .hasMessageContaining("Sentinel");
        assertThatThrownBy(() -> endpoint("spring.data.redis.port=70000"))
                .hasMessageContaining("spring.data.redis").hasMessageContaining("70000");
        assertThatThrownBy(() -> endpoint("spring.data.redis.database=-1"))
                .hasMessageContaining("spring.data.redis").hasMessageContaining("-1");
        assertThatThrownBy(() -> endpoint("spring.data.redis.cluster.nodes=a.internal"))
                .hasMessageContaining("spring.data.redis.cluster.nodes").hasMessageContaining("a.internal");
        assertThatThrownBy(() -> endpoint("spring.data.redis.url=http://redis:6379"))
                .hasMessageContaining("spring.data.redis.url").hasMessageContaining("http://redis:6379");
        assertThatThrownBy(() -> endpoint("spring.data.redis.url=redis://user:hidden@redis:6379/x"))
                .hasMessageContaining("/x").satisfies(e -> assertThat(e.getMessage()).doesNotContain("hidden"));
        assertThatThrownBy(() -> endpoint("spring.data.redis.timeout=0s"))
                .hasMessageContaining("spring.data.redis").hasMessageContaining("PT0S");
    }

    @Test
    void aStandaloneEndpointForAnApplicationsOwnServer() {
        RedisEndpoint redis = RedisEndpoint.standalone("127.0.0.1", 16379);
        assertThat(redis.uris()).extracting(RedisURI::getPort).isEqualTo(List.of(16379));
    }
}
