package dev.tollgate.core.address;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CidrTest {

    private static boolean in(String cidr, String address) {
        return Cidr.parse(cidr).contains(IpAddress.parse(address));
    }

    @Test
    void blocksContainExactlyTheirAddresses() {
        assertThat(in("10.0.0.0/8", "10.255.1.2")).isTrue();
        assertThat(in("10.0.0.0/8", "11.0.0.0")).isFalse();
        assertThat(in("192.168.16.0/20", "192.168.31.255")).isTrue();
        assertThat(in("192.168.16.0/20", "192.168.32.0")).isFalse();
        assertThat(in("192.168.16.0/20", "192.168.15.255")).isFalse();
        assertThat(in("0.0.0.0/0", "203.0.113.9")).isTrue();
        assertThat(in("203.0.113.9", "203.0.113.9")).isTrue();
        assertThat(in("203.0.113.9", "203.0.113.8")).isFalse();
        assertThat(in("2001:db8::/32", "2001:db8:ffff::1")).isTrue();
        assertThat(in("2001:db8::/32", "2001:db9::1")).isFalse();
        assertThat(in("2001:db8:1:2::/63", "2001:db8:1:3::1")).isTrue();
        assertThat(in("2001:db8:1:2::/63", "2001:db8:1:4::1")).isFalse();
        assertThat(in("::1", "::1")).isTrue();
        assertThat(in("10.1.2.3/8", "10.9.9.9")).as("bits past the prefix ignored").isTrue();
    }

    @Test
    void familiesNeverMixButMappedAddressesAreIpv4() {
        assertThat(in("0.0.0.0/0", "2001:db8::1")).isFalse();
        assertThat(in("::/0", "192.0.2.1")).isFalse();
        assertThat(in("10.0.0.0/8", "::ffff:10.1.1.1")).isTrue();
        assertThat(in("::ffff:10.0.0.0/104", "10.1.1.1")).isTrue();
        assertThat(in("::ffff:10.0.0.0/104", "11.1.1.1")).isFalse();
    }

    @Test
    void badBlocksAreRefused() {
        for (String bad : new String[] {"10.0.0.0/33", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8", "2001:db8::/129",
                "::ffff:10.0.0.0/95", "example.com/8", "", "10.0.0.0/ 8", "10.0.0.0/0x8"}) {
            assertThat(Cidr.isCidr(bad)).as(bad).isFalse();
        }
        assertThat(Cidr.isCidr(" 10.0.0.0/8 ")).isTrue();
        assertThat(Cidr.parse("10.1.2.3/8")).hasToString("10.0.0.0/8");
    }
}
