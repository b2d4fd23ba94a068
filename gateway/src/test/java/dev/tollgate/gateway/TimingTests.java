package dev.tollgate.gateway;

/**
 * The tag of the test classes that measure real time on this machine (a cut-off under load, request
 * rates, timeouts, how long a large load takes, a Retry-After exact to the second on Redis's running
 * clock) and so must not share the cores with other tests:
 * the build runs them on their own, one at a time, after the others (the surefire executions in
 * this module's pom; {@code tollgate.gateway.test-forks} says how many JVMs the others share).
 */
final class TimingTests {

    static final String TAG = "timing";

    private TimingTests() {
    }
}
