package dev.tollgate.spring.edge;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What a request path means, decided once for route, rule and backend alike. Backends and proxies
 * read odd paths differently (Tomcat drops {@code ;parameters} and decodes {@code %2e} before
 * resolving {@code ..}; nginx merges slashes; some decode twice); a gateway that routes on one
 * reading and forwards a path the backend reads another way lets a request charged to one route
 * reach another. So the raw path is either put in one canonical form that every reading agrees on,
 * or refused:
 *
 * <ul>
 *   <li>Refused: any character outside printable ASCII, a backslash or a {@code ;} (path
 *       parameters); a segment that, percent-decoded once or repeatedly, is {@code .} or
 *       {@code ..}, or holds a {@code /}, {@code \}, {@code ;}, a control character or bytes that
 *       are not UTF-8; a {@code ..} that would climb above the root; a path not starting with
 *       {@code /}.</li>
 *   <li>Normalised: empty segments are merged ({@code //} is {@code /}), then the dot-segments
 *       {@code .} and {@code ..} are resolved as RFC 3986 §5.2.4 does. A trailing slash stays.</li>
 *   <li>Everything else, percent-encodings included, is kept exactly as sent.</li>
 * </ul>
 *
 * A path in canonical form holds no dot-segment, no empty segment and nothing that decodes to a
 * separator, so normalising it again, decoded or not, changes nothing.
 */
public final class RequestPath {

    /** The outcome: the path to use, or why the request is refused. */
    public sealed interface Outcome permits Canonical, Refused {
    }

    /** The canonical path; {@code changed} says whether it differs from the path as sent. */
    public record Canonical(String path, boolean changed) implements Outcome {
    }

    /** The path cannot be given one safe meaning; {@code reason} says why, without quoting it. */
    public record Refused(String reason) implements Outcome {
    }

    private RequestPath() {
    }

    /** Decides what the raw (still percent-encoded) path {@code rawPath} means. */
    public static Outcome canonical(String rawPath) {
        if (rawPath.isEmpty()) {
            return new Canonical(rawPath, false);
        }
        if (rawPath.charAt(0) != '/') {
            return new Refused("does not start with /");
        }
        boolean plain = true; // nothing that could need normalising or refusing
        char previous = 0;
        for (int i = 0; i < rawPath.length(); i++) {
            char c = rawPath.charAt(i);
            if (c <= 0x20 || c >= 0x7F) {
                return new Refused("contains a control, space or non-ASCII character");
            }
            if (c == '\\') {
                return new Refused("contains a backslash");
            }
            if (c == ';') {
                return new Refused("contains path parameters (;)");
            }
            if (c == '%' || (c == '.' && previous == '/') || (c == '/' && previous == '/')) {
                plain = false;
            }
            previous = c;
        }
        return plain ? new Canonical(rawPath, false) : resolve(rawPath);
    }

    private static Outcome resolve(String rawPath) {
        String[] segments = rawPath.substring(1).split("/", -1);
        List<String> kept = new ArrayList<>(segments.length);
        boolean trailingSlash = false;
        for (int i = 0; i < segments.length; i++) {
            String segment = segments[i];
            boolean last = i == segments.length - 1;
            if (segment.indexOf('%') >= 0) {
                String why = refusalOfEncoded(segment);
                if (why != null) {
                    return new Refused(why);
                }
            }
            if (segment.isEmpty() || segment.equals(".")) {
                trailingSlash = last;
            } else if (segment.equals("..")) {
                if (kept.isEmpty()) {
                    return new Refused("climbs above the root with ..");
                }
                kept.remove(kept.size() - 1);
                trailingSlash = last;
            } else {
                kept.add(segment);
                trailingSlash = false;
            }
        }
        StringBuilder path = new StringBuilder(rawPath.length());
        for (String segment : kept) {
            path.append('/').append(segment);
        }
        if (trailingSlash || kept.isEmpty()) {
            path.append('/');
        }
        String canonical = path.toString();
        return new Canonical(canonical, !canonical.equals(rawPath));
    }

    /** Why a segment with percent-encodings is refused, or null if it is not. */
    private static String refusalOfEncoded(String segment) {
        byte[] bytes = segment.getBytes(StandardCharsets.US_ASCII);
        // Decode until nothing changes: a backend that decodes twice must not find a separator either.
        for (byte[] decoded = percentDecode(bytes); decoded != bytes; decoded = percentDecode(bytes)) {
            bytes = decoded;
        }
        for (byte b : bytes) {
            if (b == '/' || b == '\\') {
                return "contains an encoded slash or backslash";
            }
            if (b == ';') {
                return "contains encoded path parameters (;)";
            }
            if ((b >= 0 && b < 0x20) || b == 0x7F) {
                return "contains an encoded control character";
            }
        }
        if ((bytes.length == 1 && bytes[0] == '.') || (bytes.length == 2 && bytes[0] == '.' && bytes[1] == '.')) {
            return "contains an encoded dot-segment";
        }
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
        } catch (CharacterCodingException e) {
            return "contains an encoding that is not UTF-8";
        }
        return null;
    }

    /** {@code bytes} with each {@code %XX} decoded; the same array if there was none. */
    private static byte[] percentDecode(byte[] bytes) {
        ByteArrayOutputStream out = null;
        for (int i = 0; i < bytes.length; i++) {
            int hi;
            int lo;
            if (bytes[i] == '%' && i + 2 < bytes.length && (hi = hex(bytes[i + 1])) >= 0
                    && (lo = hex(bytes[i + 2])) >= 0) {
                if (out == null) {
                    out = new ByteArrayOutputStream(bytes.length);
                    out.write(bytes, 0, i);
                }
                out.write((hi << 4) | lo);
                i += 2;
            } else if (out != null) {
                out.write(bytes[i]);
            }
        }
        return out == null ? bytes : out.toByteArray();
    }

    private static int hex(byte b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        if (b >= 'a' && b <= 'f') {
            return b - 'a' + 10;
        }
        if (b >= 'A' && b <= 'F') {
            return b - 'A' + 10;
        }
        return -1;
    }
}
