package dev.tollgate.spring.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleScope;
import dev.tollgate.core.ScopedRule;
import dev.tollgate.core.region.RegionShares;
import dev.tollgate.core.region.ShareTable;
import dev.tollgate.spring.directory.ApiKeys;
import dev.tollgate.spring.directory.Ids;
import dev.tollgate.spring.directory.database.DirectoryRepository.StoredKey;
import dev.tollgate.spring.directory.database.DirectoryRepository;
import dev.tollgate.spring.directory.refresh.DirectoryRefresher;
import dev.tollgate.spring.region.CurrentShares;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.http.HttpStatus;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The admin API's handlers. Database calls block, so they run on Reactor's bounded elastic
 * scheduler. After a write, this instance refreshes at once; the others hear of it through
 * PostgreSQL's notification.
 */
public final class AdminHandlers {

    private static final Logger log = LoggerFactory.getLogger(AdminHandlers.class);
    private static final int DEFAULT_PAGE_SIZE = 100;
    private static final int MAX_PAGE_SIZE = 1000;

    private final DirectoryRepository repository;
    private final DirectoryRefresher refresher;
    private final CurrentShares shares; // null: a single region

    public AdminHandlers(DirectoryRepository repository, DirectoryRefresher refresher, CurrentShares shares) {
        this.repository = repository;
        this.refresher = refresher;
        this.shares = shares;
    }

    /**
     * A rule in responses (the rate as a plain JSON number: it has at most three decimals). With
     * several regions, a single rule's view also shows its bucket's current shares by region, and a
     * tenant-wide rule's ({@code *}) those of its routes' buckets that the rebalancer keeps.
     */
    record RuleView(String tenant, String route, long capacity, double refillPerSecond, long cost, boolean shadow,
                    int shards, Instant updatedAt,
                    @JsonInclude(JsonInclude.Include.NON_NULL) Map<String, Double> regionShares,
                    @JsonInclude(JsonInclude.Include.NON_NULL) Map<String, Map<String, Double>> regionSharesByRoute) {
        static RuleView of(DirectoryRepository.StoredRule r) {
            return new RuleView(r.tenant(), r.route(), r.capacity(), r.refillPerSecond().doubleValue(), r.cost(),
                    r.shadow(), r.shards(), r.updatedAt(), null, null);
        }

        RuleView withShares(CurrentShares shares) {
            if (shares == null) {
                return this;
            }
            Map<String, Map<String, Double>> byRoute = null;
            if (ScopedRule.ANY_ROUTE.equals(route)) {
                byRoute = new TreeMap<>();
                for (Map.Entry<String, RegionShares> e : shares.storedForTenant(tenant).entrySet()) {
                    byRoute.put(e.getKey(), e.getValue().fractions());
                }
            }
            return new RuleView(tenant, route, capacity, refillPerSecond, cost, shadow, shards, updatedAt,
                    shares.sharesFor(tenant, route).fractions(), byRoute);
        }
    }

    /** A page of rules in responses. */
    record RulePageView(List<RuleView> rules, int page, int size, long total) {
    }

    /** A bucket's shares as this instance enforces them. */
    record BucketSharesView(String tenant, String route, Map<String, Double> shares) {
    }

    /**
     * The shares this instance enforces, from memory: the defaults, and a page of the buckets the
     * rebalancer keeps (sorted by tenant and route), as of the shares' version read last.
     */
    record RegionSharesView(String region, long sharesVersion, Map<String, Double> defaultShares,
                            List<BucketSharesView> buckets, int page, int size, long total) {
    }

    /** A new key: the only response that ever contains the key itself. */
    record CreatedKeyView(long id, String tenant, String label, String key, Instant createdAt) {
    }

    public Mono<ServerResponse> listRules(ServerRequest request) {
        return handle(() -> {
            String tenant = request.queryParam("tenant").orElse(null);
            if (tenant != null) {
                requireTenant(tenant);
            }
            int page = intParam(request, "page", 0, 0, Integer.MAX_VALUE);
            int size = intParam(request, "size", DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE);
            long offset = (long) page * size;
            if (offset > Integer.MAX_VALUE) {
                throw new AdminRequestException("page", "page × size must be at most " + Integer.MAX_VALUE
                        + ", was " + offset);
            }
            DirectoryRepository.RulePage rules = repository.listRules(tenant, (int) offset, size);
            return ServerResponse.ok().bodyValue(new RulePageView(
                    rules.rules().stream().map(RuleView::of).toList(), page, size, rules.total()));
        });
    }

