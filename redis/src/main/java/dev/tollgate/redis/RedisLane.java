package dev.tollgate.redis;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.util.concurrent.EventExecutor;

/**
 * One open connection to Redis (standalone or cluster) and the Netty event loop that does its I/O:
 * calls are written on that loop, and their replies read there.
 */
public record RedisLane(RedisClusterAsyncCommands<String, String> commands, EventExecutor ioLoop) {
}
