package dev.tollgate.spring.directory.snapshot;

import static org.assertj.core.api.Assertions.assertThat;


import dev.tollgate.core.LayeredMap;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleScope;
import dev.tollgate.core.RuleSet;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.Plan;
import dev.tollgate.core.limits.PlanBook;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.TokenBucket;
import java.time.ZoneId;
import dev.tollgate.core.ScopedRule;
import dev.tollgate.spring.directory.ApiKeys;
import dev.tollgate.spring.directory.DirectorySnapshot;
import dev.tollgate.spring.localstate.LocalStateDirectory;
import dev.tollgate.spring.localstate.LocalStateKey;
import dev.tollgate.spring.settings.DatabaseEndpoint;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

// Alone: it reads what the whole JVM prints, which a class running beside it would add to.
@Isolated
@ExtendWith(OutputCaptureExtension.class)
class SnapshotFileTest {

    private static final DatabaseEndpoint DATABASE =
            new DatabaseEndpoint("jdbc:postgresql://db:5432/tollgate?password=secret", "gateway", "secret");
    private static final RateLimitRule DEFAULT = RateLimitRule.of(20, 10);
    private static final RateLimitRule EXACT = new RateLimitRule(200, 0.125, 3, false, 4);
    private static final RateLimitRule SHADOW = new RateLimitRule(50, 5, 1, true);

    @TempDir
    Path temporary;

    private String key;
    private DirectorySnapshot snapshot;

    @BeforeEach
    void snapshot() {
        key = ApiKeys.generate();
        RuleSet rules = RuleSet.of(RateLimitRule.of(1, 1), List.of(
                new ScopedRule("shop-a", "create-order", EXACT),
                new ScopedRule("shop-a", ScopedRule.ANY_ROUTE, SHADOW)));
        snapshot = DirectorySnapshot.fromDatabase(PlanBook.of(rules, List.of(FREE), LayeredMap.of(Map.of("shop-b", "free")),
                        "default"),
                LayeredMap.of(Map.of(ApiKeys.hash(key), "shop-a", ApiKeys.hash("other"), "shop-b")), 42);
    }

    private static final Plan FREE = new Plan("free", List.of(
            new Limit("rate", LimitScope.eachRoute(), new TokenBucket(20, 10)),
            new Limit("day", LimitScope.tenant(), new CalendarQuota(10_000, QuotaPeriod.DAY, ZoneId.of("Europe/Berlin")))));

    private static final LocalStateKey KEY = LocalStateKey.derivedFrom("this deployment's secret", "test");

    /** The time of day the files are saved and read at (epoch ms), moved by the tests. */
    private final AtomicLong timeOfDay = new AtomicLong(1_780_000_000_000L);

    private Instant now() {
        return Instant.ofEpochMilli(timeOfDay.get());
    }

    private SnapshotFile file(DatabaseEndpoint database) {
        return new SnapshotFile(new LocalStateDirectory(temporary, KEY), database, this::now);
    }

