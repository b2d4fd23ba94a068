package dev.tollgate.spring.admin;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.BodyExtractors;
import org.springframework.web.reactive.function.server.ServerRequest;
import reactor.core.publisher.Mono;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.cfg.MutableCoercionConfig;
import tools.jackson.databind.exc.UnrecognizedPropertyException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.type.LogicalType;

/**
 * Request bodies of the admin API: {@code application/json}, at most {@value #MAX_BYTES} bytes, bound
 * to their record strictly. A field of the wrong JSON type is refused, never converted: no float
 * truncated to an integer ({@code 1.5} is not a capacity of 1), no number or string taken as a boolean,
 * no string taken as a number; an unknown field or a field given twice is refused by name. The body is
 * read into memory only up to the limit.
 */
final class AdminBodies {

    /** Largest body accepted: a rule or a key label is a few hundred bytes at most. */
    static final int MAX_BYTES = 16 * 1024;

    private static final JsonMapper STRICT = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .withCoercionConfig(LogicalType.Integer, refuse(CoercionInputShape.Float, CoercionInputShape.String,
                    CoercionInputShape.Boolean))
            .withCoercionConfig(LogicalType.Float, refuse(CoercionInputShape.String, CoercionInputShape.Boolean))
            .withCoercionConfig(LogicalType.Boolean, refuse(CoercionInputShape.Integer, CoercionInputShape.Float,
                    CoercionInputShape.String))
            .withCoercionConfig(LogicalType.Textual, refuse(CoercionInputShape.Integer, CoercionInputShape.Float,
                    CoercionInputShape.Boolean))
            .build();

    private AdminBodies() {
    }

    private static Consumer<MutableCoercionConfig> refuse(
            CoercionInputShape... shapes) {
        return config -> Arrays.stream(shapes).forEach(shape -> config.setCoercion(shape, CoercionAction.Fail));
    }

    /**
     * The body bound to {@code type}, or empty if there is none (no bytes, or JSON {@code null}). Fails
     * with an {@link AdminRequestException}: 413 over the limit, 415 if a body is not declared as JSON,
     * 400 naming the field for anything else.
     */
    static <T extends Record> Mono<T> read(ServerRequest request, Class<T> type) {
        HttpHeaders headers = request.headers().asHttpHeaders();
        long declaredLength = headers.getContentLength();
        boolean hasBody = declaredLength > 0 || headers.containsHeader(HttpHeaders.TRANSFER_ENCODING);
        if (!hasBody) {
            return Mono.empty();
        }
        if (declaredLength > MAX_BYTES) {
            return Mono.error(AdminRequestException.bodyTooLarge(MAX_BYTES));
        }
        if (!isJson(request.headers().contentType())) {
            return Mono.error(AdminRequestException.unsupportedMediaType());
        }
        return DataBufferUtils.join(request.body(BodyExtractors.toDataBuffers()), MAX_BYTES)
                .onErrorMap(DataBufferLimitException.class, e -> AdminRequestException.bodyTooLarge(MAX_BYTES))
                .flatMap(buffer -> {
                    byte[] bytes = new byte[buffer.readableByteCount()];
                    buffer.read(bytes);
                    DataBufferUtils.release(buffer);
                    return bytes.length == 0 ? Mono.empty() : Mono.justOrEmpty(bind(bytes, type));
                });
    }

    private static boolean isJson(Optional<MediaType> contentType) {
        return contentType.filter(t -> MediaType.APPLICATION_JSON.isCompatibleWith(t)
                || ("application".equals(t.getType()) && t.getSubtype().endsWith("+json"))).isPresent();
    }

    /** {@code bytes} bound to {@code type}; null for JSON {@code null}. */
    static <T extends Record> T bind(byte[] bytes, Class<T> type) {
        try {
            return STRICT.readValue(bytes, type);
        } catch (JacksonException e) {
            throw refusal(e, type);
        }
    }

    private static AdminRequestException refusal(JacksonException e, Class<? extends Record> type) {
        List<String> fields = Arrays.stream(type.getRecordComponents()).map(c -> c.getName()).toList();
        if (e instanceof UnrecognizedPropertyException unknown) {
            String name = Echo.of(unknown.getPropertyName());
            return new AdminRequestException(name, "unknown field '" + name + "'; the fields are "
                    + String.join(", ", fields));
        }
        if (!e.getPath().isEmpty() && fields.contains(e.getPath().get(0).getPropertyName())) {
            String field = e.getPath().get(0).getPropertyName();
            if (e instanceof InputCoercionException) {
                return new AdminRequestException(field, field + " is out of range");
            }
            Class<?> fieldType = Arrays.stream(type.getRecordComponents())
                    .filter(c -> c.getName().equals(field)).findFirst().orElseThrow().getType();
            return new AdminRequestException(field, field + " must be " + expectation(fieldType));
        }
        // Stream-level failures carry no path; a duplicate is the one that is about a field.
        String message = e.getOriginalMessage();
        if (message != null && message.startsWith("Duplicate Object property")
                && e.processor() instanceof JsonParser parser && parser.streamReadContext() != null
                && fields.contains(parser.streamReadContext().currentName())) {
            String field = parser.streamReadContext().currentName();
            return new AdminRequestException(field, field + " is given more than once");
        }
        return new AdminRequestException("body", "the body is not a JSON object of the expected shape");
    }

    private static String expectation(Class<?> type) {
        if (type == Long.class || type == Integer.class) {
            return "a whole number";
        }
        if (Number.class.isAssignableFrom(type)) {
            return "a number";
        }
        if (type == Boolean.class) {
            return "true or false";
        }
        return "a string";
    }
}
