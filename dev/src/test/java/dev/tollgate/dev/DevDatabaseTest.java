package dev.tollgate.dev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The arguments of dev mode's database alone (its server is the testkit's, tested there). */
class DevDatabaseTest {

    @Test
    void itsPortIsTheDefaultOrTheOneGiven() {
        assertThat(DevDatabase.port(new String[] {"--database-only"})).isEqualTo(15432);
        assertThat(DevDatabase.port(new String[] {"--database-only", "--tollgate.dev.postgres.port=25432"}))
                .isEqualTo(25432);
    }

    @Test
    void anyOtherSettingIsRefusedSayingWhichOneIsTaken() {
        assertThatThrownBy(() -> DevDatabase.port(new String[] {"--database-only", "--server.port=1"}))
                .hasMessage("with --database-only the only setting is --tollgate.dev.postgres.port=N,"
                        + " was --server.port=1");
        assertThatThrownBy(() -> DevDatabase.port(new String[] {"--tollgate.dev.postgres.port=x"}))
                .hasMessage("tollgate.dev.postgres.port must be a port number, was 'x'");
    }
}
