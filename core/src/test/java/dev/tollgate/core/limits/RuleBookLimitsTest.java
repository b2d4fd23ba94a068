package dev.tollgate.core.limits;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleSet;
import dev.tollgate.core.ScopedRule;
import java.util.List;
import org.junit.jupiter.api.Test;

class RuleBookLimitsTest {

    private final RateLimitRule shopRule = new RateLimitRule(100, 50, 2, true, 4);
    private final RuleSet rules = RuleSet.of(RateLimitRule.of(20, 10),
            List.of(new ScopedRule("shop", "*", shopRule)));
    private final RuleBookLimits book = new RuleBookLimits(rules);

    @Test
    void everyRequestIsOnTheSingleBucketPathWithTheRuleBooksRule() {
        AppliedLimits shop = book.limitsFor("shop", "orders");
        assertThat(shop.onSingleBucketPath()).isTrue();
        assertThat(shop.singleBucket()).isSameAs(shopRule); // shards, shadow, cost: the rule as it is
        Limit limit = shop.limits().get(0).limit();
        assertThat(limit.name()).isEqualTo(RuleBookLimits.LIMIT_NAME);
        assertThat(limit.scope()).isEqualTo(LimitScope.eachRoute());
        assertThat(limit.allowance()).isEqualTo(new TokenBucket(100, 50));
        assertThat(limit.cost()).isEqualTo(2);
        assertThat(limit.shadow()).isTrue();

        assertThat(book.limitsFor("other", "orders").singleBucket()).isEqualTo(RateLimitRule.of(20, 10));
    }

    @Test
    void theAnswerForARuleIsBuiltOnceSoALookupAllocatesNothing() {
        assertThat(book.limitsFor("shop", "orders")).isSameAs(book.limitsFor("shop", "catalog"));
        assertThat(book.limitsFor("a", "x")).isSameAs(book.limitsFor("b", "y"));
    }

    @Test
    void aWarmLookupAllocatesNothingMoreThanTheRuleBooksOwn() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        int sink = 0;
        for (int i = 0; i < 200_000; i++) { // warm: the answers are built, the JIT is done
            sink += book.limitsFor(i % 2 == 0 ? "shop" : "other", "orders").limits().size();
            sink += (int) rules.ruleFor(i % 2 == 0 ? "shop" : "other", "orders").capacity();
        }
        long start = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            sink += (int) rules.ruleFor(i % 2 == 0 ? "shop" : "other", "orders").capacity();
        }
        long ruleBook = threads.getCurrentThreadAllocatedBytes() - start;
        start = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            sink += book.limitsFor(i % 2 == 0 ? "shop" : "other", "orders").limits().size();
        }
        long limitBook = threads.getCurrentThreadAllocatedBytes() - start;
        assertThat(sink).isNotZero();
        assertThat(limitBook - ruleBook).as("bytes 100,000 lookups allocate beyond the rule book's own ("
                + ruleBook + ")").isLessThan(10_000);
    }

    @Test
    void theCacheIsBounded() {
        RuleBookLimits changing = new RuleBookLimits((tenant, route) -> RateLimitRule.of(Long.parseLong(tenant), 1));
        for (int i = 1; i <= RuleBookLimits.MAX_CACHED * 2 + 5; i++) {
            assertThat(changing.limitsFor(Integer.toString(i), "r").singleBucket().capacity()).isEqualTo(i);
        }
        AppliedLimits again = changing.limitsFor("3", "r");
        assertThat(again.singleBucket().capacity()).isEqualTo(3);
    }
}
