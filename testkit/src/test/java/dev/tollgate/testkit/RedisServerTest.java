package dev.tollgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisServerTest {

    @Test
    void startsAnswersAndStops() {
        RedisServer server = RedisServer.start();
        try {
            assertThat(server.command("PING")).isEqualTo("+PONG");
            assertThat(server.command("SET", "k", "v")).isEqualTo("+OK");
            assertThat(server.command("GET", "k")).isEqualTo("v");
        } finally {
            server.close();
        }
        assertThat(server.isAlive()).isFalse();
        assertThatThrownBy(() -> server.command("PING")).isInstanceOf(UncheckedIOException.class);
    }

    @Test
    void twoServersGetTheirOwnPorts() {
        try (RedisServer a = RedisServer.start(); RedisServer b = RedisServer.start()) {
            assertThat(a.port()).isNotEqualTo(b.port());
            a.command("SET", "k", "a");
            assertThat(b.command("GET", "k")).isEqualTo("(nil)");
        }
    }

    @Test
    void restartsEmptyOnTheSamePort() {
        try (RedisServer server = RedisServer.start()) {
            server.command("SET", "k", "v");
            int port = server.port();
            server.restart();
            assertThat(server.port()).isEqualTo(port);
            assertThat(server.command("GET", "k")).isEqualTo("(nil)");
        }
    }

    @Test
    void theEmbeddedBinaryRunsWhereNoSystemRedisIs() {
        // The binary shipped in the embedded-redis jar is what a machine without Redis gets.
        assertThat(RedisBinary.majorVersion(RedisBinary.embedded())).isEqualTo(6);
        try (RedisServer server = RedisServer.start(RedisBinary.embedded(), List.of())) {
            assertThat(server.command("PING")).isEqualTo("+PONG");
        }
    }
}
