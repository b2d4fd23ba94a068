package dev.tollgate.spring.admin;

/** The body of {@code PUT /admin/tenants/{tenant}/plan}: {@code {"plan": "free"}}, bound strictly ({@link AdminBodies}). */
record TenantPlanRequest(String plan) {
}
