#!/usr/bin/env bash
# Issue 38's scale target: a history of RUNS runs (1,000) x IDS scenarios (50), each run a real
# selftest run record (icount and wall time) copied under RUNS commits of one branch with values
# that wander and step, imported into SQLite and into PostgreSQL (a throwaway cluster, or PG_URL);
# then `history changes` and `history dashboard` are timed on each (target: at most 5 s each)
# and the dashboard's size is printed.
#
# Usage: scripts/watch-scale.sh [RUNS] [IDS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000}; ids=${2:-50}
cargo build --release -q -p costbench-cli
bin=$(realpath target/release/costbench)
tmp=$(mktemp -d)
cluster=""
cleanup() {
  if [ -n "$cluster" ]; then as_pg "$bindir/pg_ctl" -D "$cluster/data" -m immediate -w stop >/dev/null 2>&1 || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
"$bin" run --manifest-path suites/selftest/Cargo.toml --bench selftest --quiet --no-history \
  --output-dir "$tmp/template" >/dev/null
python3 - "$tmp" "$runs" "$ids" <<'PY'
import json, math, os, random, sys
tmp, runs, ids = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t = json.load(open(f"{tmp}/template/run.json"))
base = [r for r in t["results"] if r.get("icount") and r.get("walltime")]
rng = random.Random(38)
steps = {k: rng.randrange(runs) for k in range(0, ids, 5)}   # every 5th id steps once
for i in range(runs):
    r = json.loads(json.dumps(t))
    r["run_id"] = f"scale-{i:05d}"
    r["started_at"] = f"2026-01-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z"
    sha = f"{i + 1:040x}"
    r["environment"]["git"] = {"commit": sha, "branch": "main", "dirty": False,
                               "parent": f"{i:040x}", "position": i + 1,
                               "author_date": r["started_at"], "subject": f"commit {i + 1}"}
    res = []
    for k in range(ids):
        x = json.loads(json.dumps(base[k % len(base)]))
        x["id"] = x["scenario"] = f"s{k:02d}/{x['id']}"
        bump = 1.05 if k in steps and i >= steps[k] else 1.0
        x["icount"]["ir"] = int(x["icount"]["ir"] * bump)
        x["icount"]["ir_per_op"] *= bump
        w = x["walltime"]
        noise = 1 + rng.gauss(0, 0.03)
        w["ns_per_op"]["median"] *= bump * noise
        res.append(x)
    r["results"] = res
    os.makedirs(f"{tmp}/runs/{i:05d}")
    json.dump(r, open(f"{tmp}/runs/{i:05d}/run.json", "w"))
print(f"{runs} runs x {ids} scenarios written; {len(steps)} ids step once")
PY
measure() { # NAME DB
  local name=$1 db=$2 start
  start=$(date +%s.%N)
  for d in "$tmp"/runs/*/; do "$bin" import "$d" --db "$db" >/dev/null; done
  printf '%s: imported %d runs in %.0f s\n' "$name" "$runs" "$(echo "$(date +%s.%N) - $start" | bc)"
  (cd "$tmp" && for what in changes dashboard; do
    start=$(date +%s.%N)
    if [ $what = changes ]; then
      "$bin" history changes --db "$db" --all-branches --explain 0 --format json --github off >"$tmp/changes.json" || true
      n=$(python3 -c "import json,sys,collections; c=json.load(open(sys.argv[1]))['changes']; print(len(c), dict(collections.Counter(x['metric'] for x in c)))" "$tmp/changes.json")
      printf '%s: history changes %.2f s (%s change points)\n' "$name" "$(echo "$(date +%s.%N) - $start" | bc)" "$n"
    else
      "$bin" history dashboard --db "$db" --all-branches --output-dir "$tmp/site" >/dev/null
      printf '%s: history dashboard %.2f s (%d bytes)\n' "$name" "$(echo "$(date +%s.%N) - $start" | bc)" "$(stat -c %s "$tmp/site/index.html")"
    fi
  done)
}
measure sqlite "$tmp/history.sqlite"
if [ -z "${PG_URL:-}" ]; then
  bindir=$(pg_config --bindir 2>/dev/null || true)
  [ -x "$bindir/initdb" ] || bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
    echo "postgres: SKIPPED: no PostgreSQL server binaries (install postgresql, or set PG_URL)"; exit 0
  fi
  cluster="$tmp/pg"; mkdir -p "$cluster/data" "$cluster/sock"
  if [ "$(id -u)" = 0 ]; then chown -R postgres: "$cluster"; chmod 755 "$tmp"; as_pg() { runuser -u postgres -- "$@"; }
  else as_pg() { "$@"; }; fi
  as_pg "$bindir/initdb" -D "$cluster/data" -U costbench --auth=trust --no-locale -E UTF8 --no-sync >/dev/null
  as_pg "$bindir/pg_ctl" -D "$cluster/data" -l "$cluster/log" -w \
    -o "-k $cluster/sock -c listen_addresses='' -c fsync=off" start >/dev/null
  PG_URL="postgres:///postgres?host=$cluster/sock&user=costbench"
fi
measure postgres "$PG_URL"
