package dev.tollgate.spring.instances;

import dev.tollgate.spring.localstate.LocalStateDirectory;
import dev.tollgate.spring.localstate.RefusedFileException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last instance count learnt from a heartbeat, kept on local disk ({@value #FILE_NAME} in
 * {@code tollgate.local-state.directory}) so that an instance that starts while neither Redis nor
 * PostgreSQL answers divides by the N its fleet last had rather than by the configured floor alone.
 * Two lines, {@value #HEADER} and the count, then the folder's tag ({@link LocalStateDirectory}). A
 * file that is not private, not authentic (another deployment's, the untagged format 1) or of another
 * shape is refused with a WARN line, and counted.
 */
public final class SavedInstanceCount {

    public static final String FILE_NAME = "instance-count";
    static final String HEADER = "tollgate-instance-count 2";

    private static final Logger log = LoggerFactory.getLogger(SavedInstanceCount.class);

    private final LocalStateDirectory folder;

    public SavedInstanceCount(LocalStateDirectory folder) {
        this.folder = folder;
    }

    public Path path() {
        return folder.file(FILE_NAME);
    }

    /** The count saved, if there is a well-formed one; otherwise empty, after a log line that says why. */
    public OptionalInt read() {
        try {
            Optional<InputStream> content = folder.read(FILE_NAME);
            if (content.isEmpty()) {
                return OptionalInt.empty();
            }
            String text;
            try (InputStream in = content.get()) {
                text = new String(in.readNBytes(256), StandardCharsets.US_ASCII);
            }
            List<String> lines = text.lines().toList();
            if (lines.size() != 2 || !HEADER.equals(lines.get(0))) {
                return refused("not a Tollgate instance count");
            }
            int count = Integer.parseInt(lines.get(1).strip());
            if (count < 1) {
                return refused(count + " is not a count of instances");
            }
            return OptionalInt.of(count);
        } catch (RefusedFileException e) {
            log.warn("Refusing the saved instance count {}: {}", path(), e.getMessage());
            return OptionalInt.empty();
        } catch (IOException | RuntimeException e) {
            return refused("it cannot be read (" + e + ")");
        }
    }

    private OptionalInt refused(String reason) {
        folder.refused(FILE_NAME);
        log.warn("Refusing the saved instance count {}: {}", path(), reason);
        return OptionalInt.empty();
    }

    /** Replaces the saved count, atomically; a failure is logged and otherwise ignored. */
    public void save(int count) {
        try {
            folder.write(FILE_NAME, out -> out.write((HEADER + "\n" + count + "\n").getBytes(StandardCharsets.US_ASCII)));
        } catch (IOException e) {
            log.warn("Cannot save the instance count to {} ({})", path(), e.toString());
        }
    }
}
