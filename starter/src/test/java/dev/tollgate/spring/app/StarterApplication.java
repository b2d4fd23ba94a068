package dev.tollgate.spring.app;

import dev.tollgate.spring.autoconfigure.PostgresSupportMissingException;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * A Spring Cloud Gateway application that adds nothing but the starter, as a team's own would: what
 * its auto-configuration gives, with whatever is on its class path. Its static methods are called
 * through reflection from a class loader that leaves some jars out ({@code StarterClassPathTest}), so
 * they take and return only JDK types.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class StarterApplication {

    private static ConfigurableApplicationContext context;

    /** Starts the application; returns its HTTP port. */
    public static int start(String... args) {
        context = new SpringApplicationBuilder(StarterApplication.class).run(args);
        return Integer.parseInt(context.getEnvironment().getRequiredProperty("local.server.port"));
    }

    /** Whether a class is visible to the application. */
    public static boolean sees(String className) {
        try {
            Class.forName(className, false, StarterApplication.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** Names of the application's beans of a type given by name. */
    public static List<String> beanNames(String typeName) throws ClassNotFoundException {
        return List.of(context.getBeanNamesForType(Class.forName(typeName, true,
                StarterApplication.class.getClassLoader())));
    }

    public static void stop() {
        if (context != null) {
            context.close();
            context = null;
        }
    }

    /**
     * Starts the application expecting it to fail; returns what Spring Boot's failure analyzers (those
     * the class path registers, as at a real start) say about the failure, or {@code null} if none
     * analysed it.
     */
    public static String failure(String... args) {
        try {
            start(args);
        } catch (RuntimeException e) {
            if (!hasCause(e, PostgresSupportMissingException.class)) {
                throw e;
            }
            List<String> analyses = new ArrayList<>();
            // Analyzers that need constructor arguments (Spring Boot's own, some) are skipped: not ours.
            for (FailureAnalyzer analyzer : SpringFactoriesLoader.forDefaultResourceLocation(
                    StarterApplication.class.getClassLoader()).load(FailureAnalyzer.class, null,
                    SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> { }))) {
                FailureAnalysis analysis = analyzer.analyze(e);
                if (analysis != null) {
                    analyses.add(analysis.getDescription() + "\n" + analysis.getAction());
                }
            }
            return analyses.isEmpty() ? null : String.join("\n", analyses);
        } finally {
            stop();
        }
        return "started";
    }

    private static boolean hasCause(Throwable e, Class<?> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
