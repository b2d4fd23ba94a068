package dev.tollgate.spring.directory.snapshot;

import dev.tollgate.core.LayeredMap;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleSet;
import dev.tollgate.core.ScopedRule;
import dev.tollgate.core.WallClock;
import dev.tollgate.core.limits.Plan;
import dev.tollgate.core.limits.PlanBook;
import dev.tollgate.spring.directory.DirectorySnapshot;
import dev.tollgate.spring.localstate.LocalStateDirectory;
import dev.tollgate.spring.localstate.RefusedFileException;
import dev.tollgate.spring.plans.LimitDocument;
import dev.tollgate.spring.settings.DatabaseEndpoint;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last good snapshot of rules and API key hashes, kept on local disk ({@value #FILE_NAME} in
 * {@code tollgate.local-state.directory}) so that an instance that starts while PostgreSQL is
 * unreachable still checks each API key and applies each tenant's own rules, instead of sharing one
 * default-rule bucket per route among all keyed traffic (or answering 503).
 *
 * <p>It holds what the database holds: the hashes of the API keys, never the keys. It is written
 * whole or not at all, readable by its owner only and authenticated with the deployment's secret
 * ({@link LocalStateDirectory}); before use it is checked: a file that is not private, whose tag does
 * not match (written by another deployment or an older Tollgate, altered, truncated), that is not a
 * snapshot, of another format version, or that was saved from another database (another database
 * URL, query parameters aside, user name or schema) is refused with a WARN line
 * that says which, counted, and the instance starts as if there were none.
 *
 * <p>Format 3, in {@link DataOutputStream}'s encoding: the magic line
 * {@code TOLLGATE-DIRECTORY-SNAPSHOT\n}; the format version (int); the SHA-256 of the database's
 * identity (32 bytes); when it was saved (epoch ms, long); the change-log cursor (long); the rule
 * count (int) and each rule as tenant, route (UTF), capacity (long), refill per second (double),
 * cost (long), shadow (boolean), shards (int); the key count (int) and each key as hash, tenant
 * (UTF); the plan count (int) and each plan as name, limits (UTF: {@link LimitDocument}'s JSON array);
 * the count of tenants on a plan (int) and each as tenant, plan (UTF); then the folder's tag
 * (HMAC-SHA256). Format 2 is format 3 without plans and tenants' plans: it is still read, with no
 * plans. Format 1 ended with a plain SHA-256 that anyone could compute; it is refused.
 *
 * <p>The save time is wall-clock time, the only clock that means anything to a later process: the
 * age reported for a restored snapshot is as right as the host's clock across the restart.
 */
public final class SnapshotFile {

    public static final String FILE_NAME = "directory.snapshot";
    static final int FORMAT_VERSION = 3;
    /** The format before plans: read, with no plans. */
    static final int FORMAT_WITHOUT_PLANS = 2;

    private static final Logger log = LoggerFactory.getLogger(SnapshotFile.class);
    private static final byte[] MAGIC = "TOLLGATE-DIRECTORY-SNAPSHOT\n".getBytes(StandardCharsets.US_ASCII);
    private static final int SHA256_BYTES = 32;

    private final LocalStateDirectory folder;
    private final DatabaseEndpoint source;
    private final byte[] sourceFingerprint;
    private final WallClock wallClock;

    /** @param wallClock the time of day the save time is written and a restored snapshot's age read on */
    public SnapshotFile(LocalStateDirectory folder, DatabaseEndpoint source, WallClock wallClock) {
        this.folder = folder;
        this.source = source;
        this.wallClock = wallClock;
        this.sourceFingerprint = sha256().digest(("postgresql\n" + withoutQuery(source.url()) + "\n"
                + source.username()
                // Two schemas of one database hold two directories: a snapshot of one is not the other's.
                + (source.schema() == null ? "" : "\nschema " + source.schema())).getBytes(StandardCharsets.UTF_8));
    }

    public Path path() {
        return folder.file(FILE_NAME);
    }

    /** A snapshot read back from the file, and how long ago its content was saved. */
    public record Restored(DirectorySnapshot snapshot, Duration age) {
    }

    /** Replaces the file with {@code snapshot}, atomically. */
    void save(DirectorySnapshot snapshot) throws IOException {
        folder.write(FILE_NAME, out -> {
            DataOutputStream data = new DataOutputStream(out);
            data.write(MAGIC);
            data.writeInt(FORMAT_VERSION);
            data.write(sourceFingerprint);
            data.writeLong(wallClock.currentTimeMillis());
            data.writeLong(snapshot.cursor());
            data.writeInt(snapshot.rules().size());
            IOException[] failure = new IOException[1];
            snapshot.rules().forEachRule((scope, rule) -> {
                try {
                    if (failure[0] == null) {
                        data.writeUTF(scope.tenant());
                        data.writeUTF(scope.route());
                        data.writeLong(rule.capacity());
                        data.writeDouble(rule.refillPerSecond());
                        data.writeLong(rule.cost());
                        data.writeBoolean(rule.shadow());
                        data.writeInt(rule.shards());
                    }
                } catch (IOException e) {
                    failure[0] = e;
                }
            });
            data.writeInt(snapshot.tenantByKey().size());
            snapshot.tenantByKey().forEach((hash, tenant) -> {
                try {
                    if (failure[0] == null) {
                        data.writeUTF(hash);
                        data.writeUTF(tenant);
                    }
                } catch (IOException e) {
                    failure[0] = e;
                }
            });
            if (failure[0] != null) {
                throw failure[0];
            }
            Map<String, Plan> plans = snapshot.limits().plans();
            data.writeInt(plans.size());
            for (Plan plan : plans.values()) {
                data.writeUTF(plan.name());
                data.writeUTF(LimitDocument.toJson(plan.limits()));
            }
            data.writeInt(snapshot.limits().tenantPlans().size());
            snapshot.limits().tenantPlans().forEach((tenant, plan) -> {
                try {
                    if (failure[0] == null) {
                        data.writeUTF(tenant);
                        data.writeUTF(plan);
                    }
                } catch (IOException e) {
                    failure[0] = e;
                }
            });
            if (failure[0] != null) {
                throw failure[0];
            }
            data.flush();
        });
    }

    /**
     * The saved snapshot with {@code defaultRule} as its default rule and {@code defaultPlanName} as the
     * name of its default plan, if the file exists, is private, authentic, whole and was saved from this
     * database; otherwise empty, after a log line that says why.
     */
    public Optional<Restored> read(RateLimitRule defaultRule, String defaultPlanName) {
        Path path = path();
        try {
            Optional<InputStream> content = folder.read(FILE_NAME);
            if (content.isEmpty()) {
                log.info("No saved directory snapshot at {}", path);
                return Optional.empty();
            }
            try (DataInputStream in = new DataInputStream(new BufferedInputStream(content.get(), 1 << 16))) {
                int[] version = new int[1];
                String refusal = checkHeader(in, version);
                if (refusal != null) {
                    folder.refused(FILE_NAME);
                    log.warn("Refusing the saved directory snapshot {}: {}; starting without it", path, refusal);
                    return Optional.empty();
                }
                return Optional.of(parse(in, version[0], defaultRule, defaultPlanName));
            }
        } catch (RefusedFileException e) {
            log.warn("Refusing the saved directory snapshot {}: {}; starting without it", path, e.getMessage());
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            folder.refused(FILE_NAME);
            log.warn("Refusing the saved directory snapshot {}: it cannot be read ({}); starting without it",
                    path, e.toString());
            return Optional.empty();
        }
    }

    /**
     * Why the file cannot be used, or null if it can (the stream is then at the save time, and
     * {@code version[0]} the file's format).
     */
    private String checkHeader(DataInputStream in, int[] version) throws IOException {
        byte[] magic = in.readNBytes(MAGIC.length);
        if (!Arrays.equals(magic, MAGIC)) {
            return "it is not a Tollgate directory snapshot";
        }
        version[0] = in.readInt();
        if (version[0] != FORMAT_VERSION && version[0] != FORMAT_WITHOUT_PLANS) {
            return "it is in format " + version[0] + ", this Tollgate reads formats " + FORMAT_WITHOUT_PLANS
                    + " and " + FORMAT_VERSION;
        }
        if (!MessageDigest.isEqual(in.readNBytes(SHA256_BYTES), sourceFingerprint)) {
            return "it was saved from another database than "
                    + DatabaseEndpoint.withoutSecrets(withoutQuery(source.url())) + " as user '" + source.username()
                    + "' in " + (source.schema() == null ? "the connection's default schema"
                    : "schema '" + source.schema() + "'");
        }
        return null;
    }

    private Restored parse(DataInputStream in, int version, RateLimitRule defaultRule, String defaultPlanName)
            throws IOException {
        long savedAt = in.readLong();
        long cursor = in.readLong();
        int ruleCount = in.readInt();
        List<ScopedRule> rules = new ArrayList<>(Math.min(ruleCount, 1 << 20));
        for (int i = 0; i < ruleCount; i++) {
            rules.add(new ScopedRule(in.readUTF(), in.readUTF(), new RateLimitRule(in.readLong(), in.readDouble(),
                    in.readLong(), in.readBoolean(), in.readInt())));
        }
        int keyCount = in.readInt();
        Map<String, String> keys = new HashMap<>(Math.min(keyCount, 1 << 20) * 4 / 3 + 1);
        for (int i = 0; i < keyCount; i++) {
            keys.put(in.readUTF(), in.readUTF());
        }
        List<Plan> plans = new ArrayList<>();
        Map<String, String> tenantPlans = new HashMap<>();
        if (version >= FORMAT_VERSION) {
            int planCount = in.readInt();
            for (int i = 0; i < planCount; i++) {
                plans.add(LimitDocument.readPlan(in.readUTF(), in.readUTF()));
            }
            int tenantPlanCount = in.readInt();
            for (int i = 0; i < tenantPlanCount; i++) {
                tenantPlans.put(in.readUTF(), in.readUTF());
            }
        }
        if (in.read() >= 0) {
            throw new IOException("bytes after the end");
        }
        DirectorySnapshot snapshot = new DirectorySnapshot(DirectorySnapshot.Origin.SAVED_FILE,
                PlanBook.of(RuleSet.of(defaultRule, rules), plans, LayeredMap.of(tenantPlans), defaultPlanName),
                LayeredMap.of(keys), cursor);
        // A clock set back since the save would give a negative age: count it as new.
        Duration age = Duration.ofMillis(Math.max(0, wallClock.currentTimeMillis() - savedAt));
        return new Restored(snapshot, age);
    }

    private static String withoutQuery(String url) {
        int query = url.indexOf('?');
        return query < 0 ? url : url.substring(0, query);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
