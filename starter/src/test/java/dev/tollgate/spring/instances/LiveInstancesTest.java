package dev.tollgate.spring.instances;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.ManualScheduler;
import dev.tollgate.spring.localstate.LocalStateDirectory;
import dev.tollgate.spring.localstate.LocalStateKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Where N comes from, in order, with stores whose answers the test sets and time moved by hand.
 * (The stores themselves, on real Redis and PostgreSQL, are tested through gateways in
 * {@code FallbackInstanceCountTest}.)
 */
// Alone: it reads what the whole JVM prints, which a class running beside it would add to.
@Isolated
@ExtendWith(OutputCaptureExtension.class)
class LiveInstancesTest {

    private static final Duration INTERVAL = Duration.ofSeconds(1);
    private static final Duration TTL = Duration.ofSeconds(3);

    /** A store that answers what it is told to, or fails. */
    private static final class ScriptedStore implements HeartbeatStore {
        private final String name;
        volatile Integer answer; // null = unreachable
        volatile boolean ready = true;
        int asked;

        ScriptedStore(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public boolean ready() {
            return ready;
        }

        @Override
        public int beat(String instanceId) {
            asked++;
            Integer n = answer;
            if (n == null) {
                throw new IllegalStateException(name + " unreachable");
            }
            return n;
        }

        @Override
        public void leave(String instanceId) {
        }
    }

    @TempDir
    Path temporary;

    private final ManualScheduler scheduler = new ManualScheduler();
    private final ScriptedStore redis = new ScriptedStore("redis-heartbeat");
    private final ScriptedStore postgres = new ScriptedStore("postgresql-heartbeat");
    private final List<LiveInstances> started = new ArrayList<>();

    @AfterEach
    void close() {
        started.forEach(LiveInstances::close);
    }

    private LiveInstances started(int floor, SavedInstanceCount saved) {
        LiveInstances instances = new LiveInstances(List.of(redis, postgres), saved, floor, INTERVAL, TTL,
                name -> scheduler);
        instances.start();
        started.add(instances);
        scheduler.runDue();
        return instances;
    }

    private static final LocalStateKey KEY = LocalStateKey.derivedFrom("this deployment's secret", "test");

    private SavedInstanceCount saved() {
        return new SavedInstanceCount(new LocalStateDirectory(temporary, KEY));
    }

    /** The saved file's content, its tag checked and left off. */
    private String savedContent() throws java.io.IOException {
        try (java.io.InputStream in = new LocalStateDirectory(temporary, KEY).read(SavedInstanceCount.FILE_NAME)
                .orElseThrow()) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
        }
    }

    @Test
    void redisFirstThenPostgresThenTheLastCountLearnt() {
        redis.answer = 5;
        postgres.answer = 7;
        LiveInstances instances = started(1, null);
        assertThat(instances.current()).isEqualTo(new LiveInstances.Count(5, "redis-heartbeat"));

        redis.answer = null;
        scheduler.advance(INTERVAL);
        assertThat(instances.current()).isEqualTo(new LiveInstances.Count(7, "postgresql-heartbeat"));

        postgres.answer = null;
        scheduler.advance(INTERVAL);
        assertThat(instances.current()).isEqualTo(new LiveInstances.Count(7, "last-learnt"));

        redis.answer = 4;
        scheduler.advance(INTERVAL);
        assertThat(instances.current()).isEqualTo(new LiveInstances.Count(4, "redis-heartbeat"));
    }

    @Test
    void aStoreNotReadyYetIsNotAskedNorReportedAsFailing(CapturedOutput output) {
        redis.answer = null;
        postgres.ready = false; // its tables not migrated yet
        postgres.answer = 7;
        LiveInstances instances = started(2, null);
        scheduler.advance(INTERVAL);
        assertThat(postgres.asked).isZero();
        assertThat(instances.current()).isEqualTo(new LiveInstances.Count(2, "configured"));
        assertThat(output).doesNotContain("Heartbeat in postgresql-heartbeat failed");

        postgres.ready = true;
        scheduler.advance(INTERVAL);
        assertThat(postgres.asked).isOne();
        assertThat(instances.current()).isEqualTo(new LiveInstances.Count(7, "postgresql-heartbeat"));
    }

