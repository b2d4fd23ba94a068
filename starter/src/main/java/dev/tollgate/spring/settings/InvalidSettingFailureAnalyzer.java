package dev.tollgate.spring.settings;

import java.util.Locale;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * Spring Boot's start-up failure report for a Tollgate setting that was refused: what is wrong, the
 * setting in full, its value and where it was given, and what to do, in place of the stack trace
 * through the binder that would otherwise end the log. Ordered first, so that it speaks before
 * Spring Boot's own binding analysis, which would quote the deepest cause only and lose the setting.
 */
public class InvalidSettingFailureAnalyzer extends AbstractFailureAnalyzer<InvalidSettingException> implements Ordered {

    private final Environment environment;

    public InvalidSettingFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidSettingException cause) {
        StringBuilder description = new StringBuilder("Tollgate's configuration was refused: ")
                .append(cause.getMessage()).append(".\n\n")
                .append("    Setting: ").append(cause.setting()).append('\n');
        if (cause.value() != null) {
            description.append("    Value: \"").append(cause.value()).append("\"\n");
        }
        String origin = origin(cause.setting());
        if (origin != null) {
            description.append("    Origin: ").append(origin).append('\n');
        }
        String action = cause.action() != null ? cause.action() : correct(cause.setting());
        return new FailureAnalysis(description.toString(), action, cause);
    }

    private static String correct(String setting) {
        return "Correct " + setting + " (in application.yml, as --" + setting + "=... on the command line, or in the"
                + " environment" + (setting.indexOf('[') < 0 ? " as " + environmentVariable(setting) : "")
                + "). Every Tollgate setting, its default and its limits are in README.md, \"Configuration\".";
    }

    /** Where the setting was given, as Spring Boot tells it; null if nowhere (its default) or not known. */
    private String origin(String setting) {
        if (environment == null || !ConfigurationPropertyName.isValid(setting)) {
            return null;
        }
        ConfigurationPropertyName name = ConfigurationPropertyName.of(setting);
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            ConfigurationProperty property = source.getConfigurationProperty(name);
            if (property != null) {
                return property.getOrigin() == null ? null : property.getOrigin().toString();
            }
        }
        return null;
    }

    /** {@code tollgate.default-rule.capacity} as {@code TOLLGATE_DEFAULT_RULE_CAPACITY}, a form Spring Boot reads. */
    private static String environmentVariable(String setting) {
        return setting.replace('-', '_').replace('.', '_').toUpperCase(Locale.ROOT);
    }
}
