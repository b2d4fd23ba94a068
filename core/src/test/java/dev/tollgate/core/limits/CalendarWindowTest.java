package dev.tollgate.core.limits;

import static dev.tollgate.core.RandomizedCheck.between;
import static dev.tollgate.core.RandomizedCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

class CalendarWindowTest {

    private static final ZoneId UTC = ZoneOffset.UTC;
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    private static final long HOUR = Duration.ofHours(1).toMillis();

    private static long millis(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }

    private static long local(String localDateTime, ZoneId zone, ZoneOffset offset) {
        return ZonedDateTime.ofLocal(LocalDateTime.parse(localDateTime), zone, offset).toInstant().toEpochMilli();
    }

    private static CalendarWindow window(QuotaPeriod period, ZoneId zone, long millis) {
        return CalendarWindow.containing(period, zone, millis);
    }

    @Test
    void theLastMillisecondOfADayAndTheFirstOfTheNextAreInTwoWindows() {
        CalendarWindow before = window(QuotaPeriod.DAY, UTC, millis("2026-12-31T23:59:59.999Z"));
        CalendarWindow after = window(QuotaPeriod.DAY, UTC, millis("2027-01-01T00:00:00.000Z"));

        assertThat(before.startMillis()).isEqualTo(millis("2026-12-31T00:00:00Z"));
        assertThat(before.endMillis()).isEqualTo(millis("2027-01-01T00:00:00Z"));
        assertThat(after.startMillis()).isEqualTo(before.endMillis());
        assertThat(after.id()).isGreaterThan(before.id()).isEqualTo(millis("2027-01-01T00:00:00Z") / 1000);
        assertThat(before.next()).isEqualTo(after);
        assertThat(after.previous()).isEqualTo(before);
        // ... and in a year's last minute, hour and month too.
        for (QuotaPeriod period : QuotaPeriod.values()) {
            assertThat(window(period, UTC, millis("2026-12-31T23:59:59.999Z")).endMillis())
                    .as(period.wireName()).isEqualTo(millis("2027-01-01T00:00:00Z"));
            assertThat(window(period, UTC, millis("2027-01-01T00:00:00Z")).startMillis())
                    .as(period.wireName()).isEqualTo(millis("2027-01-01T00:00:00Z"));
        }
    }

    @Test
    void monthsHaveTheirOwnLengthsLeapFebruaryIncluded() {
        long day = Duration.ofDays(1).toMillis();
        assertThat(window(QuotaPeriod.MONTH, UTC, millis("2028-02-29T23:59:59.999Z")).lengthMillis()).isEqualTo(29 * day);
        assertThat(window(QuotaPeriod.MONTH, UTC, millis("2027-02-14T12:00:00Z")).lengthMillis()).isEqualTo(28 * day);
        assertThat(window(QuotaPeriod.MONTH, UTC, millis("2027-04-30T23:59:59.999Z")).lengthMillis()).isEqualTo(30 * day);
        assertThat(window(QuotaPeriod.MONTH, UTC, millis("2027-01-01T00:00:00Z")).lengthMillis()).isEqualTo(31 * day);

        CalendarWindow leapFebruary = window(QuotaPeriod.MONTH, UTC, millis("2028-02-29T23:59:59.999Z"));
        assertThat(leapFebruary.startMillis()).isEqualTo(millis("2028-02-01T00:00:00Z"));
        assertThat(leapFebruary.endMillis()).isEqualTo(millis("2028-03-01T00:00:00Z"));
        assertThat(window(QuotaPeriod.MONTH, UTC, millis("2028-03-01T00:00:00Z")).startMillis())
                .isEqualTo(millis("2028-03-01T00:00:00Z"));
        assertThat(window(QuotaPeriod.DAY, UTC, millis("2028-02-29T00:00:00Z")).endMillis())
                .isEqualTo(millis("2028-03-01T00:00:00Z"));
    }

    @Test
    void berlinDaysOfTheClockChangesAre23And25Hours() {
        // 2026: clocks go forward on 29 March (02:00 CET -> 03:00 CEST), back on 25 October (03:00 CEST -> 02:00 CET).
        CalendarWindow spring = window(QuotaPeriod.DAY, BERLIN, millis("2026-03-29T12:00:00Z"));
        assertThat(spring.startMillis()).isEqualTo(millis("2026-03-28T23:00:00Z"));
        assertThat(spring.endMillis()).isEqualTo(millis("2026-03-29T22:00:00Z"));
        assertThat(spring.lengthMillis()).isEqualTo(23 * HOUR);

        CalendarWindow autumn = window(QuotaPeriod.DAY, BERLIN, millis("2026-10-25T12:00:00Z"));
        assertThat(autumn.startMillis()).isEqualTo(millis("2026-10-24T22:00:00Z"));
        assertThat(autumn.endMillis()).isEqualTo(millis("2026-10-25T23:00:00Z"));
        assertThat(autumn.lengthMillis()).isEqualTo(25 * HOUR);

        // The month that holds a change is an hour short (March) or long (October).
        assertThat(window(QuotaPeriod.MONTH, BERLIN, millis("2026-03-15T00:00:00Z")).lengthMillis())
                .isEqualTo(31 * 24 * HOUR - HOUR);
        assertThat(window(QuotaPeriod.MONTH, BERLIN, millis("2026-10-15T00:00:00Z")).lengthMillis())
                .isEqualTo(31 * 24 * HOUR + HOUR);
    }