    /**
     * {@code GET /admin/regions/shares[?tenant=&page=&size=]}: answered from this instance's memory,
     * never from PostgreSQL, so it answers while the database is down (the shares then in force are
     * the last ones read).
     */
    public Mono<ServerResponse> regionShares(ServerRequest request) {
        if (shares == null) {
            return AdminProblems.notFound("This instance is in a single region (tollgate.region is not set):"
                    + " every limit is whole, there are no shares.");
        }
        try {
            String tenant = request.queryParam("tenant").orElse(null);
            if (tenant != null) {
                requireTenant(tenant);
            }
            int page = intParam(request, "page", 0, 0, Integer.MAX_VALUE);
            int size = intParam(request, "size", DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE);
            ShareTable table = shares.get();
            long version = shares.version();
            List<BucketSharesView> all = table.stored().entrySet().stream()
                    .filter(e -> tenant == null || e.getKey().tenant().equals(tenant))
                    .sorted(Map.Entry.comparingByKey(Comparator.comparing(RuleScope::tenant)
                            .thenComparing(RuleScope::route)))
                    .map(e -> new BucketSharesView(e.getKey().tenant(), e.getKey().route(), e.getValue().fractions()))
                    .toList();
            long from = Math.min((long) page * size, all.size());
            List<BucketSharesView> onPage = all.subList((int) from, (int) Math.min(from + size, all.size()));
            return ServerResponse.ok().bodyValue(new RegionSharesView(shares.region(), version,
                    table.defaults().fractions(), onPage, page, size, all.size()));
        } catch (AdminRequestException e) {
            return AdminProblems.refused(e);
        }
    }

    public Mono<ServerResponse> getRule(ServerRequest request) {
        String tenant = request.pathVariable("tenant");
        String route = request.pathVariable("route");
        return handle(() -> {
            requireTenant(tenant);
            requireRoute(route);
            return repository.findRule(tenant, route)
                    .map(rule -> ServerResponse.ok().bodyValue(RuleView.of(rule).withShares(shares)))
                    .orElseGet(() -> AdminProblems.notFound("No rule for tenant '" + tenant + "' on route '" + route + "'."));
        });
    }

    public Mono<ServerResponse> putRule(ServerRequest request) {
        String tenant = request.pathVariable("tenant");
        String route = request.pathVariable("route");
        return AdminBodies.read(request, RuleRequest.class)
                .switchIfEmpty(Mono.error(new AdminRequestException("body", "a JSON body is required")))
                .flatMap(body -> handle(() -> {
                    requireTenant(tenant);
                    requireRoute(route);
                    RateLimitRule rule = body.validate();
                    DirectoryRepository.Upserted saved = repository.upsertRule(tenant, route, rule.capacity(),
                            body.refillPerSecond(), rule.cost(), rule.shadow(), rule.shards());
                    refresher.refreshSoon();
                    log.info("Admin: rule for tenant '{}' route '{}' {}: capacity {}, refill {}/s, cost {}, {} shard(s){}",
                            tenant, route, saved.created() ? "created" : "updated", rule.capacity(),
                            body.refillPerSecond().toPlainString(), rule.cost(), rule.shards(),
                            rule.shadow() ? ", shadow" : "");
                    return ServerResponse.status(saved.created() ? HttpStatus.CREATED : HttpStatus.OK)
                            .bodyValue(RuleView.of(saved.rule()));
                }))
                .onErrorResume(e -> errorResponse(e));
    }

    public Mono<ServerResponse> deleteRule(ServerRequest request) {
        String tenant = request.pathVariable("tenant");
        String route = request.pathVariable("route");
        return handle(() -> {
            requireTenant(tenant);
            requireRoute(route);
            if (!repository.deleteRule(tenant, route)) {
                return AdminProblems.notFound("No rule for tenant '" + tenant + "' on route '" + route + "'.");
            }
            refresher.refreshSoon();
            log.info("Admin: rule for tenant '{}' route '{}' deleted", tenant, route);
            return ServerResponse.noContent().build();
        });
    }

