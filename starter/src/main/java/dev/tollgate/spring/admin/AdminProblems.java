package dev.tollgate.spring.admin;

import java.net.URI;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/** RFC 9457 problem responses of the admin API. */
public final class AdminProblems {

    private AdminProblems() {
    }

    static Mono<ServerResponse> problem(HttpStatus status, String type, String detail) {
        return respond(detail(status, type, detail));
    }

    /** The 4xx of a refused request, naming the request field that is wrong. */
    static Mono<ServerResponse> refused(AdminRequestException refused) {
        ProblemDetail problem = detail(refused.status(), refused.type(), refused.getMessage());
        problem.setProperty("field", refused.field());
        return respond(problem);
    }

    public static Mono<ServerResponse> unauthorized() {
        return ServerResponse.status(HttpStatus.UNAUTHORIZED)
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"tollgate-admin\"")
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .bodyValue(detail(HttpStatus.UNAUTHORIZED, "unauthorized", "A valid admin bearer token is required."));
    }

    public static Mono<ServerResponse> notFound(String detail) {
        return problem(HttpStatus.NOT_FOUND, "not-found", detail);
    }

    private static ProblemDetail detail(HttpStatus status, String type, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(URI.create("urn:tollgate:problem:" + type));
        return problem;
    }

    private static Mono<ServerResponse> respond(ProblemDetail problem) {
        return ServerResponse.status(problem.getStatus())
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .bodyValue(problem);
    }
}
