package dev.tollgate.bench.load;

import java.util.concurrent.atomic.LongAdder;

/** How the requests of one run ended, counted from any thread: 2xx, 429, other status, no answer. */
final class Outcomes {

    final LongAdder ok = new LongAdder();
    final LongAdder limited = new LongAdder();
    final LongAdder other = new LongAdder();
    final LongAdder errors = new LongAdder();

    /** Counts a response; returns whether it was a 2xx. */
    boolean response(int status) {
        if (status >= 200 && status < 300) {
            ok.increment();
            return true;
        }
        (status == 429 ? limited : other).increment();
        return false;
    }

    void error() {
        errors.increment();
    }
}
