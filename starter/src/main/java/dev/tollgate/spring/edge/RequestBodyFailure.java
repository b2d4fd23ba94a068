package dev.tollgate.spring.edge;

import io.netty.util.AttributeKey;
import org.springframework.http.HttpStatus;

/**
 * Why the body of the request in progress on a connection will never arrive whole: it could not be
 * parsed, or it took too long. Raised into the request's body stream by {@link RequestGuardHandler},
 * so that whatever reads the body (the forwarded request to the backend above all) fails instead of
 * seeing it end; answered by {@link RequestBodyFailureFilter}. No stack trace: it is the client's
 * doing, not a defect.
 */
final class RequestBodyFailure extends RuntimeException {

    /** The failure of the connection's request in progress, for readers that only see its exchange. */
    static final AttributeKey<RequestBodyFailure> ATTRIBUTE = AttributeKey.valueOf("tollgate.requestBodyFailure");

    private final HttpStatus status;
    private final String type;

    RequestBodyFailure(HttpStatus status, String type, String detail) {
        super(detail, null, false, false);
        this.status = status;
        this.type = type;
    }

    HttpStatus status() {
        return status;
    }

    /** The problem type's short name. */
    String type() {
        return type;
    }
}
