package dev.tollgate.gateway.config;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The admin API ({@code tollgate.admin.*}), served on the management port only.
 *
 * @param token the bearer token admin requests must carry; with none set the admin API is off
 *              (dev mode sets {@code dev} unless told otherwise)
 */
@ConfigurationProperties("tollgate.admin")
public record AdminProperties(String token) {

    public AdminProperties {
        if (token != null && token.isBlank()) {
            token = null;
        }
    }

    public boolean enabled() {
        return token != null;
    }

    @Override
    public String toString() {
        return "AdminProperties[token=" + (token == null ? "none" : "(set)") + "]";
    }
}
