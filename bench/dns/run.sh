#!/usr/bin/env bash
# DNS throughput: tmkit vs gdnsd vs the Node.js ceiling (a node:dgram server that only copies the query
# ID into a canned reply), measured with dnsperf in the same run; tmkit twice: unsigned (plain queries) and
# signed ("tmkit-dnssec": `tmkit dns --dnssec`, every query with the DO bit, so every answer carries RRSIGs),
# and the signed/unsigned ratio printed per setup; and twice more with the issue 39 guards ("tmkit-guarded":
# `--rrl 1000000`, a limit far above the bench rate, no exempt list, cookies on) and without them
# ("tmkit-bare": `--no-cookies`, no RRL), both sent the same queries with EDNS and a client cookie (dnsperf -E),
# so every guarded answer computes a server cookie and is counted by the rate limiter; the guarded/bare ratio
# printed per setup; and dnstap (issue 42): "tmkit-dnstap" (`--dnstap unix:… --dnstap-sample 1`, every query and
# answer with its decision to an fstrm_capture reader writing to /dev/null) and "tmkit-dnstap100" (`--dnstap-sample
# 100`), each against plain "tmkit" in the same run. Setups:
#   (a) pinned:   every server on CPU 0 (taskset -c 0), dnsperf (and the dnstap reader) on CPU 1; tmkit and the
#       ceiling 1 process
#   (b) unpinned: no pinning; tmkit --workers 2 and the ceiling with 2 cluster workers, both sharing one
#       socket (TMKIT_DNS_REUSEPORT=0 for tmkit), gdnsd default threads
#   (c) reuseport: no pinning; tmkit --workers 2 and the ceiling with 2 processes, each with its own
#       SO_REUSEPORT socket (needs Node >= 22.12: DNS_BENCH_NODE); gdnsd as in (b)
# Per server and setup: a throughput pass (dnsperf, no per-query output), a shorter latency pass at 50% of
# that server's measured saturation rate (dnsperf -Q)
# (dnsperf -v, percentiles from the per-query latencies), and a CPU-cost pass: a fixed rate below
# saturation (dnsperf -Q) while the server's CPU time is read from /proc — CPU microseconds per query
# barely move when other processes share the machine, unlike queries/second. Figures only; not a test.
# Needs: dnsperf, gdnsd (Debian: apt-get install dnsperf gdnsd), dig, taskset, node.
#      Without gdnsd its rows are left out (a note says so).
# Env: DNS_BENCH_SECONDS (throughput pass, default 10), DNS_BENCH_LATENCY_SECONDS (default 5),
#      DNS_BENCH_OUTSTANDING (dnsperf -q, default 100), DNS_BENCH_CLIENTS (dnsperf -c, default 8 source ports), DNS_BENCH_PORT (first of 3 ports, default 15391),
#      DNS_BENCH_ROUNDS (default 1: every server once per setup; more rounds interleave and keep the best),
#      DNS_BENCH_CPU_SECONDS (CPU-cost pass, default 5), DNS_BENCH_CPU_RATE (its queries/second, default 10000),
#      DNS_BENCH_NODE (the node binary for tmkit and the ceiling, default node; e.g. Node 24 from
#      scripts/install-node.sh), DNS_BENCH_SETUPS (default "pinned unpinned", plus "reuseport" when
#      DNS_BENCH_NODE has reusePort), DNS_BENCH_SERVERS (default all: "ceiling tmkit tmkit-dnssec tmkit-bare
#      tmkit-guarded tmkit-dnstap tmkit-dnstap100 gdnsd"; e.g. "tmkit-bare tmkit-guarded" for the guards' ratio
#      alone, "tmkit tmkit-dnstap tmkit-dnstap100" for dnstap's). The dnstap rows need fstrm_capture (fstrm-bin).
set -euo pipefail
cd "$(dirname "$0")/../.."

