#!/usr/bin/env bash
# Hand check at saturation, side by side in one run: two Tollgate gateway jars (e.g. the last release
# and a change) and the second jar with the limiter off, behind nginx, on one Redis, static rules with a
# limit no request reaches, 1,000 tenants rotating; wrk -t2 -c32, rounds interleaved, req/s per round.
# Needs redis-server, nginx and wrk on the PATH (apt-get install redis-server nginx-light wrk); uses
# ports 16390, 18099 and 18100-18301 on 127.0.0.1, and stops everything it started.
#
#   bench/compare-jars.sh OLD.jar NEW.jar [ROUNDS=5] [DURATION=15s]
set -euo pipefail
OLD=$1; NEW=$2; ROUNDS=${3:-5}; DUR=${4:-15s}
W=/tmp/tollgate-compare-jars; rm -rf $W; mkdir -p $W
redis-server --port 16390 --bind 127.0.0.1 --save "" --appendonly no --daemonize yes --pidfile $W/redis.pid --logfile $W/redis.log
cat > $W/nginx.conf <<NG
worker_processes 1; pid $W/nginx.pid; error_log $W/nginx.err; daemon on;
events { worker_connections 1024; }
http { access_log off; server { listen 127.0.0.1:18099; location / { return 200 "ok"; } } }
NG
nginx -c $W/nginx.conf
cat > $W/keys.lua <<'LUA'
local i = 0
request = function()
  i = (i + 1) % 1000
  return wrk.format("GET", "/x", {["X-Api-Key"] = "t" .. i})
end
LUA
start() { # name jar port extra...
  local name=$1 jar=$2 port=$3; shift 3
  java -Xms512m -Xmx512m -jar $jar --server.port=$port --management.server.port=$((port+1)) \
    --spring.data.redis.port=16390 --tollgate.source=static \
    --tollgate.default-rule.capacity=1000000000 --tollgate.default-rule.refill-per-second=1000000 \
    --tollgate.local-state.enabled=false \
    --spring.cloud.gateway.server.webflux.routes[0].id=all \
    --spring.cloud.gateway.server.webflux.routes[0].uri=http://127.0.0.1:18099 \
    --spring.cloud.gateway.server.webflux.routes[0].predicates[0]=Path=/** "$@" > $W/$name.log 2>&1 &
  echo $! > $W/$name.pid
}
stop_all() { for p in $W/*.pid; do kill $(cat $p) 2>/dev/null || true; done; }
trap stop_all EXIT
start old $OLD 18100
start new $NEW 18200
start off $NEW 18300 --tollgate.enabled=false
for port in 18100 18200 18300; do
  for i in $(seq 1 90); do curl -s -o /dev/null -H 'X-Api-Key: t1' 127.0.0.1:$port/x && break; sleep 1; done
done
for port in 18100 18200 18300; do wrk -t2 -c32 -d30s -s $W/keys.lua http://127.0.0.1:$port/ > /dev/null; done
for r in $(seq 1 $ROUNDS); do
  for g in old:18100 new:18200 off:18300; do
    name=${g%%:*}; port=${g##*:}
    rps=$(wrk -t2 -c32 -d$DUR -s $W/keys.lua http://127.0.0.1:$port/ | awk '/Requests\/sec/ {print $2}')
    non2xx=$(curl -s -o /dev/null -w '%{http_code}' -H 'X-Api-Key: t5' 127.0.0.1:$port/x)
    echo "round $r $name $rps (probe $non2xx)"
  done
done
