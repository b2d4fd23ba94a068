package dev.tollgate.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Redis Cluster on 127.0.0.1: {@code masters} masters with {@code replicasPerMaster} replicas
 * each (3 + 3 by default), every node a {@link RedisServer} process with {@code cluster-enabled yes}.
 *
 * <p>The cluster is formed by hand, the way {@code redis-cli --cluster create} does it, over plain
 * commands: {@code CLUSTER SET-CONFIG-EPOCH}, {@code CLUSTER ADDSLOTS}, {@code CLUSTER MEET},
 * {@code CLUSTER REPLICATE}. That works with every binary, including the embedded Redis 6.2, which
 * ships no {@code redis-cli}. {@link #start} returns once every node reports
 * {@code cluster_state:ok}, every node agrees on who replicates whom, and every replica's link to its
 * master is up.
 *
 * <p>Nodes are tuned for fast tests: a short {@code cluster-node-timeout} (failover in about two
 * seconds), replicas that may always take over ({@code cluster-replica-validity-factor 0}), diskless
 * replication without delay, and {@code cluster-require-full-coverage no}, so the other masters keep
 * serving their slots while one master is being replaced (as we recommend in production too).
 *
 * <p>Closing the cluster kills every node; each node's JVM shutdown hook does it if a caller forgets.
 */
public final class RedisCluster implements AutoCloseable {

    public static final int SLOTS = 16_384;

    private static final Logger log = LoggerFactory.getLogger(RedisCluster.class);
    private static final Duration FORMATION_TIMEOUT = Duration.ofSeconds(30);
    private static final long POLL_MILLIS = 20;

    private final List<RedisServer> nodes;
    private final Map<Integer, RedisServer> nodeByPort = new HashMap<>();
    private final int masters;
    private final Duration nodeTimeout;

    private RedisCluster(List<RedisServer> nodes, int masters, Duration nodeTimeout) {
        this.nodes = List.copyOf(nodes);
        this.masters = masters;
        this.nodeTimeout = nodeTimeout;
        for (RedisServer node : nodes) {
            nodeByPort.put(node.port(), node);
        }
    }

    /** 3 masters and 3 replicas of the system's Redis 7+ (else the embedded 6.2), node timeout 1 s. */
    public static RedisCluster start() {
        return start(RedisBinary.locate());
    }

    /** 3 masters and 3 replicas of {@code binary}, node timeout 1 s. */
    public static RedisCluster start(Path binary) {
        return start(binary, 3, 1, Duration.ofMillis(1000));
    }

    /**
     * Starts and forms a cluster. Slots are split evenly over the masters; replica {@code r} of
     * master {@code m} is node {@code masters + m * replicasPerMaster + r}.
     *
     * @throws IllegalStateException if a node cannot start or the cluster does not form within
     *                               30 s; every node started so far is killed first
     */
    public static RedisCluster start(Path binary, int masters, int replicasPerMaster, Duration nodeTimeout) {
        if (masters < 1 || masters > 100) {
            throw new IllegalArgumentException("masters must be in [1, 100], was " + masters);
        }
        if (replicasPerMaster < 0 || replicasPerMaster > 5) {
            throw new IllegalArgumentException("replicasPerMaster must be in [0, 5], was " + replicasPerMaster);
        }
        if (nodeTimeout.toMillis() < 100) {
            throw new IllegalArgumentException("nodeTimeout must be at least 100 ms, was " + nodeTimeout);
        }
        List<String> args = List.of(
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", Long.toString(nodeTimeout.toMillis()),
                "--cluster-require-full-coverage", "no",
                "--cluster-replica-validity-factor", "0",
                "--repl-diskless-sync", "yes",
                "--repl-diskless-sync-delay", "0");
        List<RedisServer> started = new ArrayList<>();
        try {
            for (int i = 0; i < masters * (1 + replicasPerMaster); i++) {
                started.add(RedisServer.start(binary, args, FreePort::findWithClusterBus));
            }
            RedisCluster cluster = new RedisCluster(started, masters, nodeTimeout);
            long startNanos = System.nanoTime();
            cluster.form(replicasPerMaster);
            log.debug("cluster of {} nodes formed in {} ms", started.size(),
                    (System.nanoTime() - startNanos) / 1_000_000);
            return cluster;
        } catch (RuntimeException e) {
            started.forEach(RedisServer::close);
            throw e;
        }
    }

    private void form(int replicasPerMaster) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            RedisServer node = nodes.get(i);
            ids.add(node.command("CLUSTER", "MYID"));
            // Distinct epochs up front, as redis-cli does: no epoch collisions to resolve later.
            expectOk(node, "CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
        }
        for (int m = 0; m < masters; m++) {
            List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            // ADDSLOTS with every slot listed, not ADDSLOTSRANGE: that needs Redis 7.
            for (int slot = m * SLOTS / masters; slot < (m + 1) * SLOTS / masters; slot++) {
                command.add(Integer.toString(slot));
            }
            expectOk(nodes.get(m), command.toArray(String[]::new));
        }
        RedisServer first = nodes.get(0);
        for (RedisServer other : nodes.subList(1, nodes.size())) {
            expectOk(first, "CLUSTER", "MEET", other.host(), Integer.toString(other.port()));
        }
        await("every node to know all " + nodes.size() + " nodes", FORMATION_TIMEOUT,
                () -> nodes.stream().allMatch(n -> {
                    List<ClusterNode> view = view(n);
                    return view.size() == nodes.size() && view.stream().allMatch(ClusterNode::isConnected);
                }));
        for (int m = 0; m < masters; m++) {
            for (int r = 0; r < replicasPerMaster; r++) {
                RedisServer replica = nodes.get(masters + m * replicasPerMaster + r);
                expectOk(replica, "CLUSTER", "REPLICATE", ids.get(m));
            }
        }
        awaitHealthy(FORMATION_TIMEOUT);
    }

    /** Every node, masters first in the order they were started; killed nodes included. */
    public List<RedisServer> nodes() {
        return nodes;
    }

    /** The nodes that are alive and masters now (after a failover, a promoted replica is one). */
    public List<RedisServer> masters() {
        return liveView().stream()
                .filter(n -> n.isMaster() && !n.isFailing())
                .map(n -> nodeByPort.get(n.port()))
                .filter(s -> s != null && s.isAlive())
                .toList();
    }

    /** The nodes that are alive and replicas now. */
    public List<RedisServer> replicas() {
        return liveView().stream()
                .filter(n -> !n.isMaster() && !n.isFailing())
                .map(n -> nodeByPort.get(n.port()))
                .filter(s -> s != null && s.isAlive())
                .toList();
    }

    /** {@code redis://127.0.0.1:port} of every live node: seeds for a cluster client. */
    public List<String> uris() {
        return nodes.stream().filter(RedisServer::isAlive).map(RedisServer::uri).toList();
    }

    /** The hash slot of {@code key}, as the cluster computes it ({@code CLUSTER KEYSLOT}). */
    public int slotOf(String key) {
        return Integer.parseInt(anyLiveNode().command("CLUSTER", "KEYSLOT", key).substring(1));
    }

    /**
     * The node that owns {@code key}'s slot in the cluster's current view: the master that serves
     * it, or, just after that master was killed and before a replica took over, the dead master.
     */
    public RedisServer masterOf(String key) {
        int slot = slotOf(key);
        return ownerOf(slot, liveView())
                .map(n -> nodeByPort.get(n.port()))
                .orElseThrow(() -> new IllegalStateException("no node owns slot " + slot));
    }

    /** Kills the master owning {@code key}'s slot at once ({@code SIGKILL}); returns it. */
    public RedisServer killMasterOf(String key) {
        RedisServer master = masterOf(key);
        master.kill();
        return master;
    }

    /**
     * Waits until a live master serves {@code key}'s slot again (a replica took over from a killed
     * master), every live node reports {@code cluster_state:ok} and agrees; returns the new master.
     */
    public RedisServer awaitLiveMasterOf(String key, Duration timeout) {
        int slot = slotOf(key);
        await("a live master for slot " + slot, timeout, () -> {
            Optional<ClusterNode> owner = ownerOf(slot, liveView());
            return owner.isPresent() && nodeByPort.get(owner.get().port()).isAlive()
                    && liveNodes().stream().allMatch(n -> clusterStateOk(n)
                            && ownerOf(slot, view(n)).map(ClusterNode::port).equals(owner.map(ClusterNode::port)));
        });
        return masterOf(key);
    }

    /**
     * Waits until every live node reports {@code cluster_state:ok}, all live nodes agree on every
     * node's role and master, and every live replica's link to its master is up.
     */
    public void awaitHealthy(Duration timeout) {
        await("a healthy cluster", timeout, () -> {
            List<RedisServer> live = liveNodes();
            if (!live.stream().allMatch(RedisCluster::clusterStateOk)) {
                return false;
            }
            Map<Integer, String> roles = roles(view(live.get(0)));
            for (RedisServer node : live) {
                if (!roles(view(node)).equals(roles)) {
                    return false;
                }
            }
            for (ClusterNode n : view(live.get(0))) {
                RedisServer server = nodeByPort.get(n.port());
                if (!n.isMaster() && server != null && server.isAlive()
                        && !server.command("INFO", "replication").contains("master_link_status:up")) {
                    return false;
                }
            }
            return true;
        });
    }

    /** The {@code cluster-node-timeout} the nodes run with. */
    public Duration nodeTimeout() {
        return nodeTimeout;
    }

    /** {@code CLUSTER NODES} as seen by a live node, for diagnostics. */
    public String describe() {
        return anyLiveNode().command("CLUSTER", "NODES");
    }

    @Override
    public void close() {
        nodes.forEach(RedisServer::close);
    }

    private List<RedisServer> liveNodes() {
        return nodes.stream().filter(RedisServer::isAlive).toList();
    }

    private RedisServer anyLiveNode() {
        return liveNodes().stream().findFirst()
                .orElseThrow(() -> new IllegalStateException("every node of the cluster is dead"));
    }

    private List<ClusterNode> liveView() {
        return view(anyLiveNode());
    }

    private static List<ClusterNode> view(RedisServer node) {
        return ClusterNode.parseAll(node.command("CLUSTER", "NODES"));
    }

    private static Optional<ClusterNode> ownerOf(int slot, List<ClusterNode> view) {
        return view.stream().filter(n -> n.isMaster() && n.owns(slot)).findFirst();
    }

    /** Port to "master" or "replica of port", excluding nodes marked failed. */
    private static Map<Integer, String> roles(List<ClusterNode> view) {
        Map<String, Integer> portById = new HashMap<>();
        view.forEach(n -> portById.put(n.id(), n.port()));
        Map<Integer, String> roles = new HashMap<>();
        for (ClusterNode n : view) {
            if (!n.isFailing()) {
                roles.put(n.port(), n.isMaster() ? "master" : "replica of " + portById.get(n.masterId()));
            }
        }
        return roles;
    }

    private static boolean clusterStateOk(RedisServer node) {
        return node.command("CLUSTER", "INFO").contains("cluster_state:ok");
    }

    private static void expectOk(RedisServer node, String... command) {
        String reply = node.command(command);
        if (!reply.equals("+OK")) {
            String shown = command.length > 6 ? String.join(" ", List.of(command).subList(0, 6)) + " ..."
                    : String.join(" ", command);
            throw new IllegalStateException("node " + node.port() + " answered " + reply + " to " + shown);
        }
    }

    private void await(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        RuntimeException lastError = null;
        while (System.nanoTime() < deadline) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
                lastError = null;
            } catch (RuntimeException e) {
                lastError = e; // a node may be between states; look again
            }
            sleep(POLL_MILLIS);
        }
        String state;
        try {
            state = describe();
        } catch (RuntimeException e) {
            state = "(unavailable: " + e + ")";
        }
        throw new IllegalStateException("timed out after " + timeout + " waiting for " + what
                + "; cluster nodes:\n" + state, lastError);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the cluster", e);
        }
    }
}
