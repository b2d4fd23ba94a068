package dev.tollgate.spring.limiter;

/** What became of a request. */
public enum DecisionOutcome {
    ALLOWED("allowed"),
    REJECTED("rejected"),
    /** Over a shadow rule's limit, so let through and only counted. */
    SHADOW_REJECTED("shadow-rejected");

    private final String tag;

    DecisionOutcome(String tag) {
        this.tag = tag;
    }

    public String tag() {
        return tag;
    }
}
