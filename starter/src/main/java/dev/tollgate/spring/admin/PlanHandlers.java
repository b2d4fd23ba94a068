package dev.tollgate.spring.admin;

import dev.tollgate.core.InvalidRuleException;
import dev.tollgate.core.limits.AppliedLimits;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitPrecedence.Applied;
import dev.tollgate.core.limits.Plan;
import dev.tollgate.core.limits.PlanBook;
import dev.tollgate.spring.directory.Directory;
import dev.tollgate.spring.directory.Ids;
import dev.tollgate.spring.directory.database.DirectoryRepository;
import dev.tollgate.spring.directory.database.DirectoryRepository.StoredPlan;
import dev.tollgate.spring.directory.refresh.DirectoryRefresher;
import dev.tollgate.spring.plans.LimitDocument;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The admin API's plans: {@code /admin/plans[/{plan}]}, {@code /admin/tenants/{tenant}/plan}, and
 * {@code /admin/tenants/{tenant}/limits?route=}, which answers from this instance's memory what it
 * enforces (after precedence) without asking PostgreSQL. Writes go to PostgreSQL; this instance then
 * refreshes at once and the others on the notification, as for rules.
 */
public final class PlanHandlers {

    private static final Logger log = LoggerFactory.getLogger(PlanHandlers.class);
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final DirectoryRepository repository;
    private final DirectoryRefresher refresher;
    private final Directory directory;

    public PlanHandlers(DirectoryRepository repository, DirectoryRefresher refresher, Directory directory) {
        this.repository = repository;
        this.refresher = refresher;
        this.directory = directory;
    }

    public Mono<ServerResponse> listPlans(ServerRequest request) {
        return AdminHandlers.handle(() -> {
            ArrayNode plans = NODES.arrayNode();
            repository.listPlans().forEach(plan -> plans.add(view(plan)));
            ObjectNode body = NODES.objectNode();
            body.set("plans", plans);
            body.put("defaultPlan", directory.snapshot().limits().defaultPlanName());
            return json(HttpStatus.OK, body);
        });
    }

    public Mono<ServerResponse> getPlan(ServerRequest request) {
        String name = request.pathVariable("plan");
        return AdminHandlers.handle(() -> {
            requirePlanName(name);
            return repository.findPlan(name).map(plan -> json(HttpStatus.OK, view(plan)))
                    .orElseGet(() -> noSuchPlan(name));
        });
    }

    public Mono<ServerResponse> putPlan(ServerRequest request) {
        String name = request.pathVariable("plan");
        return AdminBodies.read(request, PlanRequest.class)
                .switchIfEmpty(Mono.error(new AdminRequestException("body", "a JSON body is required")))
                .flatMap(body -> AdminHandlers.handle(() -> {
                    requirePlanName(name);
                    Plan plan;
                    try {
                        plan = new Plan(name, LimitDocument.limits(body.limits(), "limits"));
                    } catch (InvalidRuleException e) {
                        throw new AdminRequestException(e.field(), e.getMessage());
                    }
                    DirectoryRepository.UpsertedPlan saved =
                            repository.upsertPlan(name, LimitDocument.toJson(plan.limits()));
                    refresher.refreshSoon();
                    log.info("Admin: plan '{}' {} with {} limit(s), {} tenant(s) on it", name,
                            saved.created() ? "created" : "replaced", plan.limits().size(), saved.plan().tenants());
                    return json(saved.created() ? HttpStatus.CREATED : HttpStatus.OK, view(saved.plan()));
                }))
                .onErrorResume(AdminHandlers::errorResponse);
    }

    public Mono<ServerResponse> deletePlan(ServerRequest request) {
        String name = request.pathVariable("plan");
        return AdminHandlers.handle(() -> {
            requirePlanName(name);
            return switch (repository.deletePlan(name)) {
                case DELETED -> {
                    refresher.refreshSoon();
                    log.info("Admin: plan '{}' deleted", name);
                    yield ServerResponse.noContent().build();
                }
                case NOT_FOUND -> noSuchPlan(name);
                case IN_USE -> AdminProblems.problem(HttpStatus.CONFLICT, "plan-in-use", "Tenants are on plan '" + name
                        + "': put them on another plan (PUT or DELETE /admin/tenants/{tenant}/plan) before deleting it.");
            };
        });
    }

    public Mono<ServerResponse> getTenantPlan(ServerRequest request) {
        String tenant = request.pathVariable("tenant");
        return AdminHandlers.handle(() -> {
            AdminHandlers.requireTenant(tenant);
            return repository.findTenantPlan(tenant).map(plan -> json(HttpStatus.OK, tenantPlan(tenant, plan)))
                    .orElseGet(() -> AdminProblems.notFound("Tenant '" + tenant + "' is on no plan of its own: it is on"
                            + " the default plan."));
        });
    }

