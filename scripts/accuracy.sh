#!/usr/bin/env bash
# How often `costbench check --baseline-rev` is wrong on this machine, measured, not assumed:
#
#   A/A   the built-in suite at HEAD against itself, again and again: every significant row is a
#         false positive (target: at most 1 % of scenario comparisons);
#   power the selftest's knob/spin scenario made 5 % slower (wall time must be flagged in at
#         least 90 % of checks) and 0.5 % longer in instructions (flagged in every check).
#
# The candidate is a scratch worktree of HEAD (edited for the power runs), the baseline is HEAD
# built by `check` itself: the pull-request flow. Commit first: the knob scenario must be in HEAD.
#
# Usage: scripts/accuracy.sh [AA_RUNS [POWER_RUNS]]    (defaults 10 and 15; python3 parses JSON)
#        KEEP=DIR keeps each check's two output directories as DIR/1, DIR/2, ...
# Results: one line per check, then the rates; docs/accuracy.md records a measured set.
set -euo pipefail
aa_runs=${1:-10}
power_runs=${2:-15}
repo=$(git rev-parse --show-toplevel)
cd "$repo"
cargo build --release --locked -p costbench-cli
scratch=$(mktemp -d)
# A copy, so that rebuilding the checkout while this runs changes nothing here.
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
# A build cache of its own, kept between runs of this script. Never the checkout's own target
# directory: cargo would take the scratch tree's build of a workspace member as fresh for the
# checkout's sources (it compares relative paths and mtimes, not checkouts).
export CARGO_TARGET_DIR="$repo/target/accuracy"

# check ARGS...: runs one check, prints its JSON to $scratch/check.json
check() {
  set +e
  "$cb" check --manifest-path "$tree/Cargo.toml" --baseline-rev HEAD --format json --no-history \
    --output-dir "$scratch/out" "$@" >"$scratch/check.json"
  local code=$?
  set -e
  if [ "$code" != 0 ] && [ "$code" != 3 ]; then
    echo "costbench check failed (exit $code)" >&2
    exit 1
  fi
  # Keep every check's runs: `costbench compare KEEP/N/baseline KEEP/N/candidate` judges them
  # again under other settings without measuring again.
  if [ -n "${KEEP:-}" ]; then
    mkdir -p "$KEEP"
    n=$(( $(find "$KEEP" -mindepth 1 -maxdepth 1 -type d | wc -l) + 1 ))
    mkdir -p "$KEEP/$n" && cp -r "$scratch/out/baseline" "$scratch/out/candidate" "$KEEP/$n/"
  fi
}

# flagged INSTRUMENT [ID]: "significant total" of the last check's rows
flagged() {
  python3 - "$scratch/check.json" "$@" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["comparison"]["rows"]
rows = [r for r in rows if r["instrument"] == sys.argv[2] and (len(sys.argv) < 4 or r["id"] == sys.argv[3])]
print(sum(r["verdict"] != "unchanged" for r in rows), len(rows))
PY
}

echo "== A/A: built-in suite, HEAD against HEAD, $aa_runs checks"
aa_icount=(0 0) aa_wall=(0 0)
for i in $(seq "$aa_runs"); do
  start=$(date +%s)
  check
  read -r fi ti < <(flagged icount)
  read -r fw tw < <(flagged walltime)
  aa_icount=($((aa_icount[0] + fi)) $((aa_icount[1] + ti)))
  aa_wall=($((aa_wall[0] + fw)) $((aa_wall[1] + tw)))
  echo "A/A $i: icount $fi/$ti flagged, walltime $fw/$tw flagged ($(($(date +%s) - start)) s)"
  python3 - "$scratch/check.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["comparison"]["rows"]:
    if r["verdict"] != "unchanged":
        ci = r.get("ci") or {}
        print(f"  flagged: {r['id']} {r['instrument']} {r['change_pct']:+.2f} % ratio interval [{ci.get('low', 0):.3f}, {ci.get('high', 0):.3f}]")
PY
done

knob() {
  sed -i "s/^pub const KNOB_EXTRA_PERMILLE: u64 = .*/pub const KNOB_EXTRA_PERMILLE: u64 = $1;/" \
    "$tree/suites/selftest/src/lib.rs"
}

echo "== power: knob/spin +5 % work, $power_runs checks"
knob 50
p_wall=0
for i in $(seq "$power_runs"); do
  check -p costbench-selftest --bench selftest --filter '^knob/' --instrument walltime
  read -r f _ < <(flagged walltime knob/spin)
  p_wall=$((p_wall + f))
  echo "+5 % $i: walltime flagged $f, $(python3 -c 'import json, sys
r = [r for r in json.load(open(sys.argv[1]))["comparison"]["rows"] if r["id"] == "knob/spin"][0]
print("change %+.2f %%, ratio interval [%.3f, %.3f]" % (r["change_pct"], r["ci"]["low"], r["ci"]["high"]))' "$scratch/check.json")"
done

echo "== power: knob/spin +0.5 % work, $power_runs checks (instruction counts)"
knob 5
p_ir=0
for i in $(seq "$power_runs"); do
  check -p costbench-selftest --bench selftest --filter '^knob/' --instrument icount
  read -r f _ < <(flagged icount knob/spin)
  p_ir=$((p_ir + f))
done
knob 0

pct() { python3 -c "import sys; n, d = map(int, sys.argv[1:]); print(f'{n}/{d} = {100 * n / max(d, 1):.2f} %')" "$1" "$2"; }
echo "== results"
echo "A/A icount flagged:          $(pct "${aa_icount[0]}" "${aa_icount[1]}")"
echo "A/A walltime flagged:        $(pct "${aa_wall[0]}" "${aa_wall[1]}")"
echo "A/A all flagged:             $(pct $((aa_icount[0] + aa_wall[0])) $((aa_icount[1] + aa_wall[1])))"
echo "power walltime +5 % flagged: $(pct "$p_wall" "$power_runs")"
echo "power icount +0.5 % flagged: $(pct "$p_ir" "$power_runs")"