    @Test
    void berlinRepeatedHourIsTwoWindowsAndTheSkippedHourNone() {
        ZoneOffset cest = ZoneOffset.ofHours(2);
        ZoneOffset cet = ZoneOffset.ofHours(1);
        // Fall back: local 02:00-03:00 happens twice, first in CEST (00:00Z-01:00Z), then in CET (01:00Z-02:00Z).
        CalendarWindow first = window(QuotaPeriod.HOUR, BERLIN, local("2026-10-25T02:30", BERLIN, cest));
        CalendarWindow second = window(QuotaPeriod.HOUR, BERLIN, local("2026-10-25T02:30", BERLIN, cet));
        assertThat(first.startMillis()).isEqualTo(millis("2026-10-25T00:00:00Z"));
        assertThat(first.endMillis()).isEqualTo(millis("2026-10-25T01:00:00Z"));
        assertThat(second.startMillis()).isEqualTo(millis("2026-10-25T01:00:00Z"));
        assertThat(second.endMillis()).isEqualTo(millis("2026-10-25T02:00:00Z"));
        assertThat(first.next()).isEqualTo(second);

        // Spring forward: local 01:00-02:00 CET is 00:00Z-01:00Z, then local 03:00 CEST starts at 01:00Z.
        CalendarWindow beforeGap = window(QuotaPeriod.HOUR, BERLIN, millis("2026-03-29T00:59:59.999Z"));
        CalendarWindow afterGap = window(QuotaPeriod.HOUR, BERLIN, millis("2026-03-29T01:00:00Z"));
        assertThat(beforeGap.startMillis()).isEqualTo(millis("2026-03-29T00:00:00Z"));
        assertThat(beforeGap.endMillis()).isEqualTo(millis("2026-03-29T01:00:00Z"));
        assertThat(afterGap.startMillis()).isEqualTo(millis("2026-03-29T01:00:00Z"));
        assertThat(afterGap.lengthMillis()).isEqualTo(HOUR);
    }

    @Test
    void newYorkClockChanges() {
        // 2026: forward on 8 March (02:00 EST -> 03:00 EDT), back on 1 November (02:00 EDT -> 01:00 EST).
        CalendarWindow spring = window(QuotaPeriod.DAY, NEW_YORK, millis("2026-03-08T12:00:00Z"));
        assertThat(spring.startMillis()).isEqualTo(millis("2026-03-08T05:00:00Z"));
        assertThat(spring.lengthMillis()).isEqualTo(23 * HOUR);
        CalendarWindow autumn = window(QuotaPeriod.DAY, NEW_YORK, millis("2026-11-01T12:00:00Z"));
        assertThat(autumn.startMillis()).isEqualTo(millis("2026-11-01T04:00:00Z"));
        assertThat(autumn.endMillis()).isEqualTo(millis("2026-11-02T05:00:00Z"));
        assertThat(autumn.lengthMillis()).isEqualTo(25 * HOUR);

        // Local 01:00-02:00 twice: 05:00Z-06:00Z (EDT), then 06:00Z-07:00Z (EST).
        CalendarWindow edt = window(QuotaPeriod.HOUR, NEW_YORK, millis("2026-11-01T05:59:59.999Z"));
        CalendarWindow est = window(QuotaPeriod.HOUR, NEW_YORK, millis("2026-11-01T06:00:00Z"));
        assertThat(edt.startMillis()).isEqualTo(millis("2026-11-01T05:00:00Z"));
        assertThat(est.startMillis()).isEqualTo(millis("2026-11-01T06:00:00Z"));
        assertThat(est.endMillis()).isEqualTo(millis("2026-11-01T07:00:00Z"));
        // Minutes around the change keep their length.
        assertThat(window(QuotaPeriod.MINUTE, NEW_YORK, millis("2026-11-01T05:59:59.999Z")).endMillis())
                .isEqualTo(millis("2026-11-01T06:00:00Z"));
    }