    @Test
    void aSavedSnapshotComesBackWithTheReadersDefaultRule() throws IOException {
        file(DATABASE).save(snapshot);
        timeOfDay.addAndGet(90_000);

        SnapshotFile.Restored restored = file(DATABASE).read(DEFAULT, "default").orElseThrow();
        DirectorySnapshot back = restored.snapshot();
        assertThat(back.origin()).isEqualTo(DirectorySnapshot.Origin.SAVED_FILE);
        assertThat(back.loaded()).isTrue();
        assertThat(back.cursor()).isEqualTo(42);
        Map<RuleScope, RateLimitRule> rules = new HashMap<>();
        back.rules().forEachRule(rules::put);
        assertThat(rules).isEqualTo(Map.of(new RuleScope("shop-a", "create-order"), EXACT,
                new RuleScope("shop-a", ScopedRule.ANY_ROUTE), SHADOW));
        assertThat(back.rules().size()).isEqualTo(2);
        assertThat(back.rules().defaultRule()).isEqualTo(DEFAULT);
        assertThat(back.tenantByKey().get(ApiKeys.hash(key))).isEqualTo("shop-a");
        assertThat(back.tenantByKey().get(ApiKeys.hash("other"))).isEqualTo("shop-b");
        assertThat(back.tenantByKey().size()).isEqualTo(2);
        assertThat(back.limits().plans()).isEqualTo(Map.of("free", FREE));
        assertThat(back.limits().planOf("shop-b")).isEqualTo(FREE);
        assertThat(back.limits().tenantPlans().size()).isEqualTo(1);
        assertThat(restored.age()).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void aFileOfTheFormatBeforePlansIsReadWithNoPlans() throws IOException {
        LocalStateDirectory folder = new LocalStateDirectory(temporary, KEY);
        file(DATABASE).save(DirectorySnapshot.fromDatabase(PlanBook.of(snapshot.rules(), "default"),
                snapshot.tenantByKey(), 42));
        byte[] content;
        try (java.io.InputStream in = folder.read(SnapshotFile.FILE_NAME).orElseThrow()) {
            content = in.readAllBytes();
        }
        // Format 2 is format 3 without the two counts (0 plans, 0 tenants' plans) at the end.
        byte[] formatTwo = java.util.Arrays.copyOf(content, content.length - 8);
        ByteBuffer.wrap(formatTwo).putInt("TOLLGATE-DIRECTORY-SNAPSHOT\n".length(), 2);
        folder.write(SnapshotFile.FILE_NAME, out -> out.write(formatTwo));

        DirectorySnapshot back = file(DATABASE).read(DEFAULT, "default").orElseThrow().snapshot();
        assertThat(back.rules().size()).isEqualTo(2);
        assertThat(back.tenantByKey().get(ApiKeys.hash(key))).isEqualTo("shop-a");
        assertThat(back.limits().plans()).isEmpty();
        assertThat(back.limits().limitsFor("shop-b", "r").singleBucket()).isSameAs(DEFAULT);
    }

    @Test
    void aClockSetBackSinceTheSaveGivesAnAgeOfZeroNotANegativeOne() throws IOException {
        file(DATABASE).save(snapshot);
        timeOfDay.addAndGet(-5_000);

        assertThat(file(DATABASE).read(DEFAULT, "default").orElseThrow().age()).isEqualTo(Duration.ZERO);
    }

    @Test
    void itHoldsKeyHashesNeverKeysNorTheDatabasePassword() throws IOException {
        file(DATABASE).save(snapshot);
        String content = new String(Files.readAllBytes(file(DATABASE).path()), StandardCharsets.ISO_8859_1);
        assertThat(content).contains(ApiKeys.hash(key)).doesNotContain(key).doesNotContain("secret");
    }

    @Test
    void noFileIsNoSnapshot(CapturedOutput output) {
        assertThat(file(DATABASE).read(DEFAULT, "default")).isEmpty();
        assertThat(output).contains("No saved directory snapshot at " + file(DATABASE).path());
    }

    @Test
    void aCorruptFileIsRefusedSayingSo(CapturedOutput output) throws IOException {
        file(DATABASE).save(snapshot);
        byte[] bytes = Files.readAllBytes(file(DATABASE).path());
        bytes[bytes.length / 2] ^= 0x01;
        Files.write(file(DATABASE).path(), bytes);

        assertThat(file(DATABASE).read(DEFAULT, "default")).isEmpty();
        assertThat(output).contains("Refusing the saved directory snapshot " + file(DATABASE).path()
                + ": its authentication tag does not match");
    }

    @Test
    void aTruncatedFileIsRefused(CapturedOutput output) throws IOException {
        file(DATABASE).save(snapshot);
        byte[] bytes = Files.readAllBytes(file(DATABASE).path());
        Files.write(file(DATABASE).path(), java.util.Arrays.copyOf(bytes, bytes.length - 40));

        assertThat(file(DATABASE).read(DEFAULT, "default")).isEmpty();
        assertThat(output).contains("its authentication tag does not match");
    }

    @Test
    void aSnapshotWrittenByAnotherDeploymentIsRefusedAndCounted(CapturedOutput output) throws IOException {
        LocalStateDirectory theirs = new LocalStateDirectory(temporary,
                LocalStateKey.derivedFrom("another deployment's secret", "test"));
        new SnapshotFile(theirs, DATABASE, this::now).save(snapshot);

        LocalStateDirectory ours = new LocalStateDirectory(temporary, KEY);
        assertThat(new SnapshotFile(ours, DATABASE, this::now).read(DEFAULT, "default")).isEmpty();
        assertThat(output).contains("Refusing the saved directory snapshot " + file(DATABASE).path()
                + ": its authentication tag does not match: it was not written by this deployment");
        assertThat(ours.refusals(SnapshotFile.FILE_NAME)).isEqualTo(1);
    }

    /**
     * What anyone could write before snapshots were authenticated: the format-1 layout, with the
     * database's fingerprint (public knowledge) and a SHA-256 of it all, naming a key of their own at a
     * limit of 10^9. It was loaded; now it is refused.
     */
    @Test
    void aForgedSnapshotInTheUnauthenticatedFormatIsRefused(CapturedOutput output) throws Exception {
        String attackersKey = ApiKeys.generate();
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.security.MessageDigest sha256 = java.security.MessageDigest.getInstance("SHA-256");
        try (java.io.DataOutputStream data = new java.io.DataOutputStream(
                new java.security.DigestOutputStream(bytes, sha256))) {
            data.write("TOLLGATE-DIRECTORY-SNAPSHOT\n".getBytes(StandardCharsets.US_ASCII));
            data.writeInt(1);
            data.write(java.security.MessageDigest.getInstance("SHA-256").digest(
                    "postgresql\njdbc:postgresql://db:5432/tollgate\ngateway".getBytes(StandardCharsets.UTF_8)));
            data.writeLong(System.currentTimeMillis());
            data.writeLong(42);
            data.writeInt(1);
            data.writeUTF("mallory");
            data.writeUTF(ScopedRule.ANY_ROUTE);
            data.writeLong(1_000_000_000L);
            data.writeDouble(1_000_000_000d);
            data.writeLong(1);
            data.writeBoolean(false);
            data.writeInt(1);
            data.writeInt(1);
            data.writeUTF(ApiKeys.hash(attackersKey));
            data.writeUTF("mallory");
            data.flush();
            bytes.write(sha256.digest());
        }
        Files.write(file(DATABASE).path(), bytes.toByteArray());
        Files.setPosixFilePermissions(file(DATABASE).path(),
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));

        assertThat(file(DATABASE).read(DEFAULT, "default")).isEmpty();
        assertThat(output).contains("Refusing the saved directory snapshot " + file(DATABASE).path()
                + ": its authentication tag does not match");
    }

