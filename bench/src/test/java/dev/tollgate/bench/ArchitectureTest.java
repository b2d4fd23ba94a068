package dev.tollgate.bench;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.tollgate.core.ProductionClasses;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bench's layering, checked in the bench's own build on its production classes: the suite's
 * runner ({@code dev.tollgate.bench}) stands on top, the scenarios, the report and the parts they
 * share below it, and no package depends, even through others, on one that depends on it.
 */
class ArchitectureTest {

    private static JavaClasses bench;

    @BeforeAll
    static void importProductionClasses() {
        bench = ProductionClasses.of(BenchmarkSuite.class);
    }

    @Test
    void theBenchsPackagesFormNoCycle() {
        // Every package is a slice of its own, the runner's included (dev.tollgate.bench itself).
        slices().matching("dev.tollgate.(**)").should().beFreeOfCycles().check(bench);
    }

    @Test
    void nothingDependsOnTheRunner() {
        noClasses().that().resideOutsideOfPackage("dev.tollgate.bench")
                .should().dependOnClassesThat().resideInAPackage("dev.tollgate.bench")
                .because("the suite's runner uses the scenarios and the report, which share what they need"
                        + " through packages of their own (dev.tollgate.bench.suite: the plan and the results)")
                .check(bench);
    }

    @Test
    void theImportFoundEveryPackage() {
        // Guards the rules above against passing on an empty import.
        assertThat(bench.stream().map(c -> c.getPackageName()).distinct())
                .contains("dev.tollgate.bench", "dev.tollgate.bench.suite", "dev.tollgate.bench.report",
                        "dev.tollgate.bench.scenario", "dev.tollgate.bench.process", "dev.tollgate.bench.load");
    }
}