    @Test
    void hoursInAHalfHourZoneFollowItsLocalClock() {
        ZoneId kolkata = ZoneId.of("Asia/Kolkata"); // +05:30, no DST
        CalendarWindow hour = window(QuotaPeriod.HOUR, kolkata, millis("2026-06-01T10:29:59.999Z"));
        assertThat(hour.startMillis()).isEqualTo(millis("2026-06-01T09:30:00Z"));
        assertThat(hour.endMillis()).isEqualTo(millis("2026-06-01T10:30:00Z"));
        CalendarWindow day = window(QuotaPeriod.DAY, kolkata, millis("2026-06-01T10:00:00Z"));
        assertThat(day.startMillis()).isEqualTo(millis("2026-05-31T18:30:00Z"));
    }

    @Test
    void aHalfHourClockChangeCutsTheHourWindowAtTheChange() {
        // Lord Howe Island goes from +10:30 to +11:00 at local 02:00 -> 02:30 (first Sunday of October).
        ZoneId lordHowe = ZoneId.of("Australia/Lord_Howe");
        long change = lordHowe.getRules().nextTransition(Instant.parse("2026-09-01T00:00:00Z")).getInstant().toEpochMilli();
        CalendarWindow before = window(QuotaPeriod.HOUR, lordHowe, change - 1);
        CalendarWindow after = window(QuotaPeriod.HOUR, lordHowe, change);
        assertThat(before.endMillis()).isEqualTo(change);
        assertThat(before.lengthMillis()).isEqualTo(HOUR);
        assertThat(after.startMillis()).isEqualTo(change);
        assertThat(after.lengthMillis()).isEqualTo(HOUR / 2);
    }

    @Test
    void windowsTileTheTimelineInEveryZoneAndPeriod() {
        List<ZoneId> zones = List.of(UTC, BERLIN, NEW_YORK, ZoneId.of("Asia/Kolkata"), ZoneId.of("Australia/Lord_Howe"),
                ZoneId.of("America/Santiago"), ZoneId.of("Asia/Kathmandu"), ZoneOffset.ofHoursMinutes(-3, -30));
        long from = millis("2025-01-01T00:00:00Z");
        long to = millis("2030-01-01T00:00:00Z");
        forAll(3000, random -> {
            ZoneId zone = zones.get(random.nextInt(zones.size()));
            QuotaPeriod period = QuotaPeriod.values()[random.nextInt(QuotaPeriod.values().length)];
            long t = between(random, from, to);
            CalendarWindow w = window(period, zone, t);
            assertThat(w.contains(t)).isTrue();
            assertThat(w.startMillis() % 1000).isZero();
            // Every instant of the window gives this window; the neighbours start and end at its ends.
            assertThat(window(period, zone, w.startMillis())).isEqualTo(w);
            assertThat(window(period, zone, w.endMillis() - 1)).isEqualTo(w);
            assertThat(w.next().startMillis()).isEqualTo(w.endMillis());
            assertThat(w.previous().endMillis()).isEqualTo(w.startMillis());
            // Nominal length, give or take the clock change it may hold (2025-2029 has changes on whole
            // minutes, of 30 or 60 minutes).
            switch (period) {
                case MINUTE -> assertThat(w.lengthMillis()).isEqualTo(60_000L);
                case HOUR -> assertThat(w.lengthMillis()).isBetween(HOUR / 2, HOUR);
                case DAY -> assertThat(w.lengthMillis()).isBetween(23 * HOUR, 25 * HOUR);
                case MONTH -> assertThat(w.lengthMillis()).isBetween(28 * 24 * HOUR - HOUR, 31 * 24 * HOUR + HOUR);
            }
            // Aligned to the local clock: a window starts on a whole local unit, or at a clock change.
            ZonedDateTime start = Instant.ofEpochMilli(w.startMillis()).atZone(zone);
            boolean atChange = zone.getRules().nextTransition(Instant.ofEpochMilli(w.startMillis() - 1)) != null
                    && zone.getRules().nextTransition(Instant.ofEpochMilli(w.startMillis() - 1)).getInstant()
                    .toEpochMilli() == w.startMillis();
            if (!atChange) {
                switch (period) {
                    case MINUTE -> assertThat(start.getSecond()).isZero();
                    case HOUR -> assertThat(start.getMinute() * 60 + start.getSecond()).isZero();
                    case DAY -> assertThat(start.toLocalTime().toSecondOfDay()).isZero();
                    case MONTH -> assertThat(start.getDayOfMonth() * 100_000 + start.toLocalTime().toSecondOfDay())
                            .isEqualTo(100_000);
                }
            }
        });
    }
}
