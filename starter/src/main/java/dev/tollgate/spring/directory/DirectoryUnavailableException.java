package dev.tollgate.spring.directory;

/** No API key can be checked: the database has not been read since this instance started. */
public final class DirectoryUnavailableException extends RuntimeException {

    public static final DirectoryUnavailableException INSTANCE = new DirectoryUnavailableException();

    private DirectoryUnavailableException() {
        super("the API key directory has not been loaded yet", null, false, false);
    }
}
