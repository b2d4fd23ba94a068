package dev.tollgate.spring.plans;

import dev.tollgate.core.InvalidRuleException;
import dev.tollgate.core.LogText;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.limits.Allowance;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitScope;
import dev.tollgate.core.limits.Plan;
import dev.tollgate.core.limits.QuotaPeriod;
import dev.tollgate.core.limits.TokenBucket;
import java.math.BigDecimal;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON of a limit, in the one place it is read and written: the admin API's bodies and answers,
 * the {@code plan.limits} column and the saved snapshot all use it (the admin API's documented contract, docs/rules-and-keys.md):
 *
 * <pre>{"name": "...", "scope": "route" | "each-route" | "tenant", "route": "&lt;id&gt;" (scope route only),
 *  then "capacity" + "refillPerSecond" (a token bucket) or "quota" + "period" (minute | hour | day | month,
 *  optional "zone"), optional "cost" (1), "shadow" (false)}</pre>
 *
 * <p>Read strictly: an unknown field, a field given twice, a value of the wrong JSON type (a string for
 * a number, 1.5 for a whole number, 1 for a boolean), or the fields of both a bucket and a quota are
 * refused with an {@link InvalidRuleException} whose field is the path of the bad value
 * ({@code limits[2].capacity}). Written canonically: every field in the order above, {@code cost} and
 * {@code shadow} always, {@code zone} unless UTC; reading what was written gives an equal {@link Limit}.
 */
public final class LimitDocument {

    private static final Set<String> FIELDS = Set.of("name", "scope", "route", "capacity", "refillPerSecond",
            "quota", "period", "zone", "cost", "shadow");
    private static final BigDecimal MAX_REFILL = BigDecimal.valueOf(RateLimitRule.MAX_REFILL_PER_SECOND);
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            // 1e400 is a number out of range, not Infinity; 0.1 stays 0.1.
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** Longest input quoted back in a refusal. */
    private static final int MAX_ECHO = 40;

    private LimitDocument() {
    }

    /** The limits of a JSON array of limits (the {@code plan.limits} column), paths under {@code path}. */
    public static List<Limit> readLimits(String json, String path) {
        return limits(parse(json, path), path);
    }

    /** The plan {@code name} with the limits of {@code limitsJson}; refused with the path of the bad value. */
    public static Plan readPlan(String name, String limitsJson) {
        List<Limit> limits = readLimits(limitsJson, "limits");
        return new Plan(name, limits);
    }

    /** The JSON tree of {@code json}, or a refusal on {@code path} saying it is not JSON. */
    public static JsonNode parse(String json, String path) {
        try {
            return JSON.readTree(json);
        } catch (JacksonException e) {
            String problem = e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Duplicate")
                    ? "has a field given more than once" : "is not well-formed JSON";
            throw new InvalidRuleException(path, problem);
        }
    }

    /** The limits of a JSON array node. */
    public static List<Limit> limits(JsonNode array, String path) {
        if (array == null || array.isNull() || array.isMissingNode()) {
            throw new InvalidRuleException(path, "is required: a list of limits (empty for a plan without limits)");
        }
        if (!array.isArray()) {
            throw new InvalidRuleException(path, "must be a list of limits");
        }
        if (array.size() > Plan.MAX_LIMITS) {
            throw new InvalidRuleException(path, "must hold at most " + Plan.MAX_LIMITS + " limits, was " + array.size());
        }
        List<Limit> limits = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            limits.add(limit(array.get(i), path + "[" + i + "]"));
        }
        return limits;
    }

    /** The limit of a JSON object node; the paths of its fields are {@code path.field}. */
    public static Limit limit(JsonNode node, String path) {
        if (node == null || !node.isObject()) {
            throw new InvalidRuleException(path, "must be a limit: a JSON object");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.properties().iterator(); it.hasNext(); ) {
            String field = it.next().getKey();
            if (!FIELDS.contains(field)) {
                throw new InvalidRuleException(path + "." + LogText.escape(field, MAX_ECHO), "is not a field of a limit; the fields are "
                        + "name, scope, route, capacity, refillPerSecond, quota, period, zone, cost, shadow");
            }
        }
        String name = text(node, path, "name", true);
        LimitScope scope;
        String scopeName = text(node, path, "scope", true);
        String route = text(node, path, "route", false);
        try {
            scope = new LimitScope(LimitScope.Kind.parse(scopeName), route);
        } catch (InvalidRuleException e) {
            throw at(path, e);
        }
        boolean bucket = node.has("capacity") || node.has("refillPerSecond");
        boolean quota = node.has("quota") || node.has("period") || node.has("zone");
        if (bucket && quota) {
            throw new InvalidRuleException(path + "." + (node.has("capacity") ? "capacity" : "refillPerSecond"),
                    "cannot be given with quota, period or zone: a limit is a token bucket (capacity, refillPerSecond)"
                            + " or a quota (quota, period, zone), not both");
        }
        if (!bucket && !quota) {
            throw new InvalidRuleException(path + ".capacity", "is required: a limit is a token bucket (capacity,"
                    + " refillPerSecond) or a quota (quota, period, zone)");
        }
        Allowance allowance;
        try {
            if (bucket) {
                long capacity = whole(node, path, "capacity", true);
                BigDecimal refill = number(node, path, "refillPerSecond");
                if (refill.signum() <= 0 || refill.compareTo(MAX_REFILL) > 0) {
                    throw new InvalidRuleException(path + ".refillPerSecond", "must be > 0 and <= 1000000000, was "
                            + echo(refill));
                }
                allowance = new TokenBucket(capacity, refill.doubleValue());
            } else {
                long amount = whole(node, path, "quota", true);
                String period = text(node, path, "period", true);
                allowance = new CalendarQuota(amount, QuotaPeriod.parse(period),
                        CalendarQuota.parseZone(text(node, path, "zone", false)));
            }
            Long cost = node.has("cost") ? whole(node, path, "cost", true) : null;
            boolean shadow = bool(node, path, "shadow");
            return new Limit(name, scope, allowance, cost == null ? 1 : cost, shadow);
        } catch (InvalidRuleException e) {
            throw e.field().startsWith(path) ? e : at(path, e);
        }
    }

    /** The canonical JSON object of {@code limit}. */
    public static ObjectNode write(Limit limit) {
        ObjectNode node = NODES.objectNode();
        node.put("name", limit.name());
        node.put("scope", limit.scope().kind().wireName());
        if (limit.scope().route() != null) {
            node.put("route", limit.scope().route());
        }
        if (limit.allowance() instanceof TokenBucket bucket) {
            node.put("capacity", bucket.capacity());
            BigDecimal refill = BigDecimal.valueOf(bucket.refillPerSecond()).stripTrailingZeros();
            if (refill.scale() <= 0) {
                node.put("refillPerSecond", refill.longValueExact());
            } else {
                node.put("refillPerSecond", refill);
            }
        } else if (limit.allowance() instanceof CalendarQuota quota) {
            node.put("quota", quota.quota());
            node.put("period", quota.period().wireName());
            if (!quota.zone().equals(ZoneOffset.UTC)) {
                node.put("zone", quota.zone().getId());
            }
        }
        node.put("cost", limit.cost());
        node.put("shadow", limit.shadow());
        return node;
    }

    /** The canonical JSON array of {@code limits}. */
    public static ArrayNode write(List<Limit> limits) {
        ArrayNode array = NODES.arrayNode();
        limits.forEach(limit -> array.add(write(limit)));
        return array;
    }

    /** The canonical JSON text of {@code limits}, as stored in {@code plan.limits}. */
    public static String toJson(List<Limit> limits) {
        return JSON.writeValueAsString(write(limits));
    }

    /** A number quoted back: plain when short, else scientific (short whatever the exponent), cut. */
    private static String echo(BigDecimal number) {
        boolean plainIsShort = number.precision() <= MAX_ECHO / 2 && Math.abs((long) number.scale()) <= MAX_ECHO / 2;
        return LogText.escape(plainIsShort ? number.toPlainString() : number.toString(), MAX_ECHO);
    }

    /** {@code node} as JSON text. */
    public static String toJson(JsonNode node) {
        return JSON.writeValueAsString(node);
    }

    private static InvalidRuleException at(String path, InvalidRuleException e) {
        return new InvalidRuleException(path + "." + e.field(), e.problem());
    }

    private static String text(JsonNode node, String path, String field, boolean required) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            if (required) {
                throw new InvalidRuleException(path + "." + field, "is required");
            }
            return null;
        }
        if (!value.isString()) {
            throw new InvalidRuleException(path + "." + field, "must be a string");
        }
        return value.asString();
    }

    private static long whole(JsonNode node, String path, String field, boolean required) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw new InvalidRuleException(path + "." + field, "is required");
        }
        if (!value.isIntegralNumber()) {
            throw new InvalidRuleException(path + "." + field, "must be a whole number");
        }
        if (!value.canConvertToLong()) {
            throw new InvalidRuleException(path + "." + field, "is out of range");
        }
        return value.longValue();
    }

    private static BigDecimal number(JsonNode node, String path, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw new InvalidRuleException(path + "." + field, "is required");
        }
        if (!value.isNumber()) {
            throw new InvalidRuleException(path + "." + field, "must be a number");
        }
        if (value.isFloatingPointNumber() && !value.isBigDecimal() && !Double.isFinite(value.doubleValue())) {
            throw new InvalidRuleException(path + "." + field, "is out of range");
        }
        return value.decimalValue();
    }

    private static boolean bool(JsonNode node, String path, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return false;
        }
        if (!value.isBoolean()) {
            throw new InvalidRuleException(path + "." + field, "must be true or false");
        }
        return value.booleanValue();
    }
}
