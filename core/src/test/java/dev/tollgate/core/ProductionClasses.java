package dev.tollgate.core;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;

/**
 * The production classes of some of Tollgate's modules, for the ArchitectureTests: read from where
 * each module's classes were loaded (its {@code target/classes} folder or its jar, whichever the
 * build put on the class path), named by one class of each module.
 *
 * <p>Why not {@code importPackages}: that walks every jar of the test class path to find a package
 * (seven seconds in the gateway's build, for a few hundred classes); the modules' own locations are
 * all there is to read.
 */
public final class ProductionClasses {

    private ProductionClasses() {
    }

    /** The classes of the modules that {@code anchors} belong to, tests left out. */
    public static JavaClasses of(Class<?>... anchors) {
        List<URL> locations = new ArrayList<>();
        for (Class<?> anchor : anchors) {
            locations.add(anchor.getProtectionDomain().getCodeSource().getLocation());
        }
        return new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importUrls(locations);
    }
}
