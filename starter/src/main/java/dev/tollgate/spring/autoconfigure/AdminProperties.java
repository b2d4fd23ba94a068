package dev.tollgate.spring.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The admin API ({@code tollgate.admin.*}), served on the management port only.
 *
 * @param token Bearer token that admin requests must carry; with none set the admin API is off.
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
