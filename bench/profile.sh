#!/usr/bin/env bash
# Samples where a running gateway spends its CPU, with async-profiler, while you put load on it.
#
#   bench/profile.sh PID SECONDS [OUT]
#
# PID is the gateway's process (e.g. `pgrep -f tollgate-gateway`); SECONDS how long to sample; OUT
# the path prefix of what is written (default bench/target/profile-PID):
#   OUT.html       a flame graph of every thread, Java and kernel frames
#   OUT.collapsed  the same samples as one line per distinct stack ("frame;frame;... count"), for grep
#                  and awk: with a sample each millisecond of CPU, the count of a frame divided by the
#                  requests served meanwhile is its CPU per request in microseconds
#
# async-profiler comes from Maven Central (tools.profiler:async-profiler, linux-x64); it is fetched
# into ~/.m2 on first use and loaded into the gateway with jcmd, so the gateway needs no restart and
# no flag. It samples on the CPU clock when the kernel allows perf events, and falls back to a timer
# when it does not (as in most containers); either way the result reads the same. See
# docs/performance.md for how to read the output and what it showed.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -lt 2 ]]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
PID=$1
SECONDS_TO_SAMPLE=$2
OUT=${3:-"$PWD/bench/target/profile-$PID"}
VERSION=4.2
JAR="$HOME/.m2/repository/tools/profiler/async-profiler/$VERSION/async-profiler-$VERSION-linux-x64.jar"

if [[ ! -f "$JAR" ]]; then
  ./mvnw -q -B dependency:get -Dartifact="tools.profiler:async-profiler:$VERSION:jar:linux-x64" -Dtransitive=false
fi
LIB_DIR="$PWD/bench/target/async-profiler-$VERSION"
if [[ ! -f "$LIB_DIR/linux-x64/libasyncProfiler.so" ]]; then
  mkdir -p "$LIB_DIR"
  (cd "$LIB_DIR" && unzip -q -o "$JAR" 'linux-x64/*')
fi
LIB="$LIB_DIR/linux-x64/libasyncProfiler.so"
mkdir -p "$(dirname "$OUT")"

# jcmd reads "name=value" words as its own options, so the agent's option string goes in quotes.
agent() {
  jcmd "$PID" JVMTI.agent_load "$LIB" "\"$1\"" > /dev/null
}
agent "start,event=cpu,interval=1ms"
echo "sampling process $PID for $SECONDS_TO_SAMPLE s; put the load on it now"
sleep "$SECONDS_TO_SAMPLE"
agent "dump,collapsed,file=$OUT.collapsed"
agent "stop,flamegraph,file=$OUT.html"
echo "wrote $OUT.html and $OUT.collapsed ($(awk '{n += $NF} END {print n}' "$OUT.collapsed") samples)"
