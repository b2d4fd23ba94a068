package dev.tollgate.spring.localstate;

import java.io.IOException;

/** A file of the local state that must not be used; the message says why (it completes "Refusing FILE: "). */
public final class RefusedFileException extends IOException {

    public RefusedFileException(String reason) {
        super(reason);
    }
}
