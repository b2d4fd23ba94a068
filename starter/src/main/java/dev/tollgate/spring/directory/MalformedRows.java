package dev.tollgate.spring.directory;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where rule rows that break a rule's constraints are reported (possible only if someone wrote to
 * the table around the admin API): each is skipped, logged at WARN and counted in
 * {@code tollgate.directory.rejected.rows}; the rest of the load goes on.
 */
final class MalformedRows implements Consumer<String> {

    private static final Logger log = LoggerFactory.getLogger(MalformedRows.class);

    private final Counter counter;

    MalformedRows(MeterRegistry meters) {
        this.counter = Counter.builder("tollgate.directory.rejected.rows")
                .description("Rule rows skipped because they break a rule's constraints")
                .register(meters);
    }

    @Override
    public void accept(String problem) {
        counter.increment();
        log.warn("Skipped a malformed row: {}", problem);
    }
}
