package dev.tollgate.spring.admin;

import tools.jackson.databind.JsonNode;

/**
 * The body of {@code PUT /admin/plans/{plan}}: {@code {"limits": [LIMIT, ...]}}, bound strictly
 * ({@link AdminBodies}); the limits are read by {@link dev.tollgate.spring.plans.LimitDocument}.
 */
record PlanRequest(JsonNode limits) {
}
