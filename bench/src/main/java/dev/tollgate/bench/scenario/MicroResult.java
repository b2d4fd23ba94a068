package dev.tollgate.bench.scenario;

/** One JMH benchmark's score: mean time per operation, with JMH's 99.9% confidence half-width. */
public record MicroResult(String benchmark, String params, double score, double error, String unit) {
}
