package dev.tollgate.core;

/**
 * Text from outside (a request, a row written around the admin API) made safe for one log line: a
 * line break or other control character in it could forge log lines or corrupt a terminal. Control
 * characters (and {@code \} itself, so that the escapes are unambiguous) are written as {@code \xNN}
 * or {@code \\}; long text is cut, saying how much was left out.
 */
public final class LogText {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private LogText() {
    }

    /**
     * {@code text} with control characters escaped, cut after {@code maxChars} characters of it;
     * {@code null} for null.
     */
    public static String escape(String text, int maxChars) {
        if (text == null) {
            return null;
        }
        int end = Math.min(text.length(), maxChars);
        StringBuilder out = null;
        for (int i = 0; i < end; i++) {
            char c = text.charAt(i);
            boolean plain = c >= 0x20 && c != 0x7f && c != '\\' && !(c >= 0x80 && c <= 0x9f)
                    && c != '\u2028' && c != '\u2029';
            if (out == null) {
                if (plain) {
                    continue;
                }
                out = new StringBuilder(end + 16).append(text, 0, i);
            }
            if (plain) {
                out.append(c);
            } else if (c == '\\') {
                out.append("\\\\");
            } else if (c <= 0xff) {
                out.append("\\x").append(HEX[c >> 4]).append(HEX[c & 0xf]);
            } else {
                out.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xf]).append(HEX[(c >> 4) & 0xf])
                        .append(HEX[c & 0xf]);
            }
        }
        String escaped = out == null ? text.substring(0, end) : out.toString();
        return end == text.length() ? escaped : escaped + "... (" + (text.length() - end) + " more characters)";
    }
}
