package dev.tollgate.core.address;

import java.util.List;

/**
 * Which address a request comes from, and the group it is limited in. The connection's peer is the
 * client, unless the peer is a trusted proxy: then the client is the right-most hop of the forwarding
 * header that is not itself a trusted proxy. Each trusted proxy appends the address it was reached
 * from, so everything right of the first untrusted hop was written by proxies the operator trusts, and
 * everything left of it may be the client's own invention; the walk stops there.
 *
 * <p>Where the walk meets a hop that is not an address (RFC 7239's {@code unknown}, an obfuscated
 * identifier, garbage) or the header cannot be read, the client is the peer: never a guess further
 * left, which a client could have written, and never a failed request. A chain made of trusted proxies
 * only gives its left-most hop.
 *
 * <p>Groups: IPv4 addresses by {@code ipv4Prefix} leading bits, IPv6 ones by {@code ipv6Prefix} (one
 * customer usually holds a whole /64, so {@code /128} would give it 2^64 buckets).
 */
public final class ClientAddressResolver {

    private final List<Cidr> trustedProxies;
    private final int ipv4Prefix;
    private final int ipv6Prefix;

    public ClientAddressResolver(List<Cidr> trustedProxies, int ipv4Prefix, int ipv6Prefix) {
        if (ipv4Prefix < 1 || ipv4Prefix > 32 || ipv6Prefix < 1 || ipv6Prefix > 128) {
            throw new IllegalArgumentException("prefixes are 1 to 32 (IPv4) and 1 to 128 (IPv6)");
        }
        this.trustedProxies = List.copyOf(trustedProxies);
        this.ipv4Prefix = ipv4Prefix;
        this.ipv6Prefix = ipv6Prefix;
    }

    /** Whether any proxy is trusted: if not, the forwarding header is never read. */
    public boolean trustsProxies() {
        return !trustedProxies.isEmpty();
    }

    /** Whether {@code address} is a trusted proxy. */
    public boolean trusted(byte[] address) {
        for (Cidr proxy : trustedProxies) {
            if (proxy.contains(address)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The client's address.
     *
     * @param peer the connection's peer (normalized), or null if unknown
     * @param hops the forwarding header's hops ({@link ForwardingHops}), null if absent or unreadable
     * @return the client's address, or null only if {@code peer} is null and no proxy speaks for it
     */
    public byte[] client(byte[] peer, List<byte[]> hops) {
        if (peer == null || hops == null || hops.isEmpty() || !trusted(peer)) {
            return peer;
        }
        for (int i = hops.size() - 1; i >= 0; i--) {
            byte[] hop = hops.get(i);
            if (hop == null) {
                return peer;
            }
            if (!trusted(hop) || i == 0) {
                return hop;
            }
        }
        return peer; // not reached
    }

    /** The group {@code address} is limited in, as {@code address/prefix} ({@link IpAddress#prefixText}). */
    public String group(byte[] address) {
        return IpAddress.prefixText(address, address.length == 4 ? ipv4Prefix : ipv6Prefix);
    }
}
