package dev.tollgate.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns {@link PostgresSupportMissingException} into Spring Boot's short Description / Action report. */
class PostgresSupportMissingFailureAnalyzer extends AbstractFailureAnalyzer<PostgresSupportMissingException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, PostgresSupportMissingException cause) {
        return new FailureAnalysis(
                "Tollgate reads its rules and API keys from PostgreSQL (tollgate.source=database, the default),"
                        + " but these classes are not on the class path: " + String.join(", ", cause.missingClasses())
                        + ".",
                "Depend on " + PostgresSupport.ARTIFACT + " (it brings the starter, the PostgreSQL driver, the"
                        + " connection pool and Flyway), or set tollgate.source=static to take rules from"
                        + " tollgate.rules.",
                cause);
    }
}
