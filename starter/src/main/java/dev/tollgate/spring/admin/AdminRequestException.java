package dev.tollgate.spring.admin;

import org.springframework.http.HttpStatus;

/** A request the admin API refuses: a 4xx naming the field at fault (or {@code body}). */
final class AdminRequestException extends RuntimeException {

    private final HttpStatus status;
    private final String type;
    private final String field;

    private AdminRequestException(HttpStatus status, String type, String field, String message) {
        super(message, null, false, false); // a refusal, not a failure: no stack trace to fill
        this.status = status;
        this.type = type;
        this.field = field;
    }

    /** 400: {@code field} is invalid; {@code message} says how, quoting the input only through {@link Echo}. */
    AdminRequestException(String field, String message) {
        this(HttpStatus.BAD_REQUEST, "invalid-request", field, message);
    }

    static AdminRequestException bodyTooLarge(int maxBytes) {
        return new AdminRequestException(HttpStatus.PAYLOAD_TOO_LARGE, "body-too-large", "body",
                "the body is larger than " + maxBytes + " bytes");
    }

    static AdminRequestException unsupportedMediaType() {
        return new AdminRequestException(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type", "body",
                "a body must be sent as Content-Type: application/json");
    }

    HttpStatus status() {
        return status;
    }

    String type() {
        return type;
    }

    String field() {
        return field;
    }
}
