package dev.tollgate.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Script calls carry their own deadline; every other command keeps Lettuce's timeout. */
class CommandTimeoutsTest {

    private final TimeoutOptions options = CommandTimeouts.exceptScriptCalls(Duration.ofMillis(750));

    private long timeoutNanos(Command<String, String, ?> command) {
        TimeoutOptions.TimeoutSource source = options.getSource();
        return source.getTimeUnit().toNanos(source.getTimeout(new AsyncCommand<>(command)));
    }

    @Test
    void aScriptCallHasNoLettuceTimeout() {
        assertThat(options.isTimeoutCommands()).isTrue();
        assertThat(timeoutNanos(new Command<>(CommandType.EVALSHA, new LongsOutput()))).isZero();
    }

    @Test
    void anyOtherCommandKeepsTheTimeout() {
        assertThat(timeoutNanos(new Command<>(CommandType.PING, new StatusOutput<>(StringCodec.UTF8))))
                .isEqualTo(Duration.ofMillis(750).toNanos());
        // EVALSHA is not enough: only ScriptCalls' own reply type marks a call with its own deadline.
        assertThat(timeoutNanos(new Command<>(CommandType.EVALSHA, new StatusOutput<>(StringCodec.UTF8))))
                .isEqualTo(Duration.ofMillis(750).toNanos());
    }

    @Test
    void aTimeoutMustBePositive() {
        assertThatThrownBy(() -> CommandTimeouts.exceptScriptCalls(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
