package dev.tollgate.spring.admin;

/** The (optional) body of {@code POST /admin/tenants/{tenant}/keys}, bound strictly ({@link AdminBodies}). */
record KeyRequest(String label) {

    static final int MAX_LABEL = 200;

    String validLabel() {
        String l = label == null ? "" : label.strip();
        if (l.length() > MAX_LABEL) {
            throw new AdminRequestException("label", "label is at most " + MAX_LABEL + " characters, was " + l.length());
        }
        if (l.chars().anyMatch(Character::isISOControl)) {
            throw new AdminRequestException("label", "label must not contain control characters");
        }
        return l;
    }
}