NODE=${DNS_BENCH_NODE:-node}
for tool in dnsperf dig taskset "$NODE"; do
  command -v "$tool" >/dev/null 2>&1 || { echo "bench:dns: '$tool' not found (Debian: apt-get install dnsperf gdnsd bind9-dnsutils util-linux)" >&2; exit 1; }
done
SERVERS="ceiling tmkit tmkit-dnssec tmkit-bare tmkit-guarded tmkit-dnstap tmkit-dnstap100 gdnsd"
if ! command -v gdnsd >/dev/null 2>&1; then
  echo "bench:dns: gdnsd not found (Debian: apt-get install gdnsd): its rows are left out" >&2
  SERVERS=${SERVERS% gdnsd}
fi
if ! command -v fstrm_capture >/dev/null 2>&1; then
  echo "bench:dns: fstrm_capture not found (Debian: apt-get install fstrm-bin): the dnstap rows are left out" >&2
  SERVERS=${SERVERS/ tmkit-dnstap tmkit-dnstap100/}
fi
SERVERS=${DNS_BENCH_SERVERS:-$SERVERS}
# reusePort: the same test as tmkit's (src/runtime/dns/reuse-port.ts): two sockets bound on one port.
HAS_REUSEPORT=$("$NODE" -e "
  const d = require('node:dgram'); const a = d.createSocket({ type: 'udp4', reusePort: true });
  a.bind({ port: 0, address: '127.0.0.1', exclusive: true }, () => {
    const b = d.createSocket({ type: 'udp4', reusePort: true });
    b.on('error', () => { console.log('no'); process.exit(0); });
    b.bind({ port: a.address().port, address: '127.0.0.1', exclusive: true }, () => { console.log('yes'); process.exit(0); });
  });")
DEFAULT_SETUPS="pinned unpinned"
[ "$HAS_REUSEPORT" = yes ] && DEFAULT_SETUPS="pinned unpinned reuseport"
SETUPS=${DNS_BENCH_SETUPS:-$DEFAULT_SETUPS}
if [[ " $SETUPS " == *" reuseport "* && "$HAS_REUSEPORT" != yes ]]; then
  echo "bench:dns: the reuseport setup needs a node with reusePort (>= 22.12): set DNS_BENCH_NODE (bash scripts/install-node.sh 24)" >&2; exit 1
fi
if [ "$(nproc)" -lt 2 ]; then echo "bench:dns: needs at least 2 CPUs for the pinned setup" >&2; exit 1; fi

SECS=${DNS_BENCH_SECONDS:-10}
LSECS=${DNS_BENCH_LATENCY_SECONDS:-5}
OUTSTANDING=${DNS_BENCH_OUTSTANDING:-100}
# dnsperf clients: each has its own socket (source port). SO_REUSEPORT hashes by source address and port,
# so one client would land on one worker; resolvers use many ports.
CLIENTS=${DNS_BENCH_CLIENTS:-8}
ROUNDS=${DNS_BENCH_ROUNDS:-1}
CSECS=${DNS_BENCH_CPU_SECONDS:-5}
CRATE=${DNS_BENCH_CPU_RATE:-10000}
TICK_US=$((1000000 / $(getconf CLK_TCK)))
CLIENT_COOKIE=0123456789abcdef
BASE=${DNS_BENCH_PORT:-15391}
P_GDNSD=$BASE; P_TMKIT=$((BASE + 1)); P_CEIL=$((BASE + 2))
TMP=$(mktemp -d /tmp/tmkit-bench-dns.XXXXXX)
SPID=""
TAPPID=""
cleanup() {
  if [ -n "$SPID" ]; then kill "$SPID" 2>/dev/null || true; fi
  if [ -n "$TAPPID" ]; then kill "$TAPPID" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT

# --- The same zone for every server: a weighted name (1:3) and a failover name (primary/secondary) ---------
cat > "$TMP/doc.json" <<'JSON'
{ "apiVersion": "tmkit/v1", "profiles": [
  { "name": "weighted", "trafficRoutingMethod": "Weighted", "dnsConfig": { "relativeName": "weighted", "ttl": 30 },
    "monitorConfig": { "protocol": "HTTP", "port": 80, "path": "/" },
    "endpoints": [ { "name": "a", "type": "externalEndpoints", "target": "192.0.2.1", "weight": 1 },
                   { "name": "b", "type": "externalEndpoints", "target": "192.0.2.2", "weight": 3 } ] },
  { "name": "failover", "trafficRoutingMethod": "Priority", "dnsConfig": { "relativeName": "failover", "ttl": 10 },
    "monitorConfig": { "protocol": "HTTP", "port": 80, "path": "/" },
    "endpoints": [ { "name": "primary", "type": "externalEndpoints", "target": "192.0.2.10", "priority": 1 },
                   { "name": "secondary", "type": "externalEndpoints", "target": "192.0.2.11", "priority": 2 } ] } ] }
JSON
mkdir -p "$TMP/gdnsd/zones"
cat > "$TMP/gdnsd/config" <<GDNSD_CONFIG
options => {
  listen => [ 127.0.0.1 ]
  dns_port => $P_GDNSD
  zones_default_ttl => 30
}
plugins => {
  weighted => { wname => { a = [ 192.0.2.1, 1 ], b = [ 192.0.2.2, 3 ] } }
  simplefo => { fname => { primary => 192.0.2.10, secondary => 192.0.2.11 } }
}
GDNSD_CONFIG
cat > "$TMP/gdnsd/zones/tm.internal" <<'GDNSD_ZONE'
@ 300 SOA ns1 hostmaster 1 3600 600 86400 30
@ 300 NS ns1.tm.internal.
@ 300 NS ns2.tm.internal.
ns1 300 A 127.0.0.1
ns2 300 A 127.0.0.2
weighted 30 DYNA weighted!wname
failover 10 DYNA simplefo!fname
GDNSD_ZONE
printf 'weighted.tm.internal A\nfailover.tm.internal A\n' > "$TMP/queries.txt"
if [[ " $SERVERS " == *" gdnsd "* ]]; then
  gdnsd -c "$TMP/gdnsd" checkconf >"$TMP/gdnsd-checkconf.log" 2>&1 || { cat "$TMP/gdnsd-checkconf.log" >&2; exit 1; }
fi

# --- Helpers ---------------------------------------------------------------------------------------------
wait_dns() { # port name
  for _ in $(seq 1 200); do
    if dig +tries=1 +time=1 +short @127.0.0.1 -p "$1" weighted.tm.internal A 2>/dev/null | grep -q 192.0.2; then return 0; fi
    sleep 0.1
  done
  echo "bench:dns: $2 did not answer on port $1" >&2
  return 1
}

start_server() { # name setup(pinned|unpinned|reuseport) -> sets SPID and PORT
  local name=$1 setup=$2 w=1 sockets=shared reuse=1
  local pre=()
  if [ "$setup" = pinned ]; then pre=(taskset -c 0); else w=2; fi
  if [ "$setup" = reuseport ]; then sockets=reuseport; else reuse=0; fi
  case $name in
    ceiling) PORT=$P_CEIL
             "${pre[@]}" "$NODE" bench/dns/ceiling.js "$PORT" "$w" "$sockets" >"$TMP/ceiling.log" 2>&1 & SPID=$! ;;
    tmkit|tmkit-dnssec|tmkit-bare|tmkit-guarded|tmkit-dnstap|tmkit-dnstap100)
             PORT=$P_TMKIT
             local signed=()
             case $name in
               tmkit-dnssec) signed=(--dnssec --dnssec-key-file "$TMP/dnssec-keys.json") ;;
               tmkit-bare) signed=(--no-cookies) ;;
               tmkit-guarded) signed=(--rrl 1000000) ;;
               tmkit-dnstap) signed=(--dnstap "unix:$TMP/tap.sock" --dnstap-sample 1) ;;
               tmkit-dnstap100) signed=(--dnstap "unix:$TMP/tap.sock" --dnstap-sample 100) ;;
             esac
             TMKIT_DNS_REUSEPORT=$reuse "${pre[@]}" "$NODE" -r @swc-node/register bench/dns/tmkit.ts dns --document "$TMP/doc.json" --zone tm.internal \
               --listen "127.0.0.1:$PORT" --workers "$w" "${signed[@]}" >"$TMP/tmkit.log" 2>&1 & SPID=$! ;;
    gdnsd)   PORT=$P_GDNSD
             "${pre[@]}" gdnsd -c "$TMP/gdnsd" start >"$TMP/gdnsd.log" 2>&1 & SPID=$! ;;
  esac
  wait_dns "$PORT" "$name"
}

