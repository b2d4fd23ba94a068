package dev.tollgate.spring.settings;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The admin API ({@code tollgate.admin.*}), served on the management port only.
 *
 * @param token           Bearer token that admin requests must carry, at least 16 characters; with none set the admin
 *                        API is off.
 * @param allowShortToken Accept a token shorter than 16 characters; dev mode sets it for its token "dev" (and listens on
 *                        127.0.0.1 only). Never set it elsewhere.
 */
@ConfigurationProperties("tollgate.admin")
public record AdminProperties(String token, @DefaultValue("false") boolean allowShortToken) {

    /** The shortest token accepted outside dev mode: guessing it must be out of the question. */
    public static final int MIN_TOKEN_LENGTH = 16;

    public AdminProperties {
        if (token != null && token.isBlank()) {
            token = null;
        }
        if (token != null && token.length() < MIN_TOKEN_LENGTH && !allowShortToken) {
            // The token itself is never quoted.
            throw new InvalidSettingException("tollgate.admin.token", null, "tollgate.admin.token must be at least "
                    + MIN_TOKEN_LENGTH + " characters, it has " + token.length());
        }
    }

    public boolean enabled() {
        return token != null;
    }

    @Override
    public String toString() {
        return "AdminProperties[token=" + (token == null ? "none" : "(set)") + ", allowShortToken=" + allowShortToken
                + "]";
    }
}
