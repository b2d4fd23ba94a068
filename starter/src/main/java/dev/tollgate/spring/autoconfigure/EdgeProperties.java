package dev.tollgate.spring.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How the gateway treats requests at its edge, before and after limiting them
 * ({@code tollgate.paths.*}).
 *
 * @param paths How request paths are read before routing.
 */
@ConfigurationProperties("tollgate")
@Validated
public record EdgeProperties(@DefaultValue PathProperties paths) {

    /**
     * @param normalize Whether each request path is put in one canonical form before routes are matched (dot-segments
     *                  resolved, empty segments merged) and refused with 400 if it has none (encoded dot-segments,
     *                  encoded slashes or backslashes, path parameters, control characters, .. above the root), so
     *                  that route, rule and backend all read the same path.
     */
    public record PathProperties(@DefaultValue("true") boolean normalize) {
    }
}
