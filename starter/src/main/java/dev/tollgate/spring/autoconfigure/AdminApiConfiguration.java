package dev.tollgate.spring.autoconfigure;

import dev.tollgate.spring.admin.AdminHandlers;
import dev.tollgate.spring.admin.AdminProblems;
import dev.tollgate.spring.admin.BearerCredentials;
import dev.tollgate.spring.admin.HealthDetails;
import dev.tollgate.spring.admin.PlanHandlers;
import dev.tollgate.spring.directory.Directory;
import dev.tollgate.spring.directory.database.DirectoryRepository;
import dev.tollgate.spring.directory.refresh.DirectoryRefresher;
import dev.tollgate.spring.region.CurrentShares;
import dev.tollgate.spring.settings.AdminProperties;
import dev.tollgate.spring.settings.TollgateProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.HttpCodeStatusMapper;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpHeaders;
import org.springframework.web.reactive.function.server.HandlerFilterFunction;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * The admin API, {@code /admin/**}, registered in the management server's own context: it exists
 * only when the management port differs from the gateway port, so it can never be reached through
 * the public gateway port. Every request needs {@code Authorization: Bearer <tollgate.admin.token>}
 * (the scheme in any case); with no token configured every admin path answers 404 saying why, and
 * so do the rules and keys paths with rules not in the database or with the limiter off.
 * {@code GET /admin/health} gives the health of every contributor with its details, which the
 * public health endpoint keeps to itself.
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
public class AdminApiConfiguration {

    private static final Logger log = LoggerFactory.getLogger(AdminApiConfiguration.class);

    @Bean
    RouterFunction<ServerResponse> tollgateAdminApi(AdminProperties admin, TollgateProperties tollgate,
                                                    ObjectProvider<DirectoryRepository> repository,
                                                    ObjectProvider<DirectoryRefresher> refresher,
                                                    ObjectProvider<Directory> directory,
                                                    ObjectProvider<CurrentShares> regionShares,
                                                    ObjectProvider<HealthEndpoint> health,
                                                    ObjectProvider<HttpCodeStatusMapper> statusCodes) {
        if (!admin.enabled()) {
            String why = "The admin API is off: set tollgate.admin.token to turn it on.";
            log.info(why);
            return RouterFunctions.route(RequestPredicates.path("/admin/**"), request -> AdminProblems.notFound(why));
        }
        BearerCredentials credentials = new BearerCredentials(admin.token());
        HandlerFilterFunction<ServerResponse, ServerResponse> authorised = (request, next) ->
                credentials.matches(request.headers().firstHeader(HttpHeaders.AUTHORIZATION))
                        ? next.handle(request)
                        : AdminProblems.unauthorized();
        HealthEndpoint endpoint = health.getIfAvailable();
        RouterFunction<ServerResponse> healthDetails = endpoint == null
                ? RouterFunctions.route(RequestPredicates.path("/admin/health"),
                        request -> AdminProblems.notFound("The health endpoint is not available."))
                : RouterFunctions.route().GET("/admin/health", request -> HealthDetails.of(endpoint,
                        statusCodes.getIfAvailable(() -> HttpCodeStatusMapper.DEFAULT)))
                        .filter(authorised).build();
        if (repository.getIfAvailable() == null) {
            String why = !tollgate.enabled()
                    ? "The admin API is off with the rate limiter (tollgate.enabled=false)."
                    : "The admin API needs tollgate.source=database.";
            log.info(why);
            return healthDetails.and(RouterFunctions.route(RequestPredicates.path("/admin/**"),
                    request -> AdminProblems.notFound(why)));
        }
        AdminHandlers handlers = new AdminHandlers(repository.getObject(), refresher.getObject(),
                regionShares.getIfAvailable());
        PlanHandlers plans = new PlanHandlers(repository.getObject(), refresher.getObject(), directory.getObject());
        log.info("Admin API on the management port under /admin");
        return healthDetails.and(RouterFunctions.route()
                .GET("/admin/rules", handlers::listRules)
                .GET("/admin/rules/{tenant}/{route}", handlers::getRule)
                .PUT("/admin/rules/{tenant}/{route}", handlers::putRule)
                .DELETE("/admin/rules/{tenant}/{route}", handlers::deleteRule)
                .POST("/admin/tenants/{tenant}/keys", handlers::createKey)
                .GET("/admin/tenants/{tenant}/keys", handlers::listKeys)
                .DELETE("/admin/keys/{id}", handlers::revokeKey)
                .GET("/admin/regions/shares", handlers::regionShares)
                .GET("/admin/plans", plans::listPlans)
                .GET("/admin/plans/{plan}", plans::getPlan)
                .PUT("/admin/plans/{plan}", plans::putPlan)
                .DELETE("/admin/plans/{plan}", plans::deletePlan)
                .GET("/admin/tenants/{tenant}/plan", plans::getTenantPlan)
                .PUT("/admin/tenants/{tenant}/plan", plans::putTenantPlan)
                .DELETE("/admin/tenants/{tenant}/plan", plans::deleteTenantPlan)
                .GET("/admin/tenants/{tenant}/limits", plans::limits)
                // Anything else under /admin, such as an id of . or .. (resolved away with the rest of the
                // path's dot-segments before routing), gets the admin API's own 404, not Spring's default.
                .route(RequestPredicates.path("/admin/**"), request -> AdminProblems.notFound(
                        "No admin API resource answers " + request.method().name() + " at this path (ids . and .."
                                + " cannot be used: as path segments they are resolved away)."))
                .filter(authorised)
                .build());
    }
}
