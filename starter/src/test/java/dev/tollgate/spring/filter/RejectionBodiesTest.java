package dev.tollgate.spring.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RejectionBodiesTest {

    private final RejectionBodies bodies = new RejectionBodies();

    @Test
    void aRejectionBodyIsTheProblemWithItsRetryDelay() {
        assertThat(new String(bodies.retryAfter("create-order", 7), StandardCharsets.UTF_8)).isEqualTo(
                "{\"type\":\"urn:tollgate:problem:rate-limited\",\"title\":\"Too Many Requests\",\"status\":429,"
                        + "\"detail\":\"Rate limit of route 'create-order' exceeded; retry in 7 s.\","
                        + "\"retryAfterSeconds\":7}");
        assertThat(new String(bodies.never("create-order"), StandardCharsets.UTF_8)).isEqualTo(
                "{\"type\":\"urn:tollgate:problem:rate-limited\",\"title\":\"Too Many Requests\",\"status\":429,"
                        + "\"detail\":\"This request costs more than the rate limit of route 'create-order'"
                        + " can ever allow.\"}");
    }

    @Test
    void routeIdsAreEscapedAsJsonStrings() {
        assertThat(new String(bodies.retryAfter("a\"b\\c\nd", 1), StandardCharsets.UTF_8))
                .contains("route 'a\\\"b\\\\c\\nd' exceeded");
    }

    @Test
    void aBodyIsSerialisedOnceAndKeptUpToTheBound() {
        assertThat(bodies.retryAfter("r", 3)).isSameAs(bodies.retryAfter("r", 3));
        assertThat(bodies.retryAfter("r", 3)).isNotSameAs(bodies.retryAfter("s", 3));
        for (long s = 0; s < RejectionBodies.MAX_PER_ROUTE + 10; s++) {
            bodies.retryAfter("many", s);
        }
        long beyond = RejectionBodies.MAX_PER_ROUTE + 5;
        // Still right, just not kept.
        assertThat(bodies.retryAfter("many", beyond)).isNotSameAs(bodies.retryAfter("many", beyond))
                .isEqualTo(bodies.retryAfter("many", beyond));
    }
}
