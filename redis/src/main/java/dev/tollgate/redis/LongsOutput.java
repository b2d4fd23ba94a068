package dev.tollgate.redis;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import java.nio.ByteBuffer;

/**
 * A script's reply read straight into a {@code long[]}: an integer, or a flat array of integers.
 * Tollgate's scripts answer nothing else, and reading them this way boxes nothing. Only
 * {@link ScriptCalls} uses it, which is how {@link CommandTimeouts} tells its calls apart.
 */
final class LongsOutput extends CommandOutput<String, String, long[]> {

    private static final long[] NONE = new long[0];

    private int next;
    private boolean array;

    LongsOutput() {
        super(StringCodec.UTF8, null);
    }

    @Override
    public void multi(int count) {
        if (array) {
            setError("unexpected nested array in a script reply");
            return;
        }
        array = true;
        output = count <= 0 ? NONE : new long[count];
    }

    @Override
    public void set(long value) {
        if (!array) {
            output = new long[] {value};
        } else if (next < output.length) {
            output[next++] = value;
        } else {
            setError("a script reply longer than it announced");
        }
    }

    @Override
    public void set(ByteBuffer bytes) {
        setError("a script reply with a non-integer element");
    }
}
