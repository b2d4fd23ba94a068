package dev.tollgate.spring.instances;

import dev.tollgate.spring.localstate.LocalStateDirectory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last instance count learnt from a heartbeat, kept on local disk ({@value #FILE_NAME} in
 * {@code tollgate.local-state.directory}) so that an instance that starts while neither Redis nor
 * PostgreSQL answers divides by the N its fleet last had rather than by the configured floor alone.
 * Two lines: {@value #HEADER} and the count. A file of another shape is refused with a WARN line.
 */
public final class SavedInstanceCount {

    public static final String FILE_NAME = "instance-count";
    static final String HEADER = "tollgate-instance-count 1";

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
            List<String> lines = Files.readAllLines(path(), StandardCharsets.US_ASCII);
            if (lines.size() != 2 || !HEADER.equals(lines.get(0))) {
                log.warn("Refusing the saved instance count {}: not a Tollgate instance count", path());
                return OptionalInt.empty();
            }
            int count = Integer.parseInt(lines.get(1).strip());
            if (count < 1) {
                log.warn("Refusing the saved instance count {}: {} is not a count of instances", path(), count);
                return OptionalInt.empty();
            }
            return OptionalInt.of(count);
        } catch (NoSuchFileException e) {
            return OptionalInt.empty();
        } catch (IOException | RuntimeException e) {
            log.warn("Refusing the saved instance count {}: it cannot be read ({})", path(), e.toString());
            return OptionalInt.empty();
        }
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
