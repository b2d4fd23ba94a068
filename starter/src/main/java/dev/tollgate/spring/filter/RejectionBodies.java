package dev.tollgate.spring.filter;

import dev.tollgate.core.Decision;
import dev.tollgate.core.limits.LimitOutcome;
import dev.tollgate.core.limits.MultiLimitDecision;
import dev.tollgate.spring.problem.ProblemResponses;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/**
 * The 429 bodies, serialised once per distinct body and kept. A body depends only on the route and
 * the whole seconds of {@code Retry-After}, and a busy route sees few distinct values of the latter;
 * each route keeps at most {@value #MAX_PER_ROUTE} of them, so memory is bounded by the number of
 * configured routes. A value beyond that is serialised for its own response.
 *
 * <p>A multi-limit rejection ({@link #limits}) names the limits that rejected it: {@code "limit"} the
 * one that keeps it rejected longest (whose wait is the {@code Retry-After}), {@code "limits"} all of
 * them in the order they apply. Its body is serialised for each response: a quota's wait changes
 * every second.
 */
final class RejectionBodies {

    static final String TYPE = "rate-limited";
    static final int MAX_PER_ROUTE = 256;

    private final Map<String, RouteBodies> byRoute = new ConcurrentHashMap<>();

    /** The body of a rejection that a retry after {@code retryAfterSeconds} can pass. */
    byte[] retryAfter(String route, long retryAfterSeconds) {
        return byRoute.computeIfAbsent(route, RouteBodies::new).retryAfter(retryAfterSeconds);
    }

    /** The body of a rejection that no wait can cure: the request costs more than the capacity. */
    byte[] never(String route) {
        return byRoute.computeIfAbsent(route, RouteBodies::new).never;
    }

    /** The body of a multi-limit rejection on {@code route}. */
    byte[] limits(String route, MultiLimitDecision decision) {
        List<String> names = new ArrayList<>(2);
        String longest = null;
        long longestWait = -1;
        for (LimitOutcome outcome : decision.outcomes()) {
            if (outcome.rejects()) {
                String name = outcome.limitDefinition().name();
                names.add(name);
                long wait = outcome.retryAfterMillis() == Decision.NEVER ? Long.MAX_VALUE : outcome.retryAfterMillis();
                if (wait > longestWait) {
                    longestWait = wait;
                    longest = name;
                }
            }
        }
        long retry = decision.retryAfterMillis();
        ProblemDetail problem;
        if (retry == Decision.NEVER) {
            problem = ProblemResponses.problem(HttpStatus.TOO_MANY_REQUESTS, TYPE, "This request costs more than limit '"
                    + longest + "' on route '" + route + "' can ever allow.");
        } else {
            long seconds = (retry + 999) / 1000;
            problem = ProblemResponses.problem(HttpStatus.TOO_MANY_REQUESTS, TYPE, "Limit '" + longest
                    + "' on route '" + route + "' exceeded; retry in " + seconds + " s.");
            problem.setProperty("retryAfterSeconds", seconds);
        }
        problem.setProperty("limit", longest);
        problem.setProperty("limits", names);
        return ProblemResponses.serialize(problem);
    }

    private static final class RouteBodies {

        private final String route;
        private final byte[] never;
        private final Map<Long, byte[]> byRetryAfter = new ConcurrentHashMap<>();

        RouteBodies(String route) {
            this.route = route;
            this.never = ProblemResponses.serialize(ProblemResponses.problem(HttpStatus.TOO_MANY_REQUESTS, TYPE,
                    "This request costs more than the rate limit of route '" + route + "' can ever allow."));
        }

        byte[] retryAfter(long seconds) {
            byte[] body = byRetryAfter.get(seconds);
            if (body != null) {
                return body;
            }
            body = serialize(seconds);
            if (byRetryAfter.size() < MAX_PER_ROUTE) {
                byRetryAfter.putIfAbsent(seconds, body);
            }
            return body;
        }

        private byte[] serialize(long seconds) {
            ProblemDetail problem = ProblemResponses.problem(HttpStatus.TOO_MANY_REQUESTS, TYPE,
                    "Rate limit of route '" + route + "' exceeded; retry in " + seconds + " s.");
            problem.setProperty("retryAfterSeconds", seconds);
            return ProblemResponses.serialize(problem);
        }
    }
}
