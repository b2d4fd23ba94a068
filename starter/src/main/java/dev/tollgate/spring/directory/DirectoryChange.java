package dev.tollgate.spring.directory;

/** One row of the change log: a rule scope or a key hash that changed. */
record DirectoryChange(long id, String kind, String tenant, String route, String keyHash) {

    boolean isRule() {
        return "rule".equals(kind);
    }
}
