package dev.tollgate.spring.identity;

import reactor.core.publisher.Mono;

/**
 * Who a bearer token says the caller is, once verified. Kept free of Spring Security's types so the
 * filter loads without it on the class path ({@code JwtBearerTenants} is the implementation).
 */
public interface BearerTenants {

    /** The tenant of {@code token} (never null or blank), or why it is refused; never an error signal. */
    Mono<Result> tenantOf(String token);

    /** A verified tenant, or a refusal with the detail the 401 gives. */
    sealed interface Result permits Tenant, Refused {
    }

    record Tenant(String tenant) implements Result {
    }

    record Refused(String detail) implements Result {
    }
}
