#!/usr/bin/env bash
# Issue 38's wall-time targets for watching main, measured end to end through `costbench history
# backfill` with paired wall time (each commit's binary interleaved with the previous commit's):
#
#  1. A history where nothing changed: NULL commits (50 by default) of a scratch repository of
#     the selftest suite, each editing a comment in the suite's library (a file its build reads,
#     so every commit is built and measured, none carried over). Every change point found in them
#     is a false one.
#  2. Then 10 steps of +5 %: a commit that turns the `knob/spin` scenario's knob up by 5 % of its
#     current work (knob_steps: 100,000 steps plus 100 per mille), each followed by two more
#     comment edits. Found means a change point of knob/spin within 3 commits of the step.
#
# Usage: scripts/watch-paired.sh [NULL] [DIR] [INSTRUMENTS]
#   DIR (default target/watch-paired) holds the scratch repository and its history; a history
#   left there by an earlier call is judged again without measuring (delete DIR to measure anew).
#   INSTRUMENTS (default icount,walltime, what `history backfill` measures by default): with
#   instruction counts, a change of time whose instructions did not change is a placement
#   effect, as `check` judges it, not a step; `walltime` alone judges the time by itself.
# Prints the false change points of each method, the detection table and the time it took.
set -euo pipefail
cd "$(dirname "$0")/.."
null=${1:-50}
dir=${2:-target/watch-paired}
instruments=${3:-icount,walltime}
ws=$(pwd)
# COSTBENCH_BIN: a costbench binary to use instead of building this checkout's.
[ -n "${COSTBENCH_BIN:-}" ] || cargo build --release -q -p costbench-cli
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
# A copy, so that rebuilding costbench while this runs changes nothing here.
cp "${COSTBENCH_BIN:-target/release/costbench}" "$dir/costbench"
bin=$dir/costbench
repo=$dir/repo
db=$dir/history.sqlite
g() { git -C "$repo" -c user.name=t -c user.email=t@example.invalid "$@"; }
if [ ! -s "$db" ]; then
  rm -rf "$repo"
  mkdir -p "$repo/crates" "$repo/suites"
  cp -r crates/costbench crates/costbench-protocol "$repo/crates/"
  cp -r suites/selftest "$repo/suites/"
  rm -rf "$repo"/crates/*/target "$repo"/suites/*/target
  cp Cargo.lock "$repo/"
  # The workspace's manifest with these three members, as the tests' scratch repositories have.
  python3 - Cargo.toml "$repo/Cargo.toml" <<'PY'
import re, sys
m = open(sys.argv[1]).read()
m = re.sub(r"members = \[[^\]]*\]", 'members = ["crates/costbench", "crates/costbench-protocol", "suites/selftest"]', m, count=1)
m = "\n".join(l for l in m.splitlines() if not l.startswith("default-members")) + "\n"
open(sys.argv[2], "w").write(m)
PY
  echo "/target" >"$repo/.gitignore"
  lib=$repo/suites/selftest/src/lib.rs
  g init -q
  g add -A
  g commit -q -m base
  note() { echo "// note $1" >>"$lib"; g commit -q -am "note $1"; }
  for i in $(seq 1 "$null"); do note "$i"; done
  # Compounded +5 % steps of knob_steps(0) = 100,000: 1000 * (1.05^k - 1) per mille.
  for k in $(seq 1 10); do
    permille=$(python3 -c "print(round(1000 * (1.05 ** $k - 1)))")
    sed -i "s/^pub const KNOB_EXTRA_PERMILLE: u64 = .*;/pub const KNOB_EXTRA_PERMILLE: u64 = $permille;/" "$lib"
    g commit -q -am "step $k: knob $permille"
    note "after step $k a"
    note "after step $k b"
  done
  total=$((null + 30))
  start=$(date +%s)
  "$bin" history backfill "HEAD~$total..HEAD" --manifest-path "$repo/Cargo.toml" \
    -p costbench-selftest --bench selftest --instrument "$instruments" --db "$db" --quiet
  echo "backfill of $total commits: $(($(date +%s) - start)) s" | tee "$dir/time.txt"
fi
cat "$dir/time.txt"
for metric in walltime-step walltime; do
  "$bin" history changes --manifest-path "$repo/Cargo.toml" --db "$db" --metric "$metric" \
    --format json --github off >"$dir/changes-$metric.json" || [ $? = 3 ]
done
python3 - "$repo" "$dir" "$null" <<'PY'
import json, subprocess, sys
repo, d, null = sys.argv[1], sys.argv[2], int(sys.argv[3])
shas = subprocess.run(["git", "-C", repo, "rev-list", "--reverse", "HEAD"], capture_output=True,
                      text=True, check=True).stdout.split()
subjects = subprocess.run(["git", "-C", repo, "log", "--reverse", "--format=%s"],
                          capture_output=True, text=True, check=True).stdout.splitlines()
at = {s: i for i, s in enumerate(shas)}
steps = [i for i, s in enumerate(subjects) if s.startswith("step ")]
for metric, name in [("walltime-step", "paired with the previous commit"),
                     ("walltime", "t-test over one run per commit")]:
    doc = json.load(open(f"{d}/changes-{metric}.json"))
    ids = sorted({c["id"] for c in doc["changes"]})
    false_null = [c for c in doc["changes"] if at[c["commit"]] <= null]
    found, false_steps = 0, []
    rows = []
    for k, s in enumerate(steps):
        hits = [at[c["commit"]] for c in doc["changes"]
                if c["id"] == "knob/spin" and 0 <= at[c["commit"]] - s <= 3]
        found += bool(hits)
        rows.append((k + 1, s, hits))
    for c in doc["changes"]:
        i = at[c["commit"]]
        if i > null and not (c["id"] == "knob/spin" and any(0 <= i - s <= 3 for s in steps)):
            false_steps.append(c)
    print(f"\n{name} ({metric}):")
    print(f"  commits 1..{null}, nothing changed: {len(false_null)} false change points")
    for c in false_null:
        print(f"    commit {at[c['commit']]} {c['id']}: {c['change_pct']:+.1f} %")
    print(f"  +5 % steps found within 3 commits: {found} of {len(steps)}")
    for k, s, hits in rows:
        print(f"    step {k} at commit {s}: {'found at ' + str(hits) if hits else 'missed'}")
    print(f"  other change points after commit {null}: {len(false_steps)}")
    for c in false_steps:
        print(f"    commit {at[c['commit']]} {c['id']}: {c['change_pct']:+.1f} %")
PY
