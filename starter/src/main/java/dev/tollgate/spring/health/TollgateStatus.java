package dev.tollgate.spring.health;

import org.springframework.boot.health.contributor.Status;

/**
 * The health status Tollgate adds to Spring Boot's, {@code DEGRADED}: still serving and still
 * limiting, on a fallback (the local share while Redis is unreachable, the last rules and keys
 * while PostgreSQL is). It is mapped to HTTP 200 and ordered between {@code OUT_OF_SERVICE} and
 * {@code UP} ({@code management.endpoint.health.status.*}). Each indicator says in its own words
 * what it falls back on; statuses are equal by their code alone.
 */
public final class TollgateStatus {

    public static final String DEGRADED_CODE = "DEGRADED";

    private TollgateStatus() {
    }

    /** {@code DEGRADED}, with a description of the fallback in force. */
    public static Status degraded(String description) {
        return new Status(DEGRADED_CODE, description);
    }
}
