package dev.tollgate.gateway;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.tollgate.core.ProductionClasses;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.redis.RedisBucketStore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dependency direction across the modules, checked where they all meet, on the production
 * classes themselves: gateway → starter → redis → core, with no cycle among them, the starter knowing
 * nothing of the application, and no production code knowing the test kit. Each module's own rules
 * (core knows no framework, the Redis adapter no Spring, the starter's and the bench's packages no
 * cycle) are checked in that module's own build, by its own ArchitectureTest.
 */
class ArchitectureTest {

    private static JavaClasses production;

    @BeforeAll
    static void importProductionClasses() {
        production = ProductionClasses.of(RateLimitRule.class, RedisBucketStore.class,
                dev.tollgate.spring.autoconfigure.TollgateAutoConfiguration.class, TollgateApplication.class);
    }

    @Test
    void theStarterKnowsNotTheApplication() {
        noClasses().that().resideInAPackage("dev.tollgate.spring..")
                .should().dependOnClassesThat().resideInAPackage("dev.tollgate.gateway..")
                .check(production);
    }

    @Test
    void productionCodeKnowsNotTheTestKit() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("dev.tollgate.testkit..", "io.zonky..",
                        "redis.embedded..", "redis.clients..")
                .check(production);
    }

    @Test
    void theModulesFormNoCycle() {
        slices().matching("dev.tollgate.(*)..").should().beFreeOfCycles().check(production);
    }

    @Test
    void theImportFoundEveryModule() {
        // Guards the rules above against passing on an empty import.
        org.assertj.core.api.Assertions.assertThat(production.stream().map(c -> c.getPackageName().split("\\.")[2]).distinct())
                .contains("core", "redis", "spring", "gateway");
    }
}
