package dev.tollgate.core.limits;

import static dev.tollgate.core.RandomizedCheck.between;
import static dev.tollgate.core.RandomizedCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class WindowTableTest {

    private static final long FROM = Instant.parse("2020-01-01T00:00:00Z").toEpochMilli();
    private static final long TO = Instant.parse("2035-01-01T00:00:00Z").toEpochMilli();

    @Test
    void arithmeticGivesTheCalendarWindowsInFixedOffsetZones() {
        List<ZoneId> zones = List.of(ZoneOffset.UTC, ZoneId.of("UTC"), ZoneOffset.ofHoursMinutes(5, 30),
                ZoneOffset.ofHoursMinutes(-9, -30), ZoneOffset.ofHours(14));
        forAll(3000, random -> {
            ZoneId zone = zones.get(random.nextInt(zones.size()));
            QuotaPeriod period = QuotaPeriod.values()[random.nextInt(3)];
            long t = between(random, FROM, TO);
            assertThat(WindowTable.isArithmetic(period, zone)).isTrue();
            long start = WindowTable.fixedOffsetStart(period, WindowTable.fixedOffsetSeconds(zone), t);
            assertThat(start).isEqualTo(CalendarWindow.containing(period, zone, t).startMillis());
        });
    }

    @Test
    void redisTimeIsReadToTheMillisecondRoundedDown() {
        long midnight = Instant.parse("2027-01-01T00:00:00Z").getEpochSecond();
        // TIME at 23:59:59.999999 is still the old day; at 00:00:00.000000 the new one.
        long lastMicro = WindowTable.redisMillis(midnight - 1, 999_999);
        assertThat(lastMicro).isEqualTo(midnight * 1000 - 1);
        assertThat(CalendarWindow.containing(QuotaPeriod.DAY, ZoneOffset.UTC, lastMicro).endMillis()).isEqualTo(midnight * 1000);
        assertThat(WindowTable.redisMillis(midnight, 0)).isEqualTo(midnight * 1000);
    }

    @Test
    void zonesWithChangesAndMonthsAreNotArithmetic() {
        assertThat(WindowTable.isArithmetic(QuotaPeriod.DAY, ZoneId.of("Europe/Berlin"))).isFalse();
        assertThat(WindowTable.isArithmetic(QuotaPeriod.MONTH, ZoneOffset.UTC)).isFalse();
        assertThat(WindowTable.isArithmetic(QuotaPeriod.DAY, ZoneOffset.UTC)).isTrue();
        // A region with any change in its history is not a fixed offset, even if it has had none for decades:
        // the gateway then sends the table.
        assertThat(WindowTable.isArithmetic(QuotaPeriod.DAY, ZoneId.of("Asia/Kolkata"))).isFalse();
    }

    @Test
    void aClockUpToAWindowApartPicksItsOwnWindowFromTheTable() {
        List<ZoneId> zones = List.of(ZoneOffset.UTC, ZoneId.of("Europe/Berlin"), ZoneId.of("America/New_York"),
                ZoneId.of("Australia/Lord_Howe"));
        forAll(3000, random -> {
            ZoneId zone = zones.get(random.nextInt(zones.size()));
            QuotaPeriod period = QuotaPeriod.values()[random.nextInt(QuotaPeriod.values().length)];
            long gatewayClock = between(random, FROM, TO);
            long[] table = WindowTable.boundariesAround(period, zone, gatewayClock);
            assertThat(table).isSorted();
            long redisClock = gatewayClock + random.nextLong(-2 * 86_400_000L, 2 * 86_400_000L);
            int i = WindowTable.pick(table, redisClock);
            CalendarWindow truth = CalendarWindow.containing(period, zone, redisClock);
            if (i >= 0) {
                assertThat(table[i]).isEqualTo(truth.startMillis());
                assertThat(table[i + 1]).isEqualTo(truth.endMillis());
            } else {
                assertThat(redisClock < table[0] || redisClock >= table[3]).isTrue();
            }
            // Within the gateway's own window, the script always finds it.
            assertThat(WindowTable.pick(table, gatewayClock)).isEqualTo(1);
        });
    }
}
