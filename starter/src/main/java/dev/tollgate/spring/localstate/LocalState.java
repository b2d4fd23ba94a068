package dev.tollgate.spring.localstate;

import java.util.Optional;

/**
 * The local state an instance uses, if any: none when {@code tollgate.local-state} has no secret to
 * authenticate its files with, or no folder of its own could be chosen (a WARN line at start says
 * which).
 */
public record LocalState(Optional<LocalStateDirectory> folder) {

    public static LocalState none() {
        return new LocalState(Optional.empty());
    }
}
