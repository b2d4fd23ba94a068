package dev.tollgate.gateway;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A timing test class ({@link TimingTests}) whose figures depend on the machine's speed (requests
 * under load, a cut-off measured in milliseconds): it runs with no other test class on the cores.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(TimingTests.TAG)
@ResourceLock(value = TimingTests.CORES, mode = ResourceAccessMode.READ_WRITE)
@interface NeedsTheCores {
}
