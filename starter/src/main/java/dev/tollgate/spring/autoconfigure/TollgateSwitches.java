package dev.tollgate.spring.autoconfigure;

import dev.tollgate.spring.settings.HotKeyProperties;
import dev.tollgate.spring.settings.LocalStateProperties;
import dev.tollgate.spring.settings.TollgateProperties.Source;
import dev.tollgate.spring.settings.TollgateProperties;

/** The switches that decide which parts of Tollgate exist, as conditions on their records. */
public final class TollgateSwitches {

    private TollgateSwitches() {
    }

    /** The limiter is on: {@code tollgate.enabled}. */
    public static final class LimiterOn extends SettingCondition<TollgateProperties> {
        public LimiterOn() {
            super("tollgate", TollgateProperties.class, "tollgate.enabled", TollgateProperties::enabled, true);
        }
    }

    /** The limiter is switched off: {@code tollgate.enabled=false}. */
    static final class LimiterOff extends SettingCondition<TollgateProperties> {
        LimiterOff() {
            super("tollgate", TollgateProperties.class, "tollgate.enabled", TollgateProperties::enabled, false);
        }
    }

    /** Rules and API keys come from PostgreSQL: {@code tollgate.source=database}. */
    static final class RulesFromDatabase extends SettingCondition<TollgateProperties> {
        RulesFromDatabase() {
            super("tollgate", TollgateProperties.class, "tollgate.source", TollgateProperties::source, Source.DATABASE);
        }
    }

    /** Rules come from configuration: {@code tollgate.source=static}. */
    static final class RulesFromConfiguration extends SettingCondition<TollgateProperties> {
        RulesFromConfiguration() {
            super("tollgate", TollgateProperties.class, "tollgate.source", TollgateProperties::source, Source.STATIC);
        }
    }

    /** The global filter limits every routed request: {@code tollgate.global-filter.enabled}. */
    static final class GlobalFilterOn extends SettingCondition<TollgateProperties> {
        GlobalFilterOn() {
            super("tollgate", TollgateProperties.class, "tollgate.global-filter.enabled",
                    tollgate -> tollgate.globalFilter().enabled(), true);
        }
    }

    /** Hot keys are leased: {@code tollgate.hot-keys.leases.enabled}. */
    static final class LeasesOn extends SettingCondition<HotKeyProperties> {
        LeasesOn() {
            super("tollgate.hot-keys", HotKeyProperties.class, "tollgate.hot-keys.leases.enabled",
                    hotKeys -> hotKeys.leases().enabled(), true);
        }
    }

    /** The local state is kept: {@code tollgate.local-state.enabled}. */
    static final class LocalStateOn extends SettingCondition<LocalStateProperties> {
        LocalStateOn() {
            super("tollgate.local-state", LocalStateProperties.class, "tollgate.local-state.enabled",
                    LocalStateProperties::enabled, true);
        }
    }
}
