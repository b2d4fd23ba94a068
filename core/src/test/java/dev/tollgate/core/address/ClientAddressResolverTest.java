package dev.tollgate.core.address;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The forwarding headers as proxies write them (and as clients forge them), and the address each leads to. */
class ClientAddressResolverTest {

    private static final byte[] LOAD_BALANCER = IpAddress.parse("10.0.0.5");
    private static final byte[] STRANGER = IpAddress.parse("203.0.113.50");
    private static final ClientAddressResolver PROXIES = new ClientAddressResolver(
            List.of(Cidr.parse("10.0.0.0/8"), Cidr.parse("2001:db8:ffff::/48")), 32, 64);

    private static String xff(byte[] peer, String... lines) {
        byte[] client = PROXIES.client(peer, ForwardingHops.xForwardedFor(List.of(lines)));
        return client == null ? null : IpAddress.text(client);
    }

    private static String forwarded(byte[] peer, String... lines) {
        byte[] client = PROXIES.client(peer, ForwardingHops.forwarded(List.of(lines)));
        return client == null ? null : IpAddress.text(client);
    }

    @Test
    void aHeaderFromAnUntrustedPeerIsIgnored() {
        assertThat(xff(STRANGER, "198.51.100.1")).isEqualTo("203.0.113.50");
        assertThat(forwarded(STRANGER, "for=198.51.100.1")).isEqualTo("203.0.113.50");
        ClientAddressResolver none = new ClientAddressResolver(List.of(), 32, 64);
        assertThat(none.client(LOAD_BALANCER, ForwardingHops.xForwardedFor(List.of("198.51.100.1"))))
                .isEqualTo(LOAD_BALANCER);
        assertThat(none.trustsProxies()).isFalse();
    }

    @Test
    void theRightMostUntrustedHopIsTheClient() {
        assertThat(xff(LOAD_BALANCER, "198.51.100.1")).isEqualTo("198.51.100.1");
        // client → proxy 10.1.1.1 → load balancer 10.0.0.5 → gateway
        assertThat(xff(LOAD_BALANCER, "198.51.100.1, 10.1.1.1")).isEqualTo("198.51.100.1");
        // the client forged the left-most entries; the proxies appended the truth
        assertThat(xff(LOAD_BALANCER, "6.6.6.6, 10.9.9.9, 198.51.100.1, 10.1.1.1")).isEqualTo("198.51.100.1");
        assertThat(xff(LOAD_BALANCER, "6.6.6.6", "198.51.100.1,10.1.1.1")).as("several lines are one list")
                .isEqualTo("198.51.100.1");
        assertThat(xff(LOAD_BALANCER, "10.2.2.2, 10.1.1.1")).as("all trusted: the left-most").isEqualTo("10.2.2.2");
        assertThat(xff(LOAD_BALANCER, "2001:db8:1:2::7, 2001:db8:ffff::1")).isEqualTo("2001:db8:1:2::7");
    }

    @Test
    void portsBracketsAndMappedAddressesAreRead() {
        assertThat(xff(LOAD_BALANCER, "198.51.100.1:4711")).isEqualTo("198.51.100.1");
        assertThat(xff(LOAD_BALANCER, "[2001:db8::17]:4711")).isEqualTo("2001:db8::17");
        assertThat(xff(LOAD_BALANCER, "[2001:db8::17]")).isEqualTo("2001:db8::17");
        assertThat(xff(LOAD_BALANCER, "::ffff:198.51.100.1")).isEqualTo("198.51.100.1");
        assertThat(xff(IpAddress.parse("::ffff:10.0.0.5"), "198.51.100.1")).as("a mapped peer is trusted")
                .isEqualTo("198.51.100.1");
        assertThat(forwarded(LOAD_BALANCER, "for=\"[2001:db8:cafe::17]:4711\"")).isEqualTo("2001:db8:cafe::17");
        assertThat(forwarded(LOAD_BALANCER, "for=\"198.51.100.1:47011\";proto=https")).isEqualTo("198.51.100.1");
        assertThat(forwarded(LOAD_BALANCER, "For=198.51.100.1;by=10.0.0.5")).isEqualTo("198.51.100.1");
        assertThat(forwarded(LOAD_BALANCER, "proto=http;for=\"198.51.100.1:_port\"")).isEqualTo("198.51.100.1");
    }

