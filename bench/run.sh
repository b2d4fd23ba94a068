#!/usr/bin/env bash
# Runs Tollgate's benchmark suite and writes docs/benchmarks.md and docs/benchmarks/*.png.
#
#   bench/run.sh            the full suite (about 20 to 25 minutes on 2 cores: gateways are warmed until their JIT is quiet)
#   bench/run.sh --quick    a smoke run of every step with tiny sizes; writes its report to
#                           bench/target/bench-run/docs/ instead, so docs/ is left alone
#   bench/run.sh --identity the identity scenarios alone (API-key, anonymous and JWT decisions
#                           at saturation; the bogus-key flood with and without the failed-authentication
#                           limit), about 10 minutes; rewrites only their section of docs/benchmarks.md
#                           (with --quick as well: tiny sizes, written under bench/target/bench-run/docs/)
#
# Everything runs on this machine and talks to 127.0.0.1 only: a redis-server (the system's Redis 7+,
# else the one shipped in the embedded-redis jar), a small upstream and the gateways, each in a
# process of its own. All of them are stopped at the end, also when the suite fails or is killed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

QUICK=false
ONLY=""
for arg in "$@"; do
  case "$arg" in
    --quick) QUICK=true ;;
    --identity) ONLY=identity ;;
    *) echo "unknown option: $arg (use --quick and/or --identity)" >&2; exit 2 ;;
  esac
done

# Reactor build of the gateway jar and the bench module; nothing is installed into ~/.m2.
./mvnw -q -pl gateway,bench -am package -DskipTests

RUN_DIR="$ROOT/bench/target/bench-run"
rm -rf "$RUN_DIR"
mkdir -p "$RUN_DIR"

# The suite stops its processes itself (also from a shutdown hook). Should its JVM be killed
# outright, the pids it recorded are ended here, after checking each is still one of ours.
stop_leftovers() {
  [[ -f "$RUN_DIR/pids" ]] || return 0
  while read -r pid; do
    if [[ -r "/proc/$pid/cmdline" ]] \
        && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qE "redis-server|$ROOT"; then
      kill -9 "$pid" 2>/dev/null || true
    fi
  done < "$RUN_DIR/pids"
}
trap stop_leftovers EXIT

CLASSPATH="$ROOT/bench/target/tollgate-bench-0.1.0-SNAPSHOT.jar:$(cat "$ROOT/bench/target/runtime-classpath.txt")"
java -Xms1g -Xmx1g -XX:+UseG1GC -Dbench.quick="$QUICK" -Dbench.only="$ONLY" -cp "$CLASSPATH" \
  dev.tollgate.bench.BenchmarkSuite "$ROOT"
