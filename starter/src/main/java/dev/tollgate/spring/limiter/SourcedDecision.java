package dev.tollgate.spring.limiter;

import dev.tollgate.core.Decision;

/** A decision and who made it. */
public record SourcedDecision(Decision decision, DecisionSource source) {
}
