package dev.tollgate.core.region;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RegionSharesTest {

    private static Map<String, BigDecimal> decimals(Object... regionThenShare) {
        Map<String, BigDecimal> shares = new LinkedHashMap<>();
        for (int i = 0; i < regionThenShare.length; i += 2) {
            shares.put((String) regionThenShare[i], new BigDecimal((String) regionThenShare[i + 1]));
        }
        return shares;
    }

    @Test
    void decimalsThatSumToOneBecomeExactMillionths() {
        RegionShares shares = RegionShares.ofDecimals(decimals("us", "0.3", "eu", "0.7"));
        assertThat(shares.ppm("eu")).isEqualTo(700_000);
        assertThat(shares.ppm("us")).isEqualTo(300_000);
        assertThat(shares.ppm("ap")).isZero();
        assertThat(shares.regions()).containsExactly("eu", "us");
        assertThat(shares.fractions()).containsExactly(Map.entry("eu", 0.7), Map.entry("us", 0.3));
        // 0.1 + 0.2 is not 0.3 in doubles; in decimals it is.
        assertThat(RegionShares.ofDecimals(decimals("a", "0.1", "b", "0.2", "c", "0.7")).ppm("c")).isEqualTo(700_000);
    }

    @Test
    void sharesThatDoNotSumToOneAreRefusedSayingWhatTheySumTo() {
        assertThatThrownBy(() -> RegionShares.ofDecimals(decimals("eu", "0.7", "us", "0.2")))
                .hasMessage("region shares must sum to 1, but eu 0.7 + us 0.2 = 0.9");
        assertThatThrownBy(() -> RegionShares.ofDecimals(decimals("eu", "0.7", "us", "0.4")))
                .hasMessageContaining("= 1.1");
    }

    @Test
    void badSharesAndNamesAreRefusedQuotingThem() {
        assertThatThrownBy(() -> RegionShares.ofDecimals(decimals("eu", "0", "us", "1")))
                .hasMessageContaining("'eu'").hasMessageContaining("was 0");
        assertThatThrownBy(() -> RegionShares.ofDecimals(decimals("eu", "0.0000005", "us", "0.9999995")))
                .hasMessageContaining("six decimals").hasMessageContaining("0.0000005");
        assertThatThrownBy(() -> RegionShares.ofDecimals(decimals("EU", "1"))).hasMessageContaining("'EU'");
        assertThatThrownBy(() -> RegionShares.ofDecimals(Map.of())).hasMessageContaining("at least one region");
        assertThatThrownBy(() -> RegionShares.ofPpm(Map.of("eu", 600_000, "us", 300_000)))
                .hasMessageContaining("were 900000");
    }

    @Test
    void theLargestDifferenceCoversRegionsOnlyOneSideNames() {
        RegionShares a = RegionShares.ofPpm(Map.of("eu", 700_000, "us", 300_000));
        RegionShares b = RegionShares.ofPpm(Map.of("eu", 600_000, "us", 300_000, "ap", 100_000));
        assertThat(a.maxDifferencePpm(b)).isEqualTo(100_000);
        assertThat(b.maxDifferencePpm(a)).isEqualTo(100_000);
        assertThat(a.maxDifferencePpm(a)).isZero();
    }
}
