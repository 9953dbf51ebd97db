#!/usr/bin/env bash
# A tmkit cluster on one machine: etcd plus three `tmkit serve` nodes on loopback, each its own probing location.
#
#   examples/cluster/cluster.sh start     start etcd and the nodes, apply examples/cluster/app.json through node 1
#   examples/cluster/cluster.sh status    what runs, and each node's /healthz
#   examples/cluster/cluster.sh stop      stop the nodes and etcd (only the processes this script started)
#
# Ports (TMKIT_CLUSTER_PORT_BASE, default 5300): DNS base+1..3, API base+81..83, etcd client base+90, peer base+91.
# State (etcd data, node state dirs, pids, logs, the shared API token) lives in examples/cluster/.run/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
run="${TMKIT_CLUSTER_RUN_DIR:-$here/.run}"
base="${TMKIT_CLUSTER_PORT_BASE:-5300}"
etcd_bin="${TMKIT_ETCD:-$(command -v etcd || echo /usr/bin/etcd)}"
tmkit=(node "$repo/dist/src/cli/bin.js")
locations=(westeurope eastus southeastasia)
etcd_port=$((base + 90))
peer_port=$((base + 91))

die() { echo "cluster.sh: $*" >&2; exit 1; }
alive() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }
# GET a URL (no curl needed): exit 0 on a 2xx answer, print the body with -p.
get() { GET_PRINT="$([[ $1 = -p ]] && echo 1 || true)" node -e 'fetch(process.argv[1]).then(async (r) => { if (process.env.GET_PRINT) process.stdout.write((await r.text()).replace(/\s+/g, "").slice(0, 160) + "\n"); process.exit(r.ok ? 0 : 1); }, () => { if (process.env.GET_PRINT) process.stdout.write("no answer\n"); process.exit(1); })' "$2"; }

wait_for() { # what, command...
  local what="$1"; shift
  for _ in $(seq 1 200); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  die "$what did not come up in 20 s (logs in $run)"
}

start() {
  [[ -x "$etcd_bin" ]] || die "etcd not found: install Debian's etcd-server (apt-get install etcd-server) or set TMKIT_ETCD"
  [[ -f "$repo/dist/src/cli/bin.js" ]] || die "tmkit is not built: run npm ci (or npm run build) in $repo first"
  mkdir -p "$run"
  if alive "$run/etcd.pid"; then die "already running (examples/cluster/cluster.sh stop first)"; fi
  [[ -f "$run/token" ]] || { head -c 32 /dev/urandom | base64 | tr -d '=+/\n' > "$run/token"; chmod 600 "$run/token"; }
  export TMKIT_TOKEN; TMKIT_TOKEN="$(cat "$run/token")"

  "$etcd_bin" --name tmkit-example --data-dir "$run/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "tmkit-example=http://127.0.0.1:$peer_port" --log-level warn > "$run/etcd.log" 2>&1 &
  echo $! > "$run/etcd.pid"
  wait_for etcd get -q "http://127.0.0.1:$etcd_port/health"

  for i in 1 2 3; do
    "${tmkit[@]}" serve --state-dir "$run/node$i" --dns "127.0.0.1:$((base + i))" --api "127.0.0.1:$((base + 80 + i))" \
      --store "etcd://127.0.0.1:$etcd_port/tmkit-example" --node "node$i" --location "${locations[$((i - 1))]}" \
      --log-level warn > "$run/node$i.log" 2>&1 &
    echo $! > "$run/node$i.pid"
  done
  for i in 1 2 3; do wait_for "node$i" get -q "http://127.0.0.1:$((base + 80 + i))/healthz"; done
  "${tmkit[@]}" apply "$here/app.json" --yes --server "http://127.0.0.1:$((base + 81))" | tail -n 2 | sed 's/^/  /'
  cat <<INFO
cluster.sh: etcd on 127.0.0.1:$etcd_port and three nodes (token in $run/token):
  node1  ${locations[0]}  dig @127.0.0.1 -p $((base + 1)) web.tm.internal   API http://127.0.0.1:$((base + 81))
  node2  ${locations[1]}  dig @127.0.0.1 -p $((base + 2)) web.tm.internal   API http://127.0.0.1:$((base + 82))
  node3  ${locations[2]}  dig @127.0.0.1 -p $((base + 3)) web.tm.internal   API http://127.0.0.1:$((base + 83))
  export TMKIT_TOKEN=\$(cat $run/token)
  npx tmkit status web --server http://127.0.0.1:$((base + 82))      # each location's verdict and the aggregate
INFO
}

stop() {
  local any=0
  for f in "$run"/node1.pid "$run"/node2.pid "$run"/node3.pid "$run"/etcd.pid; do
    if alive "$f"; then
      any=1
      local pid; pid="$(cat "$f")"
      kill -TERM "$pid"
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    fi
    rm -f "$f"
  done
  [[ $any = 1 ]] && echo "cluster.sh: stopped (state kept in $run; delete it to start afresh)" || echo "cluster.sh: nothing was running"
}

status() {
  for n in etcd node1 node2 node3; do
    if alive "$run/$n.pid"; then echo "$n: running (pid $(cat "$run/$n.pid"))"; else echo "$n: not running"; fi
  done
  for i in 1 2 3; do
    printf 'node%s /healthz: ' "$i"; get -p "http://127.0.0.1:$((base + 80 + i))/healthz" || true
  done
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: examples/cluster/cluster.sh start|status|stop" >&2; exit 2 ;;
esac