    @Test
    void aStoreWhoseLastAnswerIsOlderThanTheTimeToLiveNoLongerCounts() {
        redis.answer = 5;
        postgres.answer = 7;
        LiveInstances instances = started(1, null);
        // From now on no beat ends at all (a store that hangs): Redis's answer goes stale after the
        // time-to-live, and N falls back to the count last learnt.
        scheduler.close();
        scheduler.clock().advance(TTL);
        assertThat(instances.current().source()).isEqualTo("redis-heartbeat");
        scheduler.clock().advance(Duration.ofMillis(1));
        assertThat(instances.current()).isEqualTo(new LiveInstances.Count(5, "last-learnt"));
    }

    @Test
    void theConfiguredCountIsAFloor() {
        redis.answer = 2;
        LiveInstances instances = started(4, null);
        assertThat(instances.current()).isEqualTo(new LiveInstances.Count(4, "configured"));
        redis.answer = 6;
        scheduler.advance(INTERVAL);
        assertThat(instances.count()).isEqualTo(6);
    }

    @Test
    void withNoStoreAnsweringAtStartTheCountSavedByTheLastRunApplies(CapturedOutput output) throws Exception {
        redis.answer = 6;
        started(1, saved());
        assertThat(savedContent()).isEqualTo("tollgate-instance-count 2\n6\n");

        redis.answer = null;
        postgres.answer = null;
        LiveInstances restarted = started(1, saved());
        assertThat(restarted.current()).isEqualTo(new LiveInstances.Count(6, "saved"));
        assertThat(restarted.isLearnt()).isFalse();
        assertThat(output).contains("Instance count saved by an earlier run: 6");
    }

    @Test
    void theSavedCountIsTheLargestOfTheLastFiveMinutes_notTheShrinkingCountOfAFleetStopping() throws Exception {
        redis.answer = 6;
        started(1, saved());
        redis.answer = 1; // the others stopped: this instance is the last one of its fleet to go
        scheduler.advance(INTERVAL);
        assertThat(savedContent()).isEqualTo("tollgate-instance-count 2\n6\n");

        // A fleet that really shrank is saved as it is once the window has passed.
        scheduler.advance(LiveInstances.SAVED_PEAK_WINDOW);
        assertThat(savedContent()).isEqualTo("tollgate-instance-count 2\n1\n");
    }

    @Test
    void withNothingKnownTheFloorApplies() {
        LiveInstances instances = started(3, saved());
        assertThat(instances.current()).isEqualTo(new LiveInstances.Count(3, "configured"));
    }

    @Test
    void aMalformedSavedCountIsRefused(CapturedOutput output) throws Exception {
        new LocalStateDirectory(temporary, KEY).write(SavedInstanceCount.FILE_NAME,
                out -> out.write("twenty\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
        LiveInstances instances = started(1, saved());
        assertThat(instances.current()).isEqualTo(new LiveInstances.Count(1, "configured"));
        assertThat(output).contains("Refusing the saved instance count " + saved().path()
                + ": not a Tollgate instance count");
    }

    @Test
    void aCountNotWrittenByThisDeploymentIsRefused(CapturedOutput output) throws Exception {
        // The untagged format anyone could write before: it was read as 1, halving nothing, or as 10^6.
        Files.writeString(temporary.resolve(SavedInstanceCount.FILE_NAME), "tollgate-instance-count 1\n1000000\n");
        assertThat(saved().read()).isEmpty();
        assertThat(output).contains("Refusing the saved instance count " + saved().path()
                + ": its authentication tag does not match");

        new SavedInstanceCount(new LocalStateDirectory(temporary,
                LocalStateKey.derivedFrom("another deployment's secret", "test"))).save(7);
        LocalStateDirectory ours = new LocalStateDirectory(temporary, KEY);
        assertThat(new SavedInstanceCount(ours).read()).isEmpty();
        assertThat(ours.refusals(SavedInstanceCount.FILE_NAME)).isEqualTo(1);
        LiveInstances instances = started(1, saved());
        assertThat(instances.current()).isEqualTo(new LiveInstances.Count(1, "configured"));
    }

    @Test
    void aSecondStartChangesNothing() {
        redis.answer = 2;
        LiveInstances instances = started(1, null);
        assertThat(redis.asked).isEqualTo(1);
        instances.start();
        scheduler.runDue();
        assertThat(redis.asked).as("no second round of beats").isEqualTo(1);
        scheduler.advance(INTERVAL);
        assertThat(redis.asked).isEqualTo(2);
    }
}
