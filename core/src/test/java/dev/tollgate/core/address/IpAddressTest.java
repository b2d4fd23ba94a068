package dev.tollgate.core.address;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class IpAddressTest {

    @Test
    void dottedQuadsOnly() {
        assertThat(IpAddress.parse("192.0.2.1")).containsExactly(192, 0, 2, 1);
        assertThat(IpAddress.parse("0.0.0.0")).containsExactly(0, 0, 0, 0);
        for (String bad : new String[] {"1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1..2.3", "1.2.3.4 ", "a.b.c.d",
                "", "1.2.3.-4", "localhost", "example.com", "0x7f.0.0.1"}) {
            assertThat(IpAddress.parse(bad)).as(bad).isNull();
        }
    }

    @Test
    void ipv6TextAsRfc4291WritesIt() throws Exception {
        assertThat(IpAddress.parse("::1")).isEqualTo(InetAddress.getByName("::1").getAddress());
        assertThat(IpAddress.parse("::")).hasSize(16).containsOnly(0);
        assertThat(IpAddress.parse("2001:DB8::8:800:200C:417A"))
                .isEqualTo(InetAddress.getByName("2001:db8::8:800:200c:417a").getAddress());
        assertThat(IpAddress.parse("2001:db8:0:0:1:0:0:1")).isEqualTo(IpAddress.parse("2001:db8::1:0:0:1"));
        assertThat(IpAddress.parse("64:ff9b::192.0.2.33")).isEqualTo(InetAddress.getByName("64:ff9b::c000:221").getAddress());
        for (String bad : new String[] {":::", "1::2::3", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "12345::", "g::1",
                "fe80::1%eth0", "[::1]", "::1.2.3", "1:2:3:4:5:6:7::8:9", ":1:2:3:4:5:6:7", "1:"}) {
            assertThat(IpAddress.parse(bad)).as(bad).isNull();
        }
    }

    @Test
    void anIpv4MappedAddressIsItsIpv4Address() {
        assertThat(IpAddress.parse("::ffff:192.0.2.1")).containsExactly(192, 0, 2, 1);
        assertThat(IpAddress.parse("::FFFF:c000:0201")).containsExactly(192, 0, 2, 1);
        assertThat(IpAddress.parse("::192.0.2.1")).as("IPv4-compatible is not mapped").hasSize(16);
    }

    @Test
    void textIsRfc5952AndRoundTrips() {
        assertThat(IpAddress.text(IpAddress.parse("2001:0db8:0000:0000:0001:0000:0000:0001"))).isEqualTo("2001:db8::1:0:0:1");
        assertThat(IpAddress.text(IpAddress.parse("2001:db8:0:1:1:1:1:1"))).isEqualTo("2001:db8:0:1:1:1:1:1");
        assertThat(IpAddress.text(IpAddress.parse("::"))).isEqualTo("::");
        assertThat(IpAddress.text(IpAddress.parse("1::"))).isEqualTo("1::");
        SplittableRandom random = new SplittableRandom(23);
        for (int i = 0; i < 10_000; i++) {
            byte[] address = new byte[16];
            for (int b = 0; b < 16; b++) {
                address[b] = random.nextInt(4) == 0 ? (byte) random.nextInt(256) : 0; // zero runs
            }
            byte[] normalized = IpAddress.normalized(address);
            assertThat(IpAddress.parse(IpAddress.text(normalized))).isEqualTo(normalized);
        }
    }

    @Test
    void prefixTextClearsTheBitsPastThePrefix() {
        assertThat(IpAddress.prefixText(IpAddress.parse("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), 64)).isEqualTo("2001:db8:1:2::/64");
        assertThat(IpAddress.prefixText(IpAddress.parse("2001:db8:1:2ff::1"), 56)).isEqualTo("2001:db8:1:200::/56");
        assertThat(IpAddress.prefixText(IpAddress.parse("198.51.100.77"), 32)).isEqualTo("198.51.100.77/32");
        assertThat(IpAddress.prefixText(IpAddress.parse("198.51.100.77"), 24)).isEqualTo("198.51.100.0/24");
        assertThat(IpAddress.prefixText(IpAddress.parse("198.51.100.77"), 1)).isEqualTo("128.0.0.0/1");
    }
}
