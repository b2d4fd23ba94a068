package dev.tollgate.gateway;

import static dev.tollgate.gateway.DatabaseGateways.ADMIN_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import dev.tollgate.core.region.RegionShares;
import dev.tollgate.spring.directory.Directory;
import dev.tollgate.spring.region.CurrentShares;
import dev.tollgate.spring.region.RegionCoordinator;
import dev.tollgate.spring.tenant.TenantLookup;
import dev.tollgate.testkit.PostgresEndpoint;
import dev.tollgate.testkit.RedisServer;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Gateways of two regions, eu and us, each with a Redis of its own, sharing one PostgreSQL. */
final class RegionGateways {

    private RegionGateways() {
    }

    /** Properties of a gateway in {@code region}, on that region's Redis, the defaults 50/50, a 1 s rebalancer. */
    static Map<String, Object> properties(String region, PostgresEndpoint postgres, RedisServer regionRedis,
                                          String upstreamUri) {
        Map<String, Object> p = DatabaseGateways.properties(postgres, regionRedis.port(), upstreamUri);
        p.put("tollgate.region", region);
        p.put("tollgate.regions.eu.share", "0.5");
        p.put("tollgate.regions.us.share", "0.5");
        p.put("tollgate.rebalancer.interval", "1s");
        return p;
    }

    static String createKey(RunningGateway gateway, String tenant) {
        HttpResponse<String> created = gateway.admin("POST", "/admin/tenants/" + tenant + "/keys", "{}", ADMIN_TOKEN);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return JsonPath.read(created.body(), "$.key");
    }

    /** Waits until every one of {@code gateways} serves {@code key} (its directory has it), without sending a request. */
    static void awaitKey(String key, List<RunningGateway> gateways) {
        await().atMost(Duration.ofSeconds(5)).until(() -> gateways.stream()
                .allMatch(g -> g.context().getBean(Directory.class).lookup(key) instanceof TenantLookup.Verified));
    }

    static void putRule(RunningGateway gateway, String tenant, String route, long capacity, double refillPerSecond) {
        HttpResponse<String> put = gateway.admin("PUT", "/admin/rules/" + tenant + "/" + route,
                "{\"capacity\":" + capacity + ",\"refillPerSecond\":" + refillPerSecond + "}", ADMIN_TOKEN);
        assertThat(put.statusCode()).as(put.body()).isIn(200, 201);
    }

    /** The shares of a bucket as {@code gateway} enforces them now. */
    static RegionShares shares(RunningGateway gateway, String tenant, String route) {
        return gateway.context().getBean(CurrentShares.class).sharesFor(tenant, route);
    }

    static RegionCoordinator coordinator(RunningGateway gateway) {
        return gateway.context().getBean(RegionCoordinator.class);
    }
}
