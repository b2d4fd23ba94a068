package dev.tollgate.gateway;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A timing test class ({@link TimingTests}) that measures waits in real time (timeouts, a rate of a
 * few dozen requests a second) and uses little CPU meanwhile: it may run beside another such class,
 * never beside a {@link NeedsTheCores} class.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(TimingTests.TAG)
@ResourceLock(value = TimingTests.CORES, mode = ResourceAccessMode.READ)
@interface MeasuresWaits {
}
