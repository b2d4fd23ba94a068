package dev.tollgate.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * One line of {@code CLUSTER NODES}: how one node sees another (or itself).
 *
 * <p>Line format: {@code <id> <ip:port@cport[,hostname]> <flags> <master-id|-> <ping-sent>
 * <pong-recv> <config-epoch> <link-state> <slot-or-range>...}; slots being migrated appear as
 * {@code [slot->-id]} and are ignored here.
 */
record ClusterNode(String id, int port, Set<String> flags, String masterId, boolean isConnected,
                   List<int[]> slotRanges) {

    static List<ClusterNode> parseAll(String clusterNodes) {
        if (clusterNodes.startsWith("-")) {
            throw new IllegalStateException("CLUSTER NODES failed: " + clusterNodes);
        }
        List<ClusterNode> nodes = new ArrayList<>();
        for (String line : clusterNodes.split("\n")) {
            if (!line.isBlank()) {
                nodes.add(parse(line.trim()));
            }
        }
        return nodes;
    }

    static ClusterNode parse(String line) {
        String[] f = line.split(" ");
        if (f.length < 8) {
            throw new IllegalArgumentException("not a CLUSTER NODES line: " + line);
        }
        String address = f[1];
        int end = address.indexOf('@') < 0 ? address.length() : address.indexOf('@');
        int port = Integer.parseInt(address.substring(address.lastIndexOf(':', end) + 1, end));
        List<int[]> ranges = new ArrayList<>();
        for (int i = 8; i < f.length; i++) {
            if (f[i].startsWith("[")) {
                continue;
            }
            int dash = f[i].indexOf('-');
            int from = Integer.parseInt(dash < 0 ? f[i] : f[i].substring(0, dash));
            int to = dash < 0 ? from : Integer.parseInt(f[i].substring(dash + 1));
            ranges.add(new int[] {from, to});
        }
        return new ClusterNode(f[0], port, Set.of(f[2].split(",")), f[3],
                f[7].equals("connected"), List.copyOf(ranges));
    }

    boolean isMaster() {
        return flags.contains("master");
    }

    /** Marked failed ({@code fail}) or suspected ({@code fail?}) by the node that reported it. */
    boolean isFailing() {
        return flags.contains("fail") || flags.contains("fail?");
    }

    boolean owns(int slot) {
        return slotRanges.stream().anyMatch(r -> r[0] <= slot && slot <= r[1]);
    }
}
