package dev.tollgate.spring.admin;

/** A request the admin API refuses, naming the field at fault. */
final class AdminRequestException extends RuntimeException {

    private final String field;

    AdminRequestException(String field, String message) {
        super(message);
        this.field = field;
    }

    String field() {
        return field;
    }
}
