package dev.tollgate.spring.settings;

import dev.tollgate.core.InvalidRuleException;

/**
 * A Tollgate setting refused at start, naming the setting in full as it is written in configuration
 * ({@code tollgate.default-rule.capacity}, {@code tollgate.rules[2].refill-per-second}) and the value
 * it was given. {@link InvalidSettingFailureAnalyzer} turns it into Spring Boot's start-up failure
 * report instead of a stack trace.
 */
public final class InvalidSettingException extends IllegalArgumentException {

    private final String setting;
    private final String value;
    private final String action;

    /**
     * @param setting the setting at fault, in full
     * @param value   the value it was given, or null when it must not be quoted (a secret)
     * @param message the whole sentence: the setting, what is wrong, and (unless secret) the value
     */
    public InvalidSettingException(String setting, String value, String message) {
        this(setting, value, message, null);
    }

    /** As above, with what to do when "correct the setting" would not say enough. */
    public InvalidSettingException(String setting, String value, String message, String action) {
        super(message);
        this.setting = setting;
        this.value = value;
        this.action = action;
    }

    /** A rule's field refused by the rule itself, for the rule configured under {@code prefix}. */
    static InvalidSettingException ofRule(String prefix, InvalidRuleException invalid, Object value) {
        String setting = prefix + "." + kebabCase(invalid.field());
        return new InvalidSettingException(setting, String.valueOf(value), setting + " " + invalid.problem());
    }

    /** The setting at fault, as written in configuration. */
    public String setting() {
        return setting;
    }

    /** The value it was given, or null if it is not to be quoted. */
    public String value() {
        return value;
    }

    /** What to do, or null for "correct the setting". */
    public String action() {
        return action;
    }

    /** {@code refillPerSecond} to {@code refill-per-second}: a record component as a setting name. */
    static String kebabCase(String name) {
        StringBuilder out = new StringBuilder(name.length() + 4);
        for (char c : name.toCharArray()) {
            if (Character.isUpperCase(c)) {
                out.append('-').append(Character.toLowerCase(c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
