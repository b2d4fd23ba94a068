package dev.tollgate.core.address;

/**
 * Strict IP address literals, parsed by hand: {@code java.net.InetAddress} resolves any text that is
 * not a literal through DNS, and accepts legacy IPv4 forms ({@code 1.2.3}, octal) that proxies never
 * write. An address is its bytes: 4 for IPv4, 16 for IPv6; an IPv4-mapped IPv6 address
 * ({@code ::ffff:192.0.2.1}) is the IPv4 address it maps, so a client reached over a dual-stack socket
 * is one caller whichever way it came.
 */
public final class IpAddress {

    private IpAddress() {
    }

    /** The address {@code text} spells (dotted quad or RFC 4291 text, no zone, no brackets), or null. */
    public static byte[] parse(String text) {
        if (text == null || text.isEmpty() || text.length() > 45) {
            return null;
        }
        return text.indexOf(':') >= 0 ? normalized(parseV6(text)) : parseV4(text);
    }

    /** {@code address} with an IPv4-mapped IPv6 address turned into its IPv4 address; null stays null. */
    public static byte[] normalized(byte[] address) {
        if (address == null || address.length != 16) {
            return address;
        }
        for (int i = 0; i < 10; i++) {
            if (address[i] != 0) {
                return address;
            }
        }
        if (address[10] != (byte) 0xff || address[11] != (byte) 0xff) {
            return address;
        }
        return new byte[] {address[12], address[13], address[14], address[15]};
    }

    /** Whether {@code address} parsed from text with a {@code :} became an IPv4 address (it was IPv4-mapped). */
    static boolean mapped(String text, byte[] address) {
        return address != null && address.length == 4 && text.indexOf(':') >= 0;
    }

    private static byte[] parseV4(String text) {
        byte[] out = new byte[4];
        int part = 0;
        int value = 0;
        int digits = 0;
        for (int i = 0; i <= text.length(); i++) {
            char c = i < text.length() ? text.charAt(i) : '.';
            if (c == '.') {
                if (digits == 0 || part == 4) {
                    return null;
                }
                out[part++] = (byte) value;
                value = 0;
                digits = 0;
            } else if (c >= '0' && c <= '9') {
                if (digits > 0 && value == 0) {
                    return null; // a leading zero: octal to some parsers, decimal to others
                }
                value = value * 10 + (c - '0');
                if (++digits > 3 || value > 255) {
                    return null;
                }
            } else {
                return null;
            }
        }
        return part == 4 ? out : null;
    }

    private static byte[] parseV6(String text) {
        int gap = text.indexOf("::");
        if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
            return null;
        }
        byte[] out = new byte[16];
        if (gap < 0) {
            return groups(text, out, 0, 16) == 16 ? out : null;
        }
        String head = text.substring(0, gap);
        String tail = text.substring(gap + 2);
        byte[] back = new byte[16];
        int headBytes = head.isEmpty() ? 0 : groups(head, out, 0, 14);
        int tailBytes = tail.isEmpty() ? 0 : groups(tail, back, 0, 14);
        if (headBytes < 0 || tailBytes < 0 || headBytes + tailBytes > 14) {
            return null;
        }
        System.arraycopy(back, 0, out, 16 - tailBytes, tailBytes);
        return out;
    }

    /**
     * Parses {@code :}-separated groups (the last may be a dotted quad) into {@code out} from
     * {@code offset}; the bytes written, or -1 if malformed or over {@code max} bytes.
     */
    private static int groups(String text, byte[] out, int offset, int max) {
        int at = offset;
        int start = 0;
        while (true) {
            int end = text.indexOf(':', start);
            String group = end < 0 ? text.substring(start) : text.substring(start, end);
            if (end < 0 && group.indexOf('.') >= 0) {
                byte[] v4 = parseV4(group);
                if (v4 == null || at + 4 > max) {
                    return -1;
                }
                System.arraycopy(v4, 0, out, at, 4);
                return at + 4 - offset;
            }
            if (group.isEmpty() || group.length() > 4 || at + 2 > max) {
                return -1;
            }
            int value = 0;
            for (int i = 0; i < group.length(); i++) {
                int digit = Character.digit(group.charAt(i), 16);
                if (digit < 0) {
                    return -1;
                }
                value = value * 16 + digit;
            }
            out[at++] = (byte) (value >> 8);
            out[at++] = (byte) value;
            if (end < 0) {
                return at - offset;
            }
            start = end + 1;
        }
    }

    /**
     * {@code address} with every bit after the first {@code prefix} cleared, written as
     * {@code address/prefix}: dotted quad for IPv4, RFC 5952 text for IPv6 (lower case, the longest run
     * of two or more zero groups as {@code ::}). Distinct groups give distinct texts.
     */
    public static String prefixText(byte[] address, int prefix) {
        byte[] masked = address.clone();
        for (int bit = prefix; bit < masked.length * 8; bit++) {
            masked[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
        }
        return text(masked) + "/" + prefix;
    }

    /** {@code address} as text (see {@link #prefixText}). */
    public static String text(byte[] address) {
        if (address.length == 4) {
            return (address[0] & 0xff) + "." + (address[1] & 0xff) + "." + (address[2] & 0xff) + "." + (address[3] & 0xff);
        }
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((address[2 * i] & 0xff) << 8) | (address[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j;
        }
        StringBuilder out = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                out.append("::");
                i += bestLength - 1;
                continue;
            }
            if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
                out.append(':');
            }
            out.append(Integer.toHexString(groups[i]));
        }
        return out.toString();
    }
}
