#!/usr/bin/env bash
# Issue 15's sharding targets, measured on this machine:
#  1. a 3-way sharded icount run of suites/selftest, merged, equals the unsharded run exactly
#     (icounts.csv byte for byte);
#  2. the built-in suite with the safety-tax variants preset: one job versus 4 shards and the
#     merge, once per instrument set (INSTRUMENTS, default "icount,census", as docs/workflows/
#     costbench-variants.yml measures, then "icount,walltime").
#     The shards run one after another here (2 cores); a CI matrix's wall-clock is its slowest
#     shard plus the merge. Every variant is first built cold by the first one-job run, whose log
#     gives each build's time (`Finished variant X in N s`); later runs reuse the builds, so each
#     job's CI time is its measured time plus the cold build times of the variants it built
#     (every CI job builds cold). The merged matrix's instruction counts are checked against the
#     one job's, cell by cell.
# Usage: scripts/shards.sh [OUT_DIR]   (default: target/costbench/shards-measure)
# Environment: SHARDS (default 4); VARIANTS, the variants options (default --preset safety-tax);
# INSTRUMENTS (default "icount,census icount,walltime"); PART=2 skips part 1; WARM=1 keeps the variant
# builds already in target/costbench/build (their times then come from an earlier log).
# Needs valgrind. Takes tens of minutes; run it on an otherwise idle machine for honest figures.
set -euo pipefail
cd "$(dirname "$0")/.."
# Absolute: the scenario children run in their package directory.
OUT=$(realpath -m "${1:-target/costbench/shards-measure}")
[ -x target/debug/costbench ] || cargo build -p costbench-cli
mkdir -p "$OUT"
# A copy: rebuilding costbench while this runs must not change (or delete) the measuring binary.
BIN=$OUT/costbench
cp "${COSTBENCH:-target/debug/costbench}" "$BIN"
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
"$BIN" merge --no-history --quiet --output-dir "$OUT/selftest/merged" "$OUT"/selftest/s{1,2,3}
if cmp -s "$OUT/selftest/whole/icounts.csv" "$OUT/selftest/merged/icounts.csv"; then
  echo "identical: $(wc -l < "$OUT/selftest/whole/icounts.csv") rows"
else
  echo "DIFFERENT"; diff "$OUT/selftest/whole/icounts.csv" "$OUT/selftest/merged/icounts.csv" || true
fi

fi

echo "== 2. built-in suite, ${VOPTS[*]}: one job, then $N shards and the merge"
SUITE=(--manifest-path suites/builtin/Cargo.toml --bench builtin)
# No history: every job partitions by count, as fresh CI jobs without a shared database do.
V=(variants "${SUITE[@]}" "${VOPTS[@]}" --no-history --db "$OUT/no-history.sqlite" --format json)
B=$OUT/builtin
mkdir -p "$B"
if [ "${WARM:-}" != 1 ]; then
  # The preset's variant names (the first string of each entry), and any --variant NAME:.
  names=$(python3 -c 'import re,sys; print(" ".join(re.findall(r"\(\s*\"([A-Za-z0-9_.-]+)\",", open(sys.argv[1]).read())))' \
    crates/costbench-measure/src/variants/presets.rs)
  for o in "${VOPTS[@]}"; do case $o in *:*) names="$names ${o%%:*}";; esac; done
  for v in $names; do rm -rf "target/costbench/build/$v"; done
  rm -f "$B/builds.log"
fi
build_time() { grep "Finished variant $1 in" "$B/builds.log" | head -1 | sed 's/.* in \([0-9.]*\) s.*/\1/'; }
icount_cells() {
  python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
for r in m["rows"]:
    for c in r["cells"]:
        if "icount" in c:
            print(r["id"], c["variant"], c["icount"]["per_op"])
' "$1" | sort
}
read -r -a SETS <<< "${INSTRUMENTS:-icount,census icount,walltime}"
for inst in "${SETS[@]}"; do
  tag=${inst//,/-}
  rm -rf "$B/$tag"; mkdir -p "$B/$tag"
  t0=$(now)
  "$BIN" "${V[@]}" --instrument "$inst" --output-dir "$B/$tag/one" > "$B/$tag/one.json" 2> "$B/$tag/one.log" || true
  one=$(secs "$t0" "$(now)")
  if [ ! -s "$B/builds.log" ]; then cp "$B/$tag/one.log" "$B/builds.log"; fi
  builds=0
  for v in $(grep -o '^ *Finished variant [^ ]*' "$B/$tag/one.log" | awk '{print $3}'); do
    builds=$(echo "$builds + $(build_time "$v")" | bc)
  done
  fresh=$(grep -c 'nothing rebuilt' "$B/$tag/one.log" || true)
  if [ "$fresh" -gt 0 ]; then one=$(echo "$one + $builds" | bc); fi
  echo "[$inst] one job: $one s, of which cold builds $builds s"
  grep '^ *Finished variants:' "$B/$tag/one.log" || true
  slowest=0
  for k in $(seq 1 "$N"); do
    t0=$(now)
    "$BIN" "${V[@]}" --instrument "$inst" --shard "$k/$N" --output-dir "$B/$tag/s$k" > "$B/$tag/s$k.json" 2> "$B/$tag/s$k.log" || true
    m=$(secs "$t0" "$(now)")
    built=$(grep -o '^ *Finished variant [^ ]*' "$B/$tag/s$k.log" | awk '{print $3}' | tr '\n' ' ')
    build=0
    for v in $built; do build=$(echo "$build + $(build_time "$v")" | bc); done
    total=$(echo "$m + $build" | bc)
    echo "[$inst] shard $k/$N: measured $m s (builds reused) + $build s of cold builds = $total s; variants: $built"
    if (( $(echo "$total > $slowest" | bc) )); then slowest=$total; fi
  done
  t0=$(now)
  "$BIN" merge --no-history --quiet --output-dir "$B/$tag/merged" "$B/$tag"/s*/ 
  merge=$(secs "$t0" "$(now)")
  if diff <(icount_cells "$B/$tag/one/matrix.json") <(icount_cells "$B/$tag/merged/matrix.json") > /dev/null; then
    echo "[$inst] merged matrix: every instruction count equals the one job's ($(icount_cells "$B/$tag/one/matrix.json" | wc -l) cells)"
  else
    echo "[$inst] merged matrix: instruction counts DIFFER from the one job's"
  fi
  echo "[$inst] slowest shard $slowest s + merge $merge s; one job $one s; ratio $(echo "scale=3; ($slowest + $merge) / $one" | bc)"
done
