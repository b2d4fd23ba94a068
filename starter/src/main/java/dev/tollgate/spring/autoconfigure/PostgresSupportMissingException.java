package dev.tollgate.spring.autoconfigure;

import java.util.List;

/** Rules from PostgreSQL were asked for, and the jars that read them are not on the class path. */
public class PostgresSupportMissingException extends IllegalStateException {

    private final List<String> missingClasses;

    PostgresSupportMissingException(List<String> missingClasses) {
        super("tollgate.source=database (the default) needs PostgreSQL support, and the class path lacks "
                + String.join(", ", missingClasses) + ": add the dependency " + PostgresSupport.ARTIFACT
                + " (in place of tollgate-spring-boot-starter), or set tollgate.source=static for rules from"
                + " configuration");
        this.missingClasses = List.copyOf(missingClasses);
    }

    /** The classes looked for and not found. */
    public List<String> missingClasses() {
        return missingClasses;
    }
}
