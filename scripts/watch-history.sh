#!/usr/bin/env bash
# Issue 38's target on a real crate's history: every change of an exact per-op count reported at
# its exact commit, measured against the ground truth of every commit built and measured one by
# one, with the number of measurements and the time of each way.
#
# Usage: scripts/watch-history.sh REPO BENCH RANGE [EVERY] [FILTER]
#   REPO   a git checkout of the crate (left untouched: two clones of it are made under
#          $WATCH_HISTORY_DIR/NAME/, by default /tmp/costbench-watch-history/NAME/)
#   BENCH  its bench target (criterion or divan benches are switched to costbench's compatible
#          crates in the worktree of every commit; the bench sources are not changed)
#   RANGE  the commits, as `history backfill` takes them (e.g. HEAD~40..HEAD)
#   EVERY  the sampling of the fast way (default 8)
#   FILTER a --filter for the scenarios (default: every benchmark)
#
# The two ways, each in its own clone and history:
#   truth: history backfill RANGE --build-every-commit   (every commit built and measured)
#   fast:  history backfill RANGE --every EVERY --narrow  (sampled, carried over where no build
#          input changed, change points bisected to their commit)
# Then `history changes` of each, compared change point by change point (id, metric, commit).
set -euo pipefail
repo=$(cd "$1" && pwd); bench=$2; range=$3; every=${4:-8}; filter=${5:-}
here=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release -q -p costbench-cli --manifest-path "$here/Cargo.toml"
bin=$here/target/release/costbench
name=$(basename "$repo")
# Outside this workspace: cargo would take a clone under it for one of its members.
work=${WATCH_HISTORY_DIR:-${TMPDIR:-/tmp}/costbench-watch-history}/$name
mkdir -p "$work"
for way in truth fast; do
  if [ ! -d "$work/$way" ]; then git clone -q "$repo" "$work/$way"; fi
done
run() { # WAY ARGS...
  local way=$1; shift
  local start end
  start=$(date +%s)
  (cd "$work/$way" && "$bin" history backfill "$range" --bench "$bench" --instrument icount \
     ${filter:+--filter "$filter"} --db "$work/$way.sqlite" --quiet "$@") | tee "$work/$way.log"
  end=$(date +%s)
  echo "$way: $((end - start)) s" | tee -a "$work/$way.log"
}
run truth --build-every-commit
run fast --every "$every" --narrow
for way in truth fast; do
  (cd "$work/$way" && "$bin" history changes --db "$work/$way.sqlite" --all-branches \
     --metric icount --explain 0 --format json --github off > "$work/$way.json") || true
done
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
def load(way):
    doc = json.load(open(f"{work}/{way}.json"))
    return {(c["id"], c["metric"], c["commit"]): c for c in doc["changes"]}, doc
truth, tdoc = load("truth")
fast, fdoc = load("fast")
print(f"commits in the history: {tdoc['runs']} runs (truth), {fdoc['runs']} runs (fast)")
print(f"change points: truth {len(truth)}, fast {len(fast)}")
print(f"  at the same commit: {len(truth.keys() & fast.keys())}")
print(f"  missed by fast: {len(truth.keys() - fast.keys())}")
for k in sorted(truth.keys() - fast.keys()):
    print("   ", k[0], k[2][:12], f"{truth[k]['change_pct']:+.3f} %")
print(f"  found only by fast: {len(fast.keys() - truth.keys())}")
for k in sorted(fast.keys() - truth.keys()):
    print("   ", k[0], k[2][:12], f"{fast[k]['change_pct']:+.3f} %", "narrowed" if fast[k]["narrowed"] else "NOT narrowed")
commits = sorted({k[2] for k in truth})
print(f"  commits with a change point (truth): {len(commits)}")
PY
for way in truth fast; do tail -2 "$work/$way.log"; done
