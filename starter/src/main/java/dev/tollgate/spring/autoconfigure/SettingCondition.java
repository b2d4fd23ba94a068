package dev.tollgate.spring.autoconfigure;

import dev.tollgate.spring.settings.InvalidSettingException;
import java.util.Objects;
import java.util.function.Function;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * A condition on one Tollgate setting, read from its {@code @ConfigurationProperties} record as the
 * record binds it, its default included. Conditions are evaluated before the records are beans;
 * binding the record here, instead of reading the raw property with a default of the condition's own
 * ({@code matchIfMissing}), keeps each default written once, on its record, so that a condition
 * cannot disagree with the beans that read the same setting. A value the record refuses stops the
 * start here, with the record's own message; a switch set to anything but true or false is refused
 * with the switch's name.
 *
 * @param <P> the properties record
 */
public abstract class SettingCondition<P> extends SpringBootCondition {

    private final String prefix;
    private final Class<P> type;
    private final String setting;
    private final Function<P, ?> value;
    private final Object wanted;

    /**
     * @param prefix  where {@code type} is bound
     * @param type    the properties record
     * @param setting the setting, in full, for the condition report and error messages
     * @param value   the setting's value in the bound record
     * @param wanted  the value on which the condition matches
     */
    protected SettingCondition(String prefix, Class<P> type, String setting, Function<P, ?> value, Object wanted) {
        this.prefix = prefix;
        this.type = type;
        this.setting = setting;
        this.value = value;
        this.wanted = wanted;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Object actual = value(context.getEnvironment());
        String why = setting + " is " + actual;
        return Objects.equals(actual, wanted) ? ConditionOutcome.match(why) : ConditionOutcome.noMatch(why);
    }

    /** The setting's value, as its record binds it. */
    final Object value(Environment environment) {
        if (wanted instanceof Boolean) {
            requireTrueOrFalse(environment, setting);
        }
        return value.apply(Binder.get(environment).bindOrCreate(prefix, type));
    }

    /**
     * Refuses a switch set to anything but true or false (in any case) with the switch's name: the
     * binder alone would take "yes" or "1" as true.
     */
    static void requireTrueOrFalse(Environment environment, String setting) {
        String value = environment.getProperty(setting);
        if (value == null) {
            return;
        }
        String flag = value.strip();
        if (!flag.equalsIgnoreCase("true") && !flag.equalsIgnoreCase("false")) {
            throw new InvalidSettingException(setting, value, setting + " must be true or false, was '" + value + "'");
        }
    }
}
