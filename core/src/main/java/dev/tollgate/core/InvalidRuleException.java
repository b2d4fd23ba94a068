package dev.tollgate.core;

/**
 * A {@link RateLimitRule} refused when built, naming the field at fault, so that whoever configured it
 * (a setting, an admin request, a row) can name it in their own terms.
 */
public final class InvalidRuleException extends IllegalArgumentException {

    private final String field;
    private final String problem;

    /**
     * @param field   the rule's field, as the record names it ({@code capacity}, {@code refillPerSecond}, ...)
     * @param problem what is wrong with it, quoting the value: "must be between 1 and 10, was 0"
     */
    public InvalidRuleException(String field, String problem) {
        super(field + " " + problem);
        this.field = field;
        this.problem = problem;
    }

    public String field() {
        return field;
    }

    public String problem() {
        return problem;
    }
}