stop_server() {
  kill -TERM "$SPID" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$SPID" 2>/dev/null || true
  wait "$SPID" 2>/dev/null || true
  SPID=""
}

# CPU time (clock ticks, user + system, all threads) of the server process and its children (workers).
cpu_ticks() {
  local total=0 p t
  for p in "$SPID" $(pgrep -P "$SPID" 2>/dev/null || true); do
    t=$(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)
    total=$((total + t))
  done
  echo "$total"
}

declare -A QPS P50 P90 P99 P999 LOST CPU
run_one() { # name setup(pinned|unpinned)
  local name=$1 setup=$2 pin=no
  local perfpre=()
  if [ "$setup" = pinned ]; then pin=yes; perfpre=(taskset -c 1); fi
  # The signed server gets every query with the DNSSEC OK bit (and so EDNS): its answers carry RRSIGs.
  case $name in
    tmkit-dnssec) perfpre+=(dnsperf -D) ;;
    tmkit-bare|tmkit-guarded) perfpre+=(dnsperf -E "10:$CLIENT_COOKIE") ;; # EDNS COOKIE: a client cookie only
    *) perfpre+=(dnsperf) ;;
  esac
  start_server "$name" "$setup"
  if [[ "$name" == tmkit* ]]; then sed "s/^/    [$setup] /" "$TMP/tmkit.log" >&2; fi
  # warm-up (JIT, caches)
  "${perfpre[@]}" -s 127.0.0.1 -p "$PORT" -d "$TMP/queries.txt" -l 2 -q "$OUTSTANDING" -c "$CLIENTS" >/dev/null 2>&1 || true
  "${perfpre[@]}" -s 127.0.0.1 -p "$PORT" -d "$TMP/queries.txt" -l "$SECS" -q "$OUTSTANDING" -c "$CLIENTS" >"$TMP/perf.txt" 2>&1
  # Latency at half of this server's own saturation rate (a loaded but not saturated server; at saturation
  # the percentiles only measure dnsperf's queue).
  local half
  half=$(awk '/Queries per second:/ {printf "%.0f", $4 / 2}' "$TMP/perf.txt")
  "${perfpre[@]}" -s 127.0.0.1 -p "$PORT" -d "$TMP/queries.txt" -l "$LSECS" -Q "${half:-1000}" -q "$OUTSTANDING" -c "$CLIENTS" -v >"$TMP/perf-v.txt" 2>&1
  local t0 t1 done cpu
  t0=$(cpu_ticks)
  "${perfpre[@]}" -s 127.0.0.1 -p "$PORT" -d "$TMP/queries.txt" -l "$CSECS" -Q "$CRATE" -q "$OUTSTANDING" -c "$CLIENTS" >"$TMP/perf-cpu.txt" 2>&1
  t1=$(cpu_ticks)
  stop_server
  done=$(awk '/Queries completed:/ {print $3}' "$TMP/perf-cpu.txt")
  cpu=$(awk -v d="$((t1 - t0))" -v n="$done" -v us="$TICK_US" 'BEGIN { if (n > 0) printf "%.1f", d * us / n; else print "-" }')
  local key="$name/$setup" qps lost p50 p90 p99 p999
  qps=$(awk '/Queries per second:/ {printf "%.0f", $4}' "$TMP/perf.txt")
  lost=$(awk '/Queries lost:/ {print $3 " " $4}' "$TMP/perf.txt")
  read -r p50 p90 p99 p999 < <(awk '/^> / {print $NF}' "$TMP/perf-v.txt" | sort -g | awk '
    { v[NR] = $1 } END { if (NR == 0) { print "- - - -"; exit }
      split("0.5 0.9 0.99 0.999", q, " ");
      for (i = 1; i <= 4; i++) { k = int(q[i] * NR); if (k < 1) k = 1; printf "%.3f ", v[k] * 1000 } print "" }')
  if [[ "$name" == tmkit* ]]; then grep -h "handled" "$TMP/tmkit.log" | sed "s/^/    [$setup] /" >&2 || true; fi
  printf '  %-8s %-9s %8s qps  lost %-12s p50 %6s ms  p90 %6s ms  p99 %6s ms  p99.9 %6s ms  cpu %5s us/query\n' \
    "$name" "$setup" "$qps" "$lost" "$p50" "$p90" "$p99" "$p999" "$cpu" >&2
  # CPU cost: keep the lowest (least disturbed) round.
  if [ -z "${CPU[$key]:-}" ] || awk -v a="$cpu" -v b="${CPU[$key]}" 'BEGIN { exit !(a + 0 < b + 0) }'; then CPU[$key]=$cpu; fi
  # Keep the best round (the machine may be shared; the best round is the least disturbed one).
  if [ -z "${QPS[$key]:-}" ] || [ "$qps" -gt "${QPS[$key]}" ]; then
    QPS[$key]=$qps; LOST[$key]=$lost; P50[$key]=$p50; P90[$key]=$p90; P99[$key]=$p99; P999[$key]=$p999
  fi
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f%%", 100 * a / b; else print "n/a" }'; }

echo "bench:dns: node $("$NODE" -v) (reusePort: $HAS_REUSEPORT), dnsperf $(dnsperf -H 2>&1 | awk '/^Version/ {print $2; exit}'), gdnsd $(command -v gdnsd >/dev/null 2>&1 && gdnsd -c "$TMP/gdnsd" checkconf 2>&1 | awk '/gdnsd version/ {print $4; exit}' || echo absent), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "bench:dns: ${SECS}s throughput + ${LSECS}s latency pass per server and setup, ${ROUNDS} round(s), dnsperf -q $OUTSTANDING -c $CLIENTS, names: weighted (1:3) and failover" >&2
# The dnstap reader for the dnstap rows: accepts every DNS process's connection, keeps nothing. On CPU 1 with
# dnsperf (it takes about 5 % of a CPU at 100,000 queries/s): like the load generator, it is another program,
# and on CPU 0 it would take its time from the server being measured.
if [[ " $SERVERS " == *" tmkit-dnstap"* ]]; then
  taskset -c 1 fstrm_capture -t protobuf:dnstap.Dnstap -u "$TMP/tap.sock" -w /dev/null -c 16 >"$TMP/fstrm.log" 2>&1 & TAPPID=$!
  for _ in $(seq 1 50); do [ -S "$TMP/tap.sock" ] && break; sleep 0.1; done
fi
# In-process cost of the packet handler (no sockets), next to the ceiling's copy-and-patch.
"$NODE" -r @swc-node/register bench/dns/handler.ts >"$TMP/handler.txt" 2>&1 || true
sed 's/^/  /' "$TMP/handler.txt" >&2
for setup in $SETUPS; do
  for _round in $(seq 1 "$ROUNDS"); do
    for name in $SERVERS; do
      # gdnsd does not depend on how Node binds: one measurement for both unpinned setups.
      if [ "$name" = gdnsd ] && [ "$setup" = reuseport ] && [[ " $SETUPS " == *" unpinned "* ]]; then continue; fi
      run_one "$name" "$setup"
    done
  done
done

echo
echo "DNS throughput (queries/second; latency percentiles in ms from dnsperf -v at 50% of each server's saturation rate; server CPU microseconds per query at ${CRATE} q/s)"
printf '%-10s %-8s %10s %9s %9s %9s %9s %12s\n' setup server qps p50 p90 p99 p99.9 cpu-us/query
for setup in $SETUPS; do
  for name in $SERVERS; do
    k="$name/$setup"
    [ -n "${QPS[$k]:-}" ] || continue
    printf '%-10s %-8s %10s %9s %9s %9s %9s %12s\n' "$setup" "$name" "${QPS[$k]}" "${P50[$k]}" "${P90[$k]}" "${P99[$k]}" "${P999[$k]}" "${CPU[$k]}"
  done
done
echo
for setup in $SETUPS; do
  [ -n "${QPS[gdnsd/$setup]:-}" ] || { QPS[gdnsd/$setup]=${QPS[gdnsd/unpinned]:-}; CPU[gdnsd/$setup]=${CPU[gdnsd/unpinned]:-}; }
  vs_gdnsd=""; cpu_gdnsd=""
  if [ -n "${QPS[gdnsd/$setup]:-}" ]; then
    vs_gdnsd="   tmkit/gdnsd $(ratio "${QPS[tmkit/$setup]:-}" "${QPS[gdnsd/$setup]}")"
    cpu_gdnsd=", tmkit/gdnsd $(ratio "${CPU[gdnsd/$setup]}" "${CPU[tmkit/$setup]:-}")"
  fi
  echo "$setup: tmkit/ceiling $(ratio "${QPS[tmkit/$setup]:-}" "${QPS[ceiling/$setup]:-}")$vs_gdnsd   (by CPU per query: tmkit/ceiling $(ratio "${CPU[ceiling/$setup]:-}" "${CPU[tmkit/$setup]:-}")$cpu_gdnsd)"
  echo "$setup: DNSSEC signed (DO) / unsigned tmkit: $(ratio "${QPS[tmkit-dnssec/$setup]:-}" "${QPS[tmkit/$setup]:-}") of the queries/second (goal >= 80%), CPU per query unsigned/signed $(ratio "${CPU[tmkit/$setup]:-}" "${CPU[tmkit-dnssec/$setup]:-}")"
  echo "$setup: RRL + cookies (guarded) / without (bare): $(ratio "${QPS[tmkit-guarded/$setup]:-}" "${QPS[tmkit-bare/$setup]:-}") of the queries/second (goal >= 95%), CPU per query bare/guarded $(ratio "${CPU[tmkit-bare/$setup]:-}" "${CPU[tmkit-guarded/$setup]:-}")"
  echo "$setup: dnstap every query / off: $(ratio "${QPS[tmkit-dnstap/$setup]:-}" "${QPS[tmkit/$setup]:-}") of the queries/second (goal >= 80%); every 100th / off: $(ratio "${QPS[tmkit-dnstap100/$setup]:-}" "${QPS[tmkit/$setup]:-}") (goal >= 97%); CPU per query off/every $(ratio "${CPU[tmkit/$setup]:-}" "${CPU[tmkit-dnstap/$setup]:-}"), off/every 100th $(ratio "${CPU[tmkit/$setup]:-}" "${CPU[tmkit-dnstap100/$setup]:-}")"
done
echo "(pinned: servers on CPU 0, dnsperf on CPU 1, tmkit and ceiling 1 process; unpinned: tmkit --workers 2 and ceiling 2 workers sharing one socket, gdnsd default threads; reuseport: tmkit --workers 2 and ceiling 2 processes, a SO_REUSEPORT socket each)"
echo
cat "$TMP/handler.txt"
