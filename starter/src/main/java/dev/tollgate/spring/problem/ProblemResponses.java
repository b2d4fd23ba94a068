package dev.tollgate.spring.problem;

import java.net.URI;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.json.ProblemDetailJacksonMixin;
import org.springframework.http.server.reactive.ServerHttpResponse;
import reactor.core.publisher.Mono;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * RFC 9457 {@code application/problem+json} answers given by the gateway itself: Spring's
 * {@link ProblemDetail}, written by Jackson with Spring's own problem mix-in (extra properties as
 * top-level members, absent ones left out), members in the RFC's order: {@code type}, {@code title},
 * {@code status}, {@code detail}, then any extra ones.
 *
 * <p>Serialising costs about a microsecond; bodies that repeat are serialised once and kept as bytes
 * by their callers ({@code RejectionBodies}, the constant 401 and 503 bodies), so the hot 429 path
 * writes a cached array.
 */
public final class ProblemResponses {

    /** {@code urn:tollgate:problem:} followed by a short name: the {@code type} of every Tollgate problem. */
    public static final String TYPE_PREFIX = "urn:tollgate:problem:";

    private static final JsonMapper JSON = JsonMapper.builder()
            .disable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY) // Jackson 3 sorts by default
            .addMixIn(ProblemDetail.class, ProblemDetailJacksonMixin.class)
            .build();

    private ProblemResponses() {
    }

    /** A problem of type {@code urn:tollgate:problem:<name>}, titled with the status's reason phrase. */
    public static ProblemDetail problem(HttpStatus status, String name, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(URI.create(TYPE_PREFIX + name));
        return problem;
    }

    /** The problem as the UTF-8 JSON bytes of a response body. */
    public static byte[] serialize(ProblemDetail problem) {
        return JSON.writeValueAsBytes(problem);
    }

    /** Serialises and writes {@code problem}; for answers too rare to be worth keeping. */
    public static Mono<Void> write(ServerHttpResponse response, ProblemDetail problem) {
        return write(response, HttpStatus.valueOf(problem.getStatus()), serialize(problem));
    }

    /** Ends the exchange with {@code status} and an already serialised problem {@code body}. */
    public static Mono<Void> write(ServerHttpResponse response, HttpStatus status, byte[] body) {
        response.setStatusCode(status);
        HttpHeaders headers = response.getHeaders();
        headers.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        headers.setContentLength(body.length);
        DataBuffer buffer = response.bufferFactory().wrap(body);
        return response.writeWith(Mono.just(buffer));
    }
}
