package dev.tollgate.spring.localstate;

/**
 * The local-state folder exists but is not private to the user the gateway runs as (another user's,
 * or writable by group or others): whoever can write it could plant the rules and keys an instance
 * serves, so it is not used.
 */
public final class UnsafeLocalStateException extends IllegalStateException {

    public UnsafeLocalStateException(String message) {
        super(message);
    }
}
