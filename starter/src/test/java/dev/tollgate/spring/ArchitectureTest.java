package dev.tollgate.spring;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.tollgate.core.ProductionClasses;
import dev.tollgate.core.OneThreadOneClockRules;
import dev.tollgate.spring.postgres.ConnectionPolicy;
import java.sql.DriverManager;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The starter's layering, checked in the starter's own build on its production classes, so that a
 * build of the starter alone guards it: its packages stand on each other in one direction, the wiring
 * ({@code autoconfigure}) on top of everything and known to nothing, the settings at the bottom
 * knowing no feature, and none of them knows the test kit.
 */
class ArchitectureTest {

    private static JavaClasses starter;

    @BeforeAll
    static void importProductionClasses() {
        starter = ProductionClasses.of(dev.tollgate.spring.autoconfigure.TollgateAutoConfiguration.class);
    }

    @Test
    void theStartersPackagesFormNoCycle() {
        slices().matching("dev.tollgate.spring.(*)..").should().beFreeOfCycles()
                .because("each package of the starter stands on the ones below it, never on one above")
                .check(starter);
    }

    @Test
    void noPackageDependsOnOneThatDependsOnIt() {
        // Every package its own slice, sub-packages included (directory, directory.database, ...).
        slices().matching("dev.tollgate.spring.(**)").should().beFreeOfCycles()
                .because("a sub-package stands below or above its parent, never both")
                .check(starter);
    }

    @Test
    void onlyTheWiringKnowsTheWiring() {
        noClasses().that().resideOutsideOfPackage("dev.tollgate.spring.autoconfigure")
                .should().dependOnClassesThat().resideInAPackage("dev.tollgate.spring.autoconfigure")
                .because("auto-configuration puts the features together; a feature that needed it would sit"
                        + " under its own wiring")
                .check(starter);
    }

    @Test
    void theSettingsKnowNoFeature() {
        noClasses().that().resideInAPackage("dev.tollgate.spring.settings")
                .should().dependOnClassesThat(resideInAPackage("dev.tollgate.spring..")
                        .and(resideOutsideOfPackage("dev.tollgate.spring.settings")))
                .because("settings are bound and validated before any feature exists; features read them")
                .check(starter);
    }

    @Test
    void theStarterKnowsNotTheTestKit() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("dev.tollgate.testkit..", "io.zonky..",
                        "redis.embedded..", "redis.clients..")
                .because("the test kit starts servers for tests and dev mode, never inside an application")
                .check(starter);
    }

    @Test
    void onlyTheConnectionPolicyOpensConnectionsThroughDriverManager() {
        noClasses().that().doNotHaveFullyQualifiedName(ConnectionPolicy.class.getName())
                .should().dependOnClassesThat().haveFullyQualifiedName(DriverManager.class.getName())
                .because("every PostgreSQL connection takes its timeouts from the one ConnectionPolicy")
                .check(starter);
    }

    @Test
    void noClassMakesAThreadOfItsOwn() {
        OneThreadOneClockRules.noClassMakesAThreadOfItsOwn().check(starter);
    }

    @Test
    void noClassReadsTheTimeItself() {
        OneThreadOneClockRules.noClassReadsTheTimeItself().check(starter);
    }

    @Test
    void theImportFoundTheStarter() {
        // Guards the rules above against passing on an empty import.
        assertThat(starter.stream().map(c -> c.getPackageName()).distinct())
                .contains("dev.tollgate.spring.autoconfigure", "dev.tollgate.spring.settings", "dev.tollgate.spring.filter",
                        "dev.tollgate.spring.region", "dev.tollgate.spring.directory.database");
    }
}
