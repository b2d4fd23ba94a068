package dev.tollgate.core.address;

import java.util.ArrayList;
import java.util.List;

/**
 * The hops a forwarding header lists, client first and nearest proxy last, each as the address the
 * hop was seen from or null where that is not an address: RFC 7239's {@code unknown}, an obfuscated
 * identifier ({@code _hidden}), an element without {@code for=}, or text that is no address. Never
 * throws: a header it cannot read at all is {@code null}, which callers treat as no word from any
 * proxy.
 *
 * <p>Both headers may come as several header lines; they are one list, in order (RFC 9110 §5.3).
 * Ports and brackets are dropped ({@code [2001:db8::1]:4711}, {@code 192.0.2.1:8080}).
 */
public final class ForwardingHops {

    /** Hops over this many make the header unreadable: no honest chain is that long, and the work stays bounded. */
    static final int MAX_HOPS = 64;

    private ForwardingHops() {
    }

    /** The hops of {@code X-Forwarded-For} lines ({@code client, proxy1, proxy2}), or null if unreadable. */
    public static List<byte[]> xForwardedFor(List<String> lines) {
        List<byte[]> hops = new ArrayList<>();
        for (String line : lines) {
            for (String node : line.split(",", -1)) {
                if (hops.size() == MAX_HOPS) {
                    return null;
                }
                hops.add(node(node.strip()));
            }
        }
        return hops;
    }

    /** The {@code for=} hops of {@code Forwarded} lines, or null if unreadable (an unclosed quote, say). */
    public static List<byte[]> forwarded(List<String> lines) {
        List<byte[]> hops = new ArrayList<>();
        for (String line : lines) {
            List<String> elements = split(line, ',');
            if (elements == null) {
                return null;
            }
            for (String element : elements) {
                if (hops.size() == MAX_HOPS) {
                    return null;
                }
                List<String> pairs = split(element, ';');
                if (pairs == null) {
                    return null;
                }
                byte[] hop = null;
                for (String pair : pairs) {
                    int equals = pair.indexOf('=');
                    if (equals > 0 && pair.substring(0, equals).strip().equalsIgnoreCase("for")) {
                        String value = unquoted(pair.substring(equals + 1).strip());
                        hop = value == null ? null : node(value);
                        break;
                    }
                }
                hops.add(hop);
            }
        }
        return hops;
    }

    /** {@code text} split at {@code separator} outside quoted strings, or null if a quote is left open. */
    private static List<String> split(String text, char separator) {
        List<String> parts = new ArrayList<>();
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quoted && c == '\\') {
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && c == separator) {
                parts.add(text.substring(start, i));
                start = i + 1;
            }
        }
        if (quoted) {
            return null;
        }
        parts.add(text.substring(start));
        return parts;
    }

    /** A token as is, a quoted string without its quotes and escapes; null if malformed. */
    private static String unquoted(String value) {
        if (value.isEmpty() || value.charAt(0) != '"') {
            return value;
        }
        if (value.length() < 2 || value.charAt(value.length() - 1) != '"') {
            return null;
        }
        StringBuilder out = new StringBuilder(value.length());
        for (int i = 1; i < value.length() - 1; i++) {
            char c = value.charAt(i);
            if (c == '\\' && i + 1 < value.length() - 1) {
                c = value.charAt(++i);
            }
            out.append(c);
        }
        return out.toString();
    }

    /**
     * The address of one node ({@code 192.0.2.1}, {@code 192.0.2.1:80}, {@code [2001:db8::1]},
     * {@code [2001:db8::1]:80}, bare {@code 2001:db8::1}), or null for anything else.
     */
    static byte[] node(String node) {
        if (node.isEmpty()) {
            return null;
        }
        if (node.charAt(0) == '[') {
            int close = node.indexOf(']');
            if (close < 0 || !port(node.substring(close + 1), true)) {
                return null;
            }
            return IpAddress.parse(node.substring(1, close));
        }
        int colon = node.indexOf(':');
        if (colon >= 0 && node.indexOf(':', colon + 1) < 0) {
            // one colon: an IPv4 address and its port (an IPv6 address has at least two)
            return port(node.substring(colon), false) ? IpAddress.parse(node.substring(0, colon)) : null;
        }
        return IpAddress.parse(node);
    }

    /** Whether {@code rest} is nothing (if allowed) or {@code :} and a port (0 to 65535, or an obfuscated one). */
    private static boolean port(String rest, boolean mayBeEmpty) {
        if (rest.isEmpty()) {
            return mayBeEmpty;
        }
        if (rest.length() < 2 || rest.charAt(0) != ':') {
            return false;
        }
        String port = rest.substring(1);
        if (port.charAt(0) == '_') {
            return true;
        }
        return port.length() <= 5 && port.chars().allMatch(c -> c >= '0' && c <= '9') && Integer.parseInt(port) <= 65535;
    }
}
