package dev.tollgate.spring.directory;

import static org.assertj.core.api.Assertions.assertThat;


import dev.tollgate.core.LayeredMap;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleSet;
import dev.tollgate.core.limits.PlanBook;
import dev.tollgate.spring.settings.UnverifiedKeyPolicy;
import dev.tollgate.spring.tenant.TenantLookup;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DirectoryLookupTest {

    private static final RateLimitRule DEFAULT = RateLimitRule.of(3, 1);

    private static DirectorySnapshot loadedWith(String key, String tenant) {
        return DirectorySnapshot.fromDatabase(PlanBook.of(RuleSet.of(DEFAULT, List.of()), "default"),
                LayeredMap.of(Map.of(ApiKeys.hash(key), tenant)), 1);
    }

    @Test
    void onceLoadedAKeyIsItsTenantsOrNobodys() {
        for (UnverifiedKeyPolicy policy : UnverifiedKeyPolicy.values()) {
            Directory directory = new Directory(loadedWith("tg_secret", "shop-a"), policy);
            assertThat(directory.lookup("tg_secret")).isEqualTo(TenantLookup.verified("shop-a"));
            assertThat(directory.lookup("tg_other")).isSameAs(TenantLookup.UNKNOWN_KEY);
        }
    }

    @Test
    void beforeTheFirstLoadThePolicySaysWhetherRequestsAreServedUnverifiedOrRefused() {
        assertThat(new Directory(DirectorySnapshot.notLoaded(DEFAULT, "default"), UnverifiedKeyPolicy.SHARED_DEFAULT_RULE)
                .lookup("tg_any")).isSameAs(TenantLookup.UNVERIFIED);
        assertThat(new Directory(DirectorySnapshot.notLoaded(DEFAULT, "default"), UnverifiedKeyPolicy.REJECT)
                .lookup("tg_any")).isSameAs(TenantLookup.UNAVAILABLE);
    }
}
