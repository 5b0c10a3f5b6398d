#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60), two at a time (two cores), each seeded from
# the committed real fixtures of its parser. Needs nightly and cargo-fuzz
# (`cargo install cargo-fuzz --locked`). A crash fails the script; libFuzzer keeps the input in
# fuzz/artifacts/TARGET/ (turn it into a regression test beside the parser's tests).
#
#   fuzz/run.sh [--dev] [SECONDS]
#
# --dev builds the fuzz crate's dev profile (opt-level 1, as fuzz/Cargo.toml sets it) instead of
# release, for a short run such as the one before landing a parser change (CI does not fuzz:
# .ci/run says why): measured on the project's 2-core VM, building every target from nothing
# took 313 s of CPU against release's 443 s, and the callgrind target ran 1,024 inputs a second
# against release's 1,518 (unoptimised, 168 s and 39 a second).
# --dev also leaves out the address sanitizer (`-s none`): the parsers fuzzed here are safe Rust
# (no `unsafe` on their paths), so what a short run looks for is a panic, which libFuzzer catches
# without it. Measured on the same VM, idle (2026-11-28, --dev, from nothing): the build took 192 s
# of CPU and 101 s against 292 s and 154 s with the sanitizer, and the callgrind target ran
# 5,872 inputs a second against 1,436. A run without --dev keeps the sanitizer.
set -euo pipefail
cd "$(dirname "$0")"
profile=()
if [ "${1:-}" = "--dev" ]; then
    profile=(--dev -s none)
    shift
fi
secs=${1:-60}
m=../crates/costbench-measure
seed() {
    local target=$1
    shift
    mkdir -p "corpus/$target"
    cp "$@" "corpus/$target/"
}
seed callgrind "$m"/src/instrument/icount/testdata/*.out "$m"/src/instrument/census/testdata/*.out \
    "$m"/src/instrument/cache/testdata/callgrind-cache-sim.out
seed dhat "$m"/src/instrument/dhat/testdata/dhat-memory-exact.json
seed miri "$m"/src/miri/testdata/*.stderr
seed import_csv ../crates/costbench-cli/testdata/*.csv
seed config ../costbench.toml
seed run_json ../crates/costbench-record/testdata/*.json

targets=(callgrind dhat miri import_csv config run_json)
start=$(date +%s)
cargo +nightly fuzz build "${profile[@]}"
echo "fuzz: built the targets in $(($(date +%s) - start)) s"
mkdir -p logs
failed=()
for ((i = 0; i < ${#targets[@]}; i += 2)); do
    pids=()
    for t in "${targets[@]:i:2}"; do
        cargo +nightly fuzz run "${profile[@]}" "$t" "corpus/$t" -- -max_total_time="$secs" -rss_limit_mb=2048 \
            >"logs/$t.log" 2>&1 &
        pids+=("$!:$t")
    done
    for p in "${pids[@]}"; do
        if wait "${p%%:*}"; then
            echo "fuzz: ${p#*:}: $(grep -E '^#[0-9]+.*DONE' "logs/${p#*:}.log" | tail -1 || true)"
        else
            echo "fuzz: ${p#*:} FAILED:"
            tail -40 "logs/${p#*:}.log"
            failed+=("${p#*:}")
        fi
    done
done
echo "fuzz: ${#targets[@]} targets, ${secs} s each, $(($(date +%s) - start)) s in all"
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: crashes in ${failed[*]} (inputs in fuzz/artifacts/)"
    exit 1
fi