    public Mono<ServerResponse> putTenantPlan(ServerRequest request) {
        String tenant = request.pathVariable("tenant");
        return AdminBodies.read(request, TenantPlanRequest.class)
                .switchIfEmpty(Mono.error(new AdminRequestException("body", "a JSON body is required")))
                .flatMap(body -> AdminHandlers.handle(() -> {
                    AdminHandlers.requireTenant(tenant);
                    if (body.plan() == null) {
                        throw new AdminRequestException("plan", "plan is required");
                    }
                    requirePlanName(body.plan());
                    Boolean created = repository.setTenantPlan(tenant, body.plan()).orElseThrow(() ->
                            new AdminRequestException("plan", "there is no plan '" + body.plan() + "' (PUT /admin/plans/"
                                    + body.plan() + " creates it)"));
                    refresher.refreshSoon();
                    log.info("Admin: tenant '{}' put on plan '{}'", tenant, body.plan());
                    return json(created ? HttpStatus.CREATED : HttpStatus.OK, tenantPlan(tenant, body.plan()));
                }))
                .onErrorResume(AdminHandlers::errorResponse);
    }

    public Mono<ServerResponse> deleteTenantPlan(ServerRequest request) {
        String tenant = request.pathVariable("tenant");
        return AdminHandlers.handle(() -> {
            AdminHandlers.requireTenant(tenant);
            if (!repository.deleteTenantPlan(tenant)) {
                return AdminProblems.notFound("Tenant '" + tenant + "' is on no plan of its own: it is on the default"
                        + " plan already.");
            }
            refresher.refreshSoon();
            log.info("Admin: tenant '{}' back on the default plan", tenant);
            return ServerResponse.noContent().build();
        });
    }

    /**
     * {@code GET /admin/tenants/{tenant}/limits?route=}: what this instance enforces for the tenant's
     * requests on the route, from memory (as of its last refresh), each limit with its source.
     */
    public Mono<ServerResponse> limits(ServerRequest request) {
        String tenant = request.pathVariable("tenant");
        try {
            AdminHandlers.requireTenant(tenant);
            String route = request.queryParam("route").orElseThrow(() ->
                    new AdminRequestException("route", "route is required: ?route={route id}"));
            if (!Ids.isValidTenant(route)) { // a route id, not "*": a request is on one route
                throw new AdminRequestException("route", "route must be " + Ids.rule() + ", was '" + Echo.of(route) + "'");
            }
            PlanBook book = directory.snapshot().limits();
            AppliedLimits applied = book.limitsFor(tenant, route);
            boolean onDefault = book.onDefaultPlan(tenant);
            String planName = onDefault ? defaultPlanName(book) : book.planOf(tenant).name();
            ObjectNode body = NODES.objectNode();
            body.put("tenant", tenant);
            body.put("route", route);
            if (planName != null) {
                body.put("plan", planName);
            } else {
                body.putNull("plan");
            }
            body.put("onDefaultPlan", onDefault);
            body.put("singleBucket", applied.onSingleBucketPath());
            ArrayNode limits = body.putArray("limits");
            for (Applied limit : applied.limits()) {
                limits.add(view(limit, planName));
            }
            return json(HttpStatus.OK, body);
        } catch (AdminRequestException e) {
            return AdminProblems.refused(e);
        }
    }

    /** The default plan's name, or null while the default plan is tollgate.default-rule (no plan of that name). */
    private static String defaultPlanName(PlanBook book) {
        return book.plan(book.defaultPlanName()).isPresent() ? book.defaultPlanName() : null;
    }

    private static ObjectNode view(Applied applied, String planName) {
        ObjectNode node = NODES.objectNode();
        switch (applied.source()) {
            case TENANT -> node.put("source", "tenant-rule");
            case PLAN -> node.put("source", "plan").put("plan", planName);
            case DEFAULT_PLAN -> {
                node.put("source", "default");
                if (planName != null) {
                    node.put("plan", planName);
                } else {
                    node.put("setting", "tollgate.default-rule");
                }
            }
        }
        Limit limit = applied.limit();
        node.setAll(LimitDocument.write(limit));
        return node;
    }

    private static ObjectNode view(StoredPlan plan) {
        ObjectNode node = NODES.objectNode();
        node.put("name", plan.name());
        node.set("limits", LimitDocument.parse(plan.limitsJson(), "limits"));
        node.put("tenants", plan.tenants());
        node.put("updatedAt", plan.updatedAt().toString());
        return node;
    }

    private static ObjectNode tenantPlan(String tenant, String plan) {
        ObjectNode node = NODES.objectNode();
        node.put("tenant", tenant);
        node.put("plan", plan);
        return node;
    }

    private static void requirePlanName(String name) {
        try {
            new Plan(name, List.of());
        } catch (InvalidRuleException e) {
            throw new AdminRequestException("plan", "plan must be 1 to " + Plan.MAX_NAME_LENGTH
                    + " characters of A-Z a-z 0-9 . _ - starting with a letter or digit, was '" + Echo.of(name) + "'");
        }
    }

    private static Mono<ServerResponse> noSuchPlan(String name) {
        return AdminProblems.notFound("No plan '" + name + "'.");
    }

    private static Mono<ServerResponse> json(HttpStatus status, ObjectNode body) {
        return ServerResponse.status(status).contentType(MediaType.APPLICATION_JSON)
                .bodyValue(LimitDocument.toJson(body));
    }
}
