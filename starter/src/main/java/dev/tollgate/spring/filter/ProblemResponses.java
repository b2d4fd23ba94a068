package dev.tollgate.spring.filter;

import java.nio.charset.StandardCharsets;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import reactor.core.publisher.Mono;

/**
 * Ends an exchange with an RFC 9457 {@code application/problem+json} body. The bodies are small
 * and fixed in shape, so they are written by hand rather than through an object mapper.
 */
final class ProblemResponses {

    static final MediaType PROBLEM_JSON = MediaType.valueOf("application/problem+json");

    private ProblemResponses() {
    }

    /**
     * Writes the problem. {@code extraMembers} is a JSON fragment of further members
     * ({@code "name":value,...}) or empty.
     */
    static Mono<Void> write(ServerHttpResponse response, HttpStatus status, String type, String detail,
                            String extraMembers) {
        StringBuilder json = new StringBuilder(192)
                .append("{\"type\":").append(quote(type))
                .append(",\"title\":").append(quote(status.getReasonPhrase()))
                .append(",\"status\":").append(status.value())
                .append(",\"detail\":").append(quote(detail));
        if (!extraMembers.isEmpty()) {
            json.append(',').append(extraMembers);
        }
        json.append('}');
        byte[] bytes = json.toString().getBytes(StandardCharsets.UTF_8);
        response.setStatusCode(status);
        HttpHeaders headers = response.getHeaders();
        headers.setContentType(PROBLEM_JSON);
        headers.setContentLength(bytes.length);
        DataBuffer buffer = response.bufferFactory().wrap(bytes);
        return response.writeWith(Mono.just(buffer));
    }

    /** A JSON string literal. */
    static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