    @Test
    void aSnapshotOfAnotherDatabaseIsRefused(CapturedOutput output) throws IOException {
        file(DATABASE).save(snapshot);
        DatabaseEndpoint other = new DatabaseEndpoint("jdbc:postgresql://other:5432/tollgate", "gateway", "");

        assertThat(file(other).read(DEFAULT, "default")).isEmpty();
        assertThat(output).contains("it was saved from another database than jdbc:postgresql://other:5432/tollgate"
                + " as user 'gateway' in the connection's default schema");
        // The same database and user, another schema: another directory, and the refusal says which.
        DatabaseEndpoint otherSchema = new DatabaseEndpoint(DATABASE.url(), DATABASE.username(), "", "limits");
        assertThat(file(otherSchema).read(DEFAULT, "default")).isEmpty();
        assertThat(output).contains("it was saved from another database than jdbc:postgresql://db:5432/tollgate"
                + " as user 'gateway' in schema 'limits'");
        // The same database named with other query parameters is the same database.
        DatabaseEndpoint sameWithOptions = new DatabaseEndpoint("jdbc:postgresql://db:5432/tollgate?ssl=true",
                "gateway", "secret");
        assertThat(file(sameWithOptions).read(DEFAULT, "default")).isPresent();
    }

    @Test
    void aFileThatIsNoSnapshotOrOfAnotherFormatIsRefused(CapturedOutput output) throws IOException {
        LocalStateDirectory folder = new LocalStateDirectory(temporary, KEY);
        folder.write(SnapshotFile.FILE_NAME, out -> out.write("instances=3\n".getBytes(StandardCharsets.US_ASCII)));
        assertThat(file(DATABASE).read(DEFAULT, "default")).isEmpty();
        assertThat(output).contains("it is not a Tollgate directory snapshot");

        file(DATABASE).save(snapshot);
        byte[] content;
        try (java.io.InputStream in = folder.read(SnapshotFile.FILE_NAME).orElseThrow()) {
            content = in.readAllBytes();
        }
        int versionAt = "TOLLGATE-DIRECTORY-SNAPSHOT\n".length();
        ByteBuffer.wrap(content).putInt(versionAt, SnapshotFile.FORMAT_VERSION + 1);
        folder.write(SnapshotFile.FILE_NAME, out -> out.write(content));
        assertThat(file(DATABASE).read(DEFAULT, "default")).isEmpty();
        assertThat(output).contains("it is in format 4, this Tollgate reads formats 2 and 3");
    }

    @Test
    void theSaverWritesTheNewestSnapshot() throws IOException {
        SnapshotFile target = file(DATABASE);
        SnapshotSaver saver = new SnapshotSaver(target, Runnable::run);
        saver.save(DirectorySnapshot.fromDatabase(PlanBook.of(RuleSet.of(DEFAULT, List.of()), "default"), LayeredMap.empty(), 1));
        saver.save(snapshot);

        Optional<SnapshotFile.Restored> restored = target.read(DEFAULT, "default");
        assertThat(restored).isPresent();
        assertThat(restored.get().snapshot().cursor()).isEqualTo(42);
    }
}
