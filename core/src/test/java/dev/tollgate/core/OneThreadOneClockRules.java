package dev.tollgate.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.lang.ArchRule;
import java.time.Instant;
import java.util.concurrent.Executors;

/**
 * The two rules every module's {@code ArchitectureTest} checks on its own production classes, written
 * once here (core's test-jar): threads are made in one place, and time is read in one place.
 */
public final class OneThreadOneClockRules {

    private OneThreadOneClockRules() {
    }

    /**
     * No class constructs a {@link Thread} (or a subclass), calls {@link Executors}' pools or
     * {@code Thread.ofPlatform()/ofVirtual()} and their builders, but {@link SerialScheduler}, whose
     * {@code daemonThread} is the one way Tollgate makes a thread.
     */
    public static ArchRule noClassMakesAThreadOfItsOwn() {
        // Accesses, not only calls: a method reference (Thread::new, Executors::newCachedThreadPool) counts.
        DescribedPredicate<JavaAccess<?>> threadMaker = new DescribedPredicate<>("a Thread constructor, or Executors'"
                + " or Thread's thread makers") {
            @Override
            public boolean test(JavaAccess<?> access) {
                String owner = access.getTargetOwner().getName();
                return access.getName().equals("<init>") && access.getTargetOwner().isAssignableTo(Thread.class)
                        || owner.equals(Executors.class.getName())
                        || owner.equals(Thread.class.getName()) && access.getName().startsWith("of")
                        || owner.startsWith(Thread.class.getName() + "$Builder");
            }
        };
        return noClasses().that().doNotHaveFullyQualifiedName(SerialScheduler.class.getName())
                .should().accessTargetWhere(threadMaker)
                .because("a background component gets its thread from SerialScheduler.daemonThread, the one"
                        + " place Tollgate makes threads: a daemon thread, named, stopped with its component");
    }

    /**
     * No class reads the time itself ({@code System.nanoTime}, {@code System.currentTimeMillis},
     * {@code Instant.now}) but {@link MonotonicClock} and {@link WallClock}: everything else is given
     * a clock, which tests move by hand.
     */
    public static ArchRule noClassReadsTheTimeItself() {
        DescribedPredicate<JavaAccess<?>> timeRead = new DescribedPredicate<>("a read of the host's time") {
            @Override
            public boolean test(JavaAccess<?> access) {
                String owner = access.getTargetOwner().getName();
                String name = access.getName();
                return owner.equals(System.class.getName()) && (name.equals("nanoTime") || name.equals("currentTimeMillis"))
                        || owner.equals(Instant.class.getName()) && name.equals("now");
            }
        };
        return noClasses().that().doNotHaveFullyQualifiedName(MonotonicClock.class.getName())
                .and().doNotHaveFullyQualifiedName(WallClock.class.getName())
                .should().accessTargetWhere(timeRead)
                .because("durations and deadlines are measured on an injected MonotonicClock, the time of day"
                        + " read from an injected WallClock, so that tests move time instead of waiting");
    }
}
