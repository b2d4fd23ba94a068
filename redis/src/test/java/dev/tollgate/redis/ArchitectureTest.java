package dev.tollgate.redis;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.tollgate.core.ProductionClasses;
import dev.tollgate.core.OneThreadOneClockRules;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Redis adapter's layering, checked in its own build on its production classes: Lettuce and core
 * below it, nothing of Spring or of the modules above it, and never the test kit.
 */
class ArchitectureTest {

    private static JavaClasses redis;

    @BeforeAll
    static void importProductionClasses() {
        redis = ProductionClasses.of(RedisBucketStore.class);
    }

    @Test
    void theRedisAdapterKnowsNoSpring() {
        noClasses().that().resideInAPackage("dev.tollgate.redis..")
                .should().dependOnClassesThat().resideInAnyPackage("org.springframework..", "dev.tollgate.spring..",
                        "dev.tollgate.gateway..")
                .check(redis);
    }

    @Test
    void theRedisAdapterKnowsNotTheTestKit() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("dev.tollgate.testkit..", "io.zonky..",
                        "redis.embedded..", "redis.clients..")
                .check(redis);
    }

    @Test
    void noClassMakesAThreadOfItsOwn() {
        OneThreadOneClockRules.noClassMakesAThreadOfItsOwn().check(redis);
    }

    @Test
    void noClassReadsTheTimeItself() {
        OneThreadOneClockRules.noClassReadsTheTimeItself().check(redis);
    }

    @Test
    void theImportFoundTheAdapter() {
        // Guards the rules above against passing on an empty import.
        assertThat(redis.contain(RedisBucketStore.class)).isTrue();
    }
}
