/**
 * Several limits on one request: the {@link dev.tollgate.core.limits.Limit} model, calendar
 * windows for quotas ({@link dev.tollgate.core.limits.CalendarWindow}) and the exact reference model of
 * an all-or-nothing decision over a request's limits
 * ({@link dev.tollgate.core.limits.ReferenceLimitEvaluator}), which the Redis script and the local
 * stores are to be checked against. Plain Java, integer arithmetic, time passed in by the caller.
 */
package dev.tollgate.core.limits;
