#!/usr/bin/env bash
# Many CI jobs writing one history at once (issue 15): WRITERS separate processes each run the real
# `costbench import` RUNS times, each import a separate process with its own connection, all
# writers at the same time; every writer also imports every 10th run of its neighbour again while
# the neighbour imports it (the same run recorded twice at once must stay one run). Then counts
# what the history holds: every run once, none lost, none doubled, and one index row per run.
#
# Usage: scripts/store-concurrency.sh [WRITERS [RUNS]]      (default 8 writers x 100 runs)
#   COSTBENCH=path/to/costbench   the binary (default: target/debug/costbench, built if missing)
#   PG_URL=postgres://...         a PostgreSQL database to use (its `costbench` schema must not
#                                 hold runs yet); without it a throwaway cluster is started from
#                                 the machine's PostgreSQL binaries (Debian's postgresql) and
#                                 removed at the end. SQLite is always measured too.
# Exits non-zero when any run is lost or doubled, or any import failed.
set -euo pipefail
cd "$(dirname "$0")/.."
WRITERS=${1:-8}
RUNS=${2:-100}
if [ -z "${COSTBENCH:-}" ]; then
  COSTBENCH=target/debug/costbench
  [ -x "$COSTBENCH" ] || cargo build -q -p costbench-cli
fi
COSTBENCH=$(realpath "$COSTBENCH")

tmp=$(mktemp -d)
cluster=""
cleanup() {
  if [ -n "$cluster" ]; then
    as_pg "$bindir/pg_ctl" -D "$cluster/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# The runs: one real run record (imported from a ci-bench CSV, exported again), copied under
# WRITERS x RUNS distinct run ids.
mkdir -p "$tmp/csv"
printf 'a,1000\nb,2000\n' >"$tmp/csv/icounts.csv"
id=$("$COSTBENCH" import "$tmp/csv" --branch main --commit c0 --db "$tmp/scratch.sqlite" | awk '{print $3}')
"$COSTBENCH" export "$id" --db "$tmp/scratch.sqlite" >"$tmp/template.json"
for w in $(seq 0 $((WRITERS - 1))); do
  for k in $(seq -w 0 $((RUNS - 1))); do
    mkdir -p "$tmp/runs/w$w-$k"
    sed "s/\"run_id\": \"$id\"/\"run_id\": \"w$w-$k\"/" "$tmp/template.json" >"$tmp/runs/w$w-$k/run.json"
  done
done

# One writer: its runs, and every 10th run of the next writer again.
writer() {
  local db=$1 w=$2 next=$(( ($2 + 1) % WRITERS )) k
  for k in $(seq -w 0 $((RUNS - 1))); do
    "$COSTBENCH" import "$tmp/runs/w$w-$k" --db "$db" >/dev/null
    if [ $((10#$k % 10)) = 0 ]; then
      "$COSTBENCH" import "$tmp/runs/w$next-$k" --db "$db" >/dev/null
    fi
  done
}

measure() {
  local name=$1 db=$2 pids=() failed=0 start end
  start=$(date +%s.%N)
  for w in $(seq 0 $((WRITERS - 1))); do
    writer "$db" "$w" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
  end=$(date +%s.%N)
  local expected=$((WRITERS * RUNS))
  local listed distinct points
  listed=$("$COSTBENCH" history --db "$db" --limit 1000000 | tail -n +2 | awk '{print $1}')
  distinct=$(printf '%s\n' "$listed" | sort -u | grep -c . || true)
  listed=$(printf '%s\n' "$listed" | grep -c . || true)
  # One index row per run: the series of one scenario has one point per run.
  points=$("$COSTBENCH" history --db "$db" --scenario a --limit 1000000 | tail -n +2 | grep -c . || true)
  local lost=$((expected - distinct)) doubled=$((listed - distinct + points - distinct))
  printf '%s: %d writers x %d runs (+%d repeated imports) in %.1f s: %d runs, %d lost, %d duplicated, %d failed writers\n' \
    "$name" "$WRITERS" "$RUNS" $((WRITERS * ((RUNS + 9) / 10))) "$(awk "BEGIN{print $end - $start}")" \
    "$distinct" "$lost" "$doubled" "$failed"
  [ "$lost" = 0 ] && [ "$doubled" = 0 ] && [ "$failed" = 0 ]
}

status=0
measure sqlite "$tmp/history.sqlite" || status=1

if [ -z "${PG_URL:-}" ]; then
  # A throwaway cluster on a unix socket, as the tests start one.
  bindir=$(pg_config --bindir 2>/dev/null || true)
  [ -x "$bindir/initdb" ] || bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
    echo "postgres: SKIPPED: no PostgreSQL server binaries (install postgresql, or set PG_URL)"
    exit $status
  fi
  cluster="$tmp/pg"
  mkdir -p "$cluster/data" "$cluster/sock"
  if [ "$(id -u)" = 0 ]; then
    # initdb refuses root: the server runs as the postgres user.
    chown -R postgres: "$cluster"
    chmod 755 "$tmp"
    as_pg() { runuser -u postgres -- "$@"; }
  else
    as_pg() { "$@"; }
  fi
  as_pg "$bindir/initdb" -D "$cluster/data" -U costbench --auth=trust --no-locale -E UTF8 --no-sync >/dev/null
  as_pg "$bindir/pg_ctl" -D "$cluster/data" -l "$cluster/log" -w \
    -o "-k $cluster/sock -c listen_addresses='' -c max_connections=100" start >/dev/null
  PG_URL="postgres:///postgres?host=$cluster/sock&user=costbench"
fi
measure postgres "$PG_URL" || status=1
exit $status
