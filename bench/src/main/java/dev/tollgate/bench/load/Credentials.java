package dev.tollgate.bench.load;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * How a load target's requests say who sends them. A {@link RequestMix} names the caller of each
 * request ({@code tenant-17}); the target's credentials turn that name into headers: an API key
 * (the default), a client address in {@code X-Forwarded-For} (for a route whose callers are limited
 * by address, behind a proxy the gateway trusts), or a bearer token naming the caller as its tenant.
 */
@FunctionalInterface
public interface Credentials {

    String API_KEY_HEADER = "X-Api-Key";

    /** Sets the headers that identify {@code caller}. */
    void apply(String caller, HttpHeaders headers);

    /** {@code X-Api-Key: <caller>}: the static source takes the key as the tenant's name. */
    static Credentials apiKey() {
        return (caller, headers) -> headers.set(API_KEY_HEADER, caller);
    }

    /** Nothing at all: a request that says nothing of its sender. */
    static Credentials none() {
        return (caller, headers) -> { };
    }

    /**
     * {@code X-Forwarded-For: <address of caller>}, no key: each caller name is one IPv4 address of
     * {@code 10.0.0.0/8} ({@link #addressOf}), so many callers are many address groups.
     */
    static Credentials forwardedFor() {
        return (caller, headers) -> headers.set("X-Forwarded-For", addressOf(caller));
    }

    /**
     * {@code Authorization: Bearer <token>}, no key; each caller's token is made once by
     * {@code tokenFor} (signing is the generator's cost, not the gateway's) and reused.
     */
    static Credentials bearer(Function<String, String> tokenFor) {
        Map<String, String> tokens = new ConcurrentHashMap<>();
        return (caller, headers) -> headers.set(HttpHeaderNames.AUTHORIZATION,
                "Bearer " + tokens.computeIfAbsent(caller, tokenFor));
    }

    /**
     * The address standing for {@code caller}: {@code 10.a.b.c} from 24 bits of the name's hash.
     * Two names may share an address (for 1,000 names the chance that any two do is about 3 %), which
     * only makes two callers one; the same name is always the same address.
     */
    static String addressOf(String caller) {
        int h = caller.hashCode() * 0x9E3779B1; // spread the bits: names that differ in one digit differ widely
        h ^= h >>> 16;
        return "10." + ((h >>> 16) & 0xFF) + "." + ((h >>> 8) & 0xFF) + "." + (h & 0xFF);
    }
}
