#!/usr/bin/env bash
# How far the throughput instrument's figures can be trusted on this machine, measured on the
# built-in cache service (suites/builtin/benches/cache.rs, `cache/get/checked`, 4 clients):
#
#   repeat  separate `run --instrument throughput` runs of one build: does every run's ops/s
#           and p99 land inside the repeat interval every other run reported? Target: all 5.
#   power   `check --baseline-rev HEAD` where the candidate's server spends 5 % more time per
#           query (SERVICE_EXTRA_PERMILLE = 50 in suites/builtin/src/lib.rs): is the throughput
#           or the p99 row a regression? Target: at least 9 of 10.
#   aa      the same check where the candidate carries an unrelated change (a new scenario, so
#           the binary differs): is any throughput or p99 row flagged? Target: at most 1 of 20.
#
# The candidate is a scratch worktree of HEAD (edited per part), the baseline HEAD built by
# `check` itself: the pull-request flow. Commit first.
#
# Usage: scripts/throughput.sh [REPEAT_RUNS [POWER_CHECKS [AA_CHECKS]]]   (defaults 5, 10, 20)
#        PARTS="repeat power aa" selects parts (default all three); LOAD_ARGS="..." adds options
#        to every run and check (e.g. --clients 1). Needs python3. docs/throughput.md records a
#        measured set.
set -euo pipefail
repeat_runs=${1:-5}
power_checks=${2:-10}
aa_checks=${3:-20}
parts=${PARTS:-repeat power aa}
repo=$(git rev-parse --show-toplevel)
cd "$repo"
cargo build --release --locked -p costbench-cli
scratch=$(mktemp -d)
cp "$repo/target/release/costbench" "$scratch/costbench"
cb="$scratch/costbench"
cleanup() {
  git -C "$repo" worktree remove --force "$scratch/tree" >/dev/null 2>&1 || true
  rm -rf "$scratch"
  git -C "$repo" worktree prune
}
trap cleanup EXIT
git worktree add --quiet --detach "$scratch/tree" HEAD
tree="$scratch/tree"
export CARGO_TARGET_DIR="$repo/target/throughput"
select=(-p costbench-suite --bench cache --filter '^cache/get/checked$' --clients 4
  --instrument throughput ${LOAD_ARGS:-})
id='cache/get/checked@4c'
reset_tree() { git -C "$tree" checkout --quiet -- .; }

if [[ " $parts " == *" repeat "* ]]; then
  echo "== repeat: $repeat_runs separate runs of one build"
  for i in $(seq 1 "$repeat_runs"); do
    "$cb" run --manifest-path "$tree/Cargo.toml" "${select[@]}" --no-history -q \
      --output-dir "$scratch/repeat-$i"
  done
  python3 - "$id" "$scratch"/repeat-* <<'PY'
import json, sys
rid, dirs = sys.argv[1], sys.argv[2:]
runs = []
for d in dirs:
    r = next(r for r in json.load(open(f"{d}/run.json"))["results"] if r["id"] == rid)
    t = r["throughput"]
    runs.append((t["ops_per_sec"], t["ops_per_sec_repeat"], t["latency"]["p99_ns"], t["p99_repeat"]))
for k, (ops, oi, p99, pi) in enumerate(runs, 1):
    print(f"run {k}: {ops:,.0f} ops/s [{oi['low']:,.0f}, {oi['high']:,.0f}]   "
          f"p99 {p99 / 1e3:.1f} us [{pi['low'] / 1e3:.1f}, {pi['high'] / 1e3:.1f}]")
def inside(which):
    n = ok = 0
    for i, a in enumerate(runs):
        for j, b in enumerate(runs):
            if i != j:
                lo, hi = a[which + 1]["low"], a[which + 1]["high"]
                n += 1
                ok += lo <= b[which] <= hi
    return ok, n
for name, which in (("ops/s", 0), ("p99", 2)):
    ok, n = inside(which)
    print(f"{name}: {ok} of {n} (run, other run) pairs inside the run's repeat interval")
PY
fi

# check NAME: one check of the scratch tree against HEAD; prints "flagged verdicts".
check() {
  set +e
  "$cb" check --manifest-path "$tree/Cargo.toml" --baseline-rev HEAD --format json --no-history \
    --output-dir "$scratch/out" "${select[@]}" >"$scratch/check.json" 2>"$scratch/check.err"
  local code=$?
  set -e
  if [ "$code" != 0 ] && [ "$code" != 3 ]; then
    echo "costbench check failed (exit $code):" >&2
    tail -20 "$scratch/check.err" >&2
    exit 1
  fi
  python3 - "$scratch/check.json" "$1" <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["comparison"]["rows"]
        if r["instrument"] in ("throughput", "p99")]
want = sys.argv[2]
flag = lambda r: r["verdict"] == "regression" if want == "regression" else r["verdict"] in ("regression", "improvement")
print(int(any(map(flag, rows))), " ".join(
    f"{r['instrument']}={r['verdict']}({r['change_pct']:+.1f}%)" for r in rows))
PY
}

if [[ " $parts " == *" power "* ]]; then
  echo "== power: candidate's server spends 5 % more time per query, $power_checks checks"
  reset_tree
  sed -i "s/^pub const SERVICE_EXTRA_PERMILLE: u32 = .*/pub const SERVICE_EXTRA_PERMILLE: u32 = 50;/" \
    "$tree/suites/builtin/src/lib.rs"
  found=0
  for i in $(seq 1 "$power_checks"); do
    read -r hit verdicts < <(check regression)
    found=$((found + hit))
    echo "check $i: $verdicts"
  done
  echo "power: +5 % service time flagged as a regression in $found of $power_checks checks"
fi

if [[ " $parts " == *" aa "* ]]; then
  echo "== A/A: candidate with an unrelated change, $aa_checks checks"
  reset_tree
  python3 - "$tree/suites/builtin/benches/cache.rs" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("    suite.main();", """    suite.bench("unrelated/sum", ops(64, "words"), |b| {
        let xs: Vec<u64> = (0..64).collect();
        b.iter(|| costbench::black_box(&xs).iter().sum::<u64>())
    });
    suite.main();""")
open(p, "w").write(s)
PY
  flagged=0
  for i in $(seq 1 "$aa_checks"); do
    read -r hit verdicts < <(check any)
    flagged=$((flagged + hit))
    echo "check $i: $verdicts"
  done
  echo "A/A: $flagged of $aa_checks checks flagged a throughput or p99 row"
fi
