package dev.tollgate.core.address;

/**
 * A block of IP addresses: {@code 10.0.0.0/8}, {@code 2001:db8::/32}, or one address alone
 * ({@code 192.0.2.7}, meaning {@code /32}; {@code ::1}, meaning {@code /128}). Bits past the prefix
 * are ignored, as most proxies' configurations do ({@code 10.1.2.3/8} is {@code 10.0.0.0/8}). An
 * IPv4-mapped block ({@code ::ffff:10.0.0.0/104}) is the IPv4 block it maps.
 */
public final class Cidr {

    private final byte[] network;
    private final int prefix;

    private Cidr(byte[] network, int prefix) {
        this.network = network;
        this.prefix = prefix;
    }

    /** The block {@code text} spells, or null if it spells none. */
    public static Cidr parse(String text) {
        if (text == null) {
            return null;
        }
        String trimmed = text.strip();
        int slash = trimmed.indexOf('/');
        String addressText = slash < 0 ? trimmed : trimmed.substring(0, slash);
        byte[] address = IpAddress.parse(addressText);
        if (address == null) {
            return null;
        }
        int bits = address.length * 8;
        int prefix = bits;
        if (slash >= 0) {
            String digits = trimmed.substring(slash + 1);
            if (digits.isEmpty() || digits.length() > 3 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
                return null;
            }
            prefix = Integer.parseInt(digits);
            if (IpAddress.mapped(addressText, address)) {
                prefix -= 96;
            }
            if (prefix < 0 || prefix > bits) {
                return null;
            }
        }
        return new Cidr(address, prefix);
    }

    /** Whether {@code text} spells a block. */
    public static boolean isCidr(String text) {
        return parse(text) != null;
    }

    /** Whether {@code address} (4 or 16 bytes, normalized) is in this block; an IPv4 address is never in an IPv6 block. */
    public boolean contains(byte[] address) {
        if (address == null || address.length != network.length) {
            return false;
        }
        int whole = prefix / 8;
        for (int i = 0; i < whole; i++) {
            if (address[i] != network[i]) {
                return false;
            }
        }
        int rest = prefix % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xff00 >>> rest) & 0xff;
        return (address[whole] & mask) == (network[whole] & mask);
    }

    @Override
    public String toString() {
        return IpAddress.prefixText(network, prefix);
    }
}
