#!/usr/bin/env bash
# Issue 38's wall-time targets for `costbench history changes`, measured on real noise:
#
#  1. A history where nothing changed: the built-in suite's wall time measured RUNS times (50 by
#     default) at one commit, each run a fresh `costbench run` recorded in a scratch history, so
#     that they stand for RUNS commits in a row. Every change point found is a false one.
#  2. Steps of +5 % injected into that real history: 10 trials, each scaling one scenario's
#     median wall time by 1.05 from a known run on (a copy of the history, SQL UPDATE), then
#     asking `history changes` where it stepped. Found means a change point within 3 runs of
#     where the step was put.
#
# Usage: scripts/watch-accuracy.sh [RUNS] [DB]   (a DB from an earlier call is reused as it is)
# Prints the false change points, the detection table, and the options used.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-50}
db=${2:-target/watch-accuracy/history.sqlite}
filter='^(index|words|regex|alloc|packet)/'
mkdir -p "$(dirname "$db")"
cargo build --release -q -p costbench-cli
bin=target/release/costbench
if [ ! -s "$db" ]; then
  for i in $(seq 1 "$runs"); do
    "$bin" run --manifest-path suites/builtin/Cargo.toml --instrument walltime \
      --filter "$filter" --iterations-per-scenario 20 --db "$db" --quiet
    printf '\rmeasured %d of %d' "$i" "$runs" >&2
  done
  echo >&2
fi
changes() { "$bin" history changes --db "$1" --all-branches --metric walltime --format json \
  --github off "${@:2}" || true; }
python3 - "$bin" "$db" <<'PY'
import json, shutil, sqlite3, subprocess, sys, tempfile, os
bin, db = sys.argv[1], sys.argv[2]
def changes(path, *extra):
    out = subprocess.run([bin, "history", "changes", "--db", path, "--all-branches",
                          "--metric", "walltime", "--format", "json", "--github", "off", *extra],
                         capture_output=True, text=True)
    if out.returncode not in (0, 3):
        sys.exit(f"history changes failed: {out.stderr}")
    return json.loads(out.stdout)
doc = changes(db)
con = sqlite3.connect(db)
runs = [r[0] for r in con.execute("SELECT run_id FROM runs ORDER BY started_at, run_id")]
series = [r[0] for r in con.execute(
    "SELECT DISTINCT scenario_id FROM results WHERE metric = 'walltime' ORDER BY scenario_id")]
con.close()
print(f"history: {len(runs)} runs of one commit x {len(series)} wall-time series")
fp = doc["changes"]
print(f"false change points: {len(fp)} in {len(series)} series")
for c in fp:
    print(f"  {c['id']}: {c['before']:.1f} -> {c['after']:.1f} ns ({c['change_pct']:+.1f} %), p = {c['p_value']:.1e}")
found = 0
rows = []
for t in range(10):
    k = 12 + (t * 26) // 9          # where the step starts: runs 12 .. 38
    s = series[(t * 7) % len(series)]
    with tempfile.TemporaryDirectory() as d:
        copy = os.path.join(d, "h.sqlite")
        src = sqlite3.connect(db); dst = sqlite3.connect(copy); src.backup(dst); src.close()
        after = runs[k:]
        dst.executemany("UPDATE results SET per_op = per_op * 1.05 WHERE metric = 'walltime' "
                        "AND scenario_id = ? AND run_id = ?", [(s, r) for r in after])
        dst.commit(); dst.close()
        got = changes(copy, "--filter", "^" + s.replace("/", "/") + "$")
        idx = [runs.index(c["run_id"]) for c in got["changes"]]
        hit = any(abs(i - k) <= 3 for i in idx)
        found += hit
        rows.append((s, k, idx, hit))
print(f"+5 % steps found within 3 runs: {found} of 10")
for s, k, idx, hit in rows:
    print(f"  {s}: step at run {k}, change points at {idx or 'none'}: {'found' if hit else 'missed'}")
PY
