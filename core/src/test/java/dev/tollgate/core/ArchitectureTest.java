package dev.tollgate.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Core's layering, checked in core's own build on its production classes: plain Java that knows no
 * store, no framework and none of the modules built on it. (How the modules stand on each other as a
 * whole is checked where they all meet, in the gateway's ArchitectureTest.)
 */
class ArchitectureTest {

    private static JavaClasses core;

    @BeforeAll
    static void importProductionClasses() {
        core = ProductionClasses.of(RateLimitRule.class);
    }

    @Test
    void coreKnowsNoStoreAndNoFramework() {
        noClasses().that().resideInAPackage("dev.tollgate.core..")
                .should().dependOnClassesThat().resideOutsideOfPackages("java..", "dev.tollgate.core..", "org.slf4j..")
                .because("core is plain Java: the token-bucket maths, the local limiter, leases and the clock")
                .check(core);
    }

    @Test
    void coresPackagesFormNoCycle() {
        slices().matching("dev.tollgate.(**)").should().beFreeOfCycles().check(core);
    }

    @Test
    void noClassMakesAThreadOfItsOwn() {
        OneThreadOneClockRules.noClassMakesAThreadOfItsOwn().check(core);
    }

    @Test
    void noClassReadsTheTimeItself() {
        OneThreadOneClockRules.noClassReadsTheTimeItself().check(core);
    }

    @Test
    void theImportFoundCore() {
        // Guards the rules above against passing on an empty import.
        assertThat(core.contain(TokenBucketMath.class)).isTrue();
        assertThat(core.contain(dev.tollgate.core.region.ShareRebalancer.class)).isTrue();
    }
}
