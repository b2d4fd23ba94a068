package dev.tollgate.gateway;

/**
 * The test classes that measure real time on this machine (a cut-off under load, request rates,
 * timeouts, how long a large load takes, a Retry-After exact to the second on Redis's running clock):
 * the build runs them after the others (the surefire executions in this module's pom;
 * {@code tollgate.gateway.test-forks} says how many JVMs the others share), two at a time at most.
 * A class says which it is with one of two annotations, each a tag and a lock on the cores:
 * {@link NeedsTheCores} runs alone; {@link MeasuresWaits} (timeouts, a few requests a second) may
 * share the cores with another such class.
 */
final class TimingTests {

    /** The tag the build selects these classes by. */
    static final String TAG = "timing";

    /** The lock on the machine's cores: shared by {@link MeasuresWaits}, held alone by {@link NeedsTheCores}. */
    static final String CORES = "cores";

    private TimingTests() {
    }
}
