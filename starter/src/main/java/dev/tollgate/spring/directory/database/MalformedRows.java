package dev.tollgate.spring.directory.database;

import dev.tollgate.core.LogText;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where rows the admin API would have refused are reported (possible only if someone wrote to the
 * tables around it): a rule that breaks a rule's constraints, a rule or key naming a tenant or route
 * id outside {@link dev.tollgate.spring.directory.Ids Ids}. Each is skipped, logged at WARN (the row's text escaped: an id written with
 * SQL may hold a line break) and counted in {@code tollgate.directory.rejected.rows}; the rest of the
 * load goes on.
 */
public final class MalformedRows implements Consumer<String> {

    private static final Logger log = LoggerFactory.getLogger(MalformedRows.class);

    private final Counter counter;

    public MalformedRows(MeterRegistry meters) {
        this.counter = Counter.builder("tollgate.directory.rejected.rows")
                .description("Rule and key rows skipped because the admin API would have refused them")
                .register(meters);
    }

    @Override
    public void accept(String problem) {
        counter.increment();
        log.warn("Skipped a malformed row: {}", LogText.escape(problem, 300));
    }
}