    @Test
    void forwardedListsHopsInElementsAndQuotedCommasDoNotSplitThem() {
        assertThat(forwarded(LOAD_BALANCER, "for=6.6.6.6, for=198.51.100.1, for=10.1.1.1")).isEqualTo("198.51.100.1");
        assertThat(forwarded(LOAD_BALANCER, "for=198.51.100.1;host=\"a,b\", for=10.1.1.1")).isEqualTo("198.51.100.1");
        assertThat(forwarded(LOAD_BALANCER, "for=198.51.100.1", "for=10.1.1.1")).isEqualTo("198.51.100.1");
    }

    @Test
    void unknownObfuscatedOrMalformedHopsMakeThePeerTheClient() {
        assertThat(forwarded(LOAD_BALANCER, "for=198.51.100.1, for=unknown")).isEqualTo("10.0.0.5");
        assertThat(forwarded(LOAD_BALANCER, "for=198.51.100.1, for=_hidden")).isEqualTo("10.0.0.5");
        assertThat(forwarded(LOAD_BALANCER, "for=198.51.100.1, proto=https")).as("an element without for=")
                .isEqualTo("10.0.0.5");
        assertThat(forwarded(LOAD_BALANCER, "for=\"198.51.100.1")).as("an open quote").isEqualTo("10.0.0.5");
        assertThat(xff(LOAD_BALANCER, "198.51.100.1, garbage")).isEqualTo("10.0.0.5");
        assertThat(xff(LOAD_BALANCER, "198.51.100.1,")).isEqualTo("10.0.0.5");
        assertThat(xff(LOAD_BALANCER, "")).isEqualTo("10.0.0.5");
        assertThat(xff(LOAD_BALANCER, "example.com")).as("never resolved").isEqualTo("10.0.0.5");
        assertThat(xff(LOAD_BALANCER, "1.2.3.4:99999")).isEqualTo("10.0.0.5");
        assertThat(xff(LOAD_BALANCER, "[::1")).isEqualTo("10.0.0.5");
        assertThat(xff(LOAD_BALANCER, ",".repeat(ForwardingHops.MAX_HOPS + 1))).isEqualTo("10.0.0.5");
        // a malformed hop left of the client is never reached
        assertThat(xff(LOAD_BALANCER, "garbage, 198.51.100.1")).isEqualTo("198.51.100.1");
        assertThat(PROXIES.client(null, ForwardingHops.xForwardedFor(List.of("198.51.100.1")))).isNull();
    }

    @Test
    void aThousandAddressesOfOneIpv6Slash64AreOneGroup() {
        Set<String> groups = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            groups.add(PROXIES.group(IpAddress.parse("2001:db8:1:2:" + Integer.toHexString(i * 37) + ":9:" + i + ":1")));
        }
        assertThat(groups).containsExactly("2001:db8:1:2::/64");
        assertThat(PROXIES.group(IpAddress.parse("2001:db8:1:3::1"))).isEqualTo("2001:db8:1:3::/64");
        assertThat(PROXIES.group(IpAddress.parse("198.51.100.1"))).isEqualTo("198.51.100.1/32");
        assertThat(PROXIES.group(IpAddress.parse("198.51.100.2"))).isEqualTo("198.51.100.2/32");
        ClientAddressResolver wide = new ClientAddressResolver(List.of(), 24, 48);
        assertThat(wide.group(IpAddress.parse("198.51.100.2"))).isEqualTo("198.51.100.0/24");
        assertThat(wide.group(IpAddress.parse("2001:db8:1:3::1"))).isEqualTo("2001:db8:1::/48");
    }
}
