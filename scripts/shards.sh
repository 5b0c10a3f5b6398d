#!/usr/bin/env bash
# Issue 15's sharding targets, measured on this machine:
#  1. a 3-way sharded icount run of suites/selftest, merged, equals the unsharded run exactly
#     (icounts.csv byte for byte);
#  2. the built-in suite with the safety-tax variants preset: one job versus 4 shards. The shards
#     run one after another here (2 cores); a CI matrix's wall-clock is its slowest shard plus
#     the merge. Build times are taken from the one-job run's own log (`built variant X in N s`):
#     the shards reuse those builds, so each shard's CI time is its measured time plus the build
#     times of its variants (every CI job builds cold).
# Usage: scripts/shards.sh [OUT_DIR]   (default: target/costbench/shards-measure)
# Environment: SHARDS (default 4); VARIANTS, the variants options (default --preset safety-tax);
# PART=2 skips part 1.
# Needs valgrind. Takes tens of minutes; run it on an otherwise idle machine for honest figures.
set -euo pipefail
cd "$(dirname "$0")/.."
# Absolute: the scenario children run in their package directory.
OUT=$(realpath -m "${1:-target/costbench/shards-measure}")
BIN=${COSTBENCH:-target/debug/costbench}
[ -x "$BIN" ] || cargo build -p costbench-cli
mkdir -p "$OUT"
now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc; }

N=${SHARDS:-4}
read -r -a VOPTS <<< "${VARIANTS:---preset safety-tax}"
if [ "${PART:-}" != 2 ]; then
echo "== 1. selftest: 3 icount shards merged vs unsharded"
S=(--manifest-path suites/selftest/Cargo.toml --bench selftest --instrument icount --no-history --quiet)
rm -rf "$OUT/selftest"
"$BIN" run "${S[@]}" --output-dir "$OUT/selftest/whole"
for k in 1 2 3; do "$BIN" run "${S[@]}" --shard "$k/3" --output-dir "$OUT/selftest/s$k"; done
"$BIN" merge --no-history --quiet --output "$OUT/selftest/merged" "$OUT"/selftest/s{1,2,3}
if cmp -s "$OUT/selftest/whole/icounts.csv" "$OUT/selftest/merged/icounts.csv"; then
  echo "identical: $(wc -l < "$OUT/selftest/whole/icounts.csv") rows"
else
  echo "DIFFERENT"; diff "$OUT/selftest/whole/icounts.csv" "$OUT/selftest/merged/icounts.csv" || true
fi

fi

echo "== 2. built-in suite, ${VOPTS[*]}: one job, then $N shards"
rm -rf "$OUT/builtin"; mkdir -p "$OUT/builtin"
V=(variants "${VOPTS[@]}" --no-history --format json)
t0=$(now)
"$BIN" "${V[@]}" --output-dir "$OUT/builtin/one" > "$OUT/builtin/one.json" 2> "$OUT/builtin/one.log"
t1=$(now)
one=$(secs "$t0" "$t1")
echo "one job: $one s (builds and measurement)"
grep '^built variant\|^variants:' "$OUT/builtin/one.log" || true
slowest=0
for k in $(seq 1 "$N"); do
  t0=$(now)
  "$BIN" "${V[@]}" --shard "$k/$N" --output-dir "$OUT/builtin/s$k" > "$OUT/builtin/s$k.json" 2> "$OUT/builtin/s$k.log"
  t1=$(now)
  m=$(secs "$t0" "$t1")
  build=0
  for v in $(grep -o '^built variant [^ ]*' "$OUT/builtin/s$k.log" | awk '{print $3}'); do
    b=$(grep "^built variant $v in" "$OUT/builtin/one.log" | sed 's/.* in \([0-9.]*\) s.*/\1/')
    build=$(echo "$build + ${b:-0}" | bc)
  done
  total=$(echo "$m + $build" | bc)
  echo "shard $k/$N: measured $m s here (builds reused), + $build s of cold builds = $total s; variants: $(grep -o '^built variant [^ ]*' "$OUT/builtin/s$k.log" | awk '{print $3}' | tr '\n' ' ')"
  if (( $(echo "$total > $slowest" | bc) )); then slowest=$total; fi
done
echo "slowest shard: $slowest s; one job: $one s; ratio $(echo "scale=3; $slowest / $one" | bc)"