    public Mono<ServerResponse> createKey(ServerRequest request) {
        String tenant = request.pathVariable("tenant");
        return AdminBodies.read(request, KeyRequest.class)
                .defaultIfEmpty(new KeyRequest(null))
                .flatMap(body -> handle(() -> {
                    requireTenant(tenant);
                    String label = body.validLabel();
                    String key = ApiKeys.generate();
                    StoredKey stored = repository.createKey(tenant, label, ApiKeys.hash(key));
                    refresher.refreshSoon();
                    log.info("Admin: API key {} created for tenant '{}'", stored.id(), tenant); // never the key
                    return ServerResponse.status(HttpStatus.CREATED).bodyValue(
                            new CreatedKeyView(stored.id(), tenant, label, key, stored.createdAt()));
                }))
                .onErrorResume(e -> errorResponse(e));
    }

    public Mono<ServerResponse> listKeys(ServerRequest request) {
        String tenant = request.pathVariable("tenant");
        return handle(() -> {
            requireTenant(tenant);
            return ServerResponse.ok().bodyValue(Map.of("keys", repository.listKeys(tenant)));
        });
    }

    public Mono<ServerResponse> revokeKey(ServerRequest request) {
        String idText = request.pathVariable("id");
        return handle(() -> {
            long id;
            try {
                id = Long.parseLong(idText);
            } catch (NumberFormatException e) {
                throw new AdminRequestException("id", "id must be a number, was '" + Echo.of(idText) + "'");
            }
            return repository.revokeKey(id)
                    .map(key -> {
                        refresher.refreshSoon();
                        log.info("Admin: API key {} of tenant '{}' revoked", id, key.tenant());
                        return ServerResponse.ok().bodyValue(key);
                    })
                    .orElseGet(() -> AdminProblems.notFound("No API key with id " + id + "."));
        });
    }

    /** {@code work} (blocking) on the bounded elastic scheduler, its failures answered as problems. */
    static Mono<ServerResponse> handle(Callable<Mono<ServerResponse>> work) {
        return Mono.fromCallable(work)
                .subscribeOn(Schedulers.boundedElastic())
                .flatMap(response -> response)
                .onErrorResume(AdminHandlers::errorResponse);
    }

    static Mono<ServerResponse> errorResponse(Throwable e) {
        if (e instanceof AdminRequestException refused) {
            return AdminProblems.refused(refused);
        }
        if (e instanceof DataIntegrityViolationException violation) {
            // The database's constraints are the last line of defence; nothing was stored. Its own words
            // (which may quote the input, and describe the schema) go to the log, not to the client.
            log.warn("Admin request refused by PostgreSQL: {}", violation.getMostSpecificCause().getMessage());
            return AdminProblems.problem(HttpStatus.BAD_REQUEST, "invalid-request",
                    "The database refused the change; nothing was stored.");
        }
        if (e instanceof CannotGetJdbcConnectionException || e instanceof DataAccessResourceFailureException) {
            return AdminProblems.problem(HttpStatus.SERVICE_UNAVAILABLE, "database-unavailable",
                    "PostgreSQL cannot be reached; nothing was changed. Retry later.");
        }
        log.error("Admin request failed", e);
        return AdminProblems.problem(HttpStatus.INTERNAL_SERVER_ERROR, "internal-error", "The request failed.");
    }

    static void requireTenant(String tenant) {
        if (!Ids.isValidTenant(tenant)) {
            throw new AdminRequestException("tenant",
                    "tenant must be " + Ids.rule() + ", was '" + Echo.of(tenant) + "'");
        }
    }

    static void requireRoute(String route) {
        if (!Ids.isValidRoute(route)) {
            throw new AdminRequestException("route",
                    "route must be * or " + Ids.rule() + ", was '" + Echo.of(route) + "'");
        }
    }

    private static int intParam(ServerRequest request, String name, int fallback, int min, int max) {
        String value = request.queryParam(name).orElse(null);
        if (value == null) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(value);
            if (n < min || n > max) {
                throw new AdminRequestException(name, name + " must be between " + min + " and " + max + ", was " + n);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new AdminRequestException(name, name + " must be a number, was '" + Echo.of(value) + "'");
        }
    }
}
