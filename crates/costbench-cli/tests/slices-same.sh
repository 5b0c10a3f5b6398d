#!/usr/bin/env bash
# Issue 40's target "runs, records, CSV files, comparisons and reports of the built-in suite are
# byte for byte the same before and after", shown: `capture` measures a small part of the
# built-in suite (icount, cache, memory, dhat, census, walltime) twice, and the selftest suite's
# constant-time scenarios and two of its service scenarios under load (throughput, one of them
# failing) once, with this tree's binary, keeps the run folders and the history database in DIR,
# and renders them (export JSON and BMF, compare in every format and JUnit, the HTML report with
# and without history, history listings and series, an import, and the run's own table of the
# loads through `merge`, which prints a run as `run` does), with the views that print as they
# measure: `run`'s own table of an icount and census run (exact figures: the per-op table and
# the census's summary after it) and `census`'s static census of the bench binary as a table
# and as JSON. `check`,
# run later on a changed tree, renders DIR's kept runs again with the changed binary and diffs
# every byte; then it measures once more and diffs the run records and CSV files with the
# fields that depend on time or load left out (times, run ids, git, build times, wall time and
# its CPU, max RSS, the figures under load and the messages of the failed load). Exit 0 when everything is the same, 1 with the diff otherwise.
# (Beside the end-to-end tests rather than in scripts/, whose every file README.md's layout
# table must name.)
#
# Usage: crates/costbench-cli/tests/slices-same.sh capture DIR   (before the change; about 2 minutes once built)
#        crates/costbench-cli/tests/slices-same.sh check DIR     (after it)
set -euo pipefail
mode=${1:?usage: crates/costbench-cli/tests/slices-same.sh capture|check DIR}
dir=${2:?usage: crates/costbench-cli/tests/slices-same.sh capture|check DIR}
repo=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
cargo build -q --locked -p costbench-cli --manifest-path "$repo/Cargo.toml"
bin="${CARGO_TARGET_DIR:-$repo/target}/debug/costbench"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NO_COLOR=1 COLUMNS=100

builtin=(--manifest-path "$repo/suites/builtin/Cargo.toml" --bench builtin
    --filter '^(alloc/word_count|index/matmul32/checked)'
    --instrument icount,cache,memory,dhat,census,walltime)
consttime=(--manifest-path "$repo/suites/selftest/Cargo.toml" --bench consttime
    --instrument constant-time,icount)
# The shortest load that still gives every figure (3 rounds give a repeat interval); a server
# that dies on its 50th request fails its loads. `--shard 1/1` so that `merge` takes the run and
# prints its table (a run's table is otherwise printed only by the run itself).
throughput=(--manifest-path "$repo/suites/selftest/Cargo.toml" --bench service
    --filter '^echo/(plain|server_panics)$' --instrument throughput --clients 1,2
    --load-rounds 3 --slices 2 --slice-ms 50 --load-warmup-ms 50 --shard 1/1)

# Wall time on any CPU: the default waits for CPU 1 while another costbench run times wall time
# on it, and a fresh run's wall time is left out of what is compared anyway.
cpu=any

# Exact figures only (no wall time): `run`'s table of it is the same on every run.
census_run=(--manifest-path "$repo/suites/builtin/Cargo.toml" --bench builtin
    --filter '^(alloc/word_count|index/matmul32/checked)' --instrument icount,census)

# printed OUT: what prints as it measures: `run`'s table (the census's summary after it), its
# output directory named relative to the scratch directory, and `census`'s static census of the
# bench binary in both its formats.
printed() {
    local out=$1
    mkdir -p "$out"
    "$bin" run "${census_run[@]}" --output-dir "$work/census-run" --no-history 2>/dev/null |
        sed "s#$work/#<work>/#g" >"$out/run-census.txt"
    for f in table json; do
        "$bin" census --manifest-path "$repo/suites/builtin/Cargo.toml" --bench builtin \
            --format "$f" 2>/dev/null >"$out/census.$f"
    done
}

# measure_throughput OUT: the run under load, into OUT (outside the history: it has no series).
measure_throughput() {
    # The failed loads fail the run: exit 1.
    "$bin" run "${throughput[@]}" --output-dir "$1" --no-history --quiet || [ $? = 1 ]
}

# measure OUT: the runs, into OUT/{a,b,ct,tp} and the history OUT/history.db.
measure() {
    local out=$1 runs=${2:-a b}
    for r in $runs; do
        "$bin" run "${builtin[@]}" --output-dir "$out/$r" --db "$out/history.db" --quiet \
            --walltime-cpu "$cpu"
    done
    # Any finding exits 3: the scenarios leak on purpose.
    "$bin" run "${consttime[@]}" --output-dir "$out/ct" --db "$out/history.db" --quiet || [ $? = 3 ]
    measure_throughput "$out/tp"
}

# render OUT: every view of the kept runs, from a copy of them in the current directory (relative
# paths, so that no view shows where the copy is).
render() {
    local out=$1
    mkdir -p "$out"
    rm -rf runs && cp -r "$dir/runs" runs
    local db=runs/history.db
    for f in json bmf; do "$bin" export runs/a --format "$f" >"$out/export-a.$f"; done
    "$bin" export runs/ct --format json >"$out/export-ct.json"
    for f in table markdown json; do
        "$bin" compare runs/a runs/b --format "$f" --junit "$out/compare-junit.xml" \
            >"$out/compare.$f" || [ $? = 3 ]
        "$bin" compare runs/ct runs/ct --format "$f" >"$out/compare-ct.$f" || [ $? = 3 ]
    done
    "$bin" report runs/a runs/b --no-history -o "$out/report-ab.html"
    "$bin" report runs/ct --no-history -o "$out/report-ct.html"
    # The loads: their figures compared, their section of the page with one build and with two
    # (the run against itself: a line and a column per build), their section of the run's table.
    for f in json bmf; do "$bin" export runs/tp --format "$f" >"$out/export-tp.$f"; done
    for f in table markdown json; do
        "$bin" compare runs/tp runs/tp --format "$f" --junit "$out/compare-tp-junit.xml" \
            >"$out/compare-tp.$f" || [ $? = 3 ]
    done
    "$bin" report runs/tp --no-history -o "$out/report-tp.html"
    "$bin" report runs/tp runs/tp --no-history -o "$out/report-tp-ab.html"
    # The failed loads fail the merged run as they failed the run: exit 1.
    "$bin" merge runs/tp -o merged-tp --no-history >"$out/run-tp.txt" || [ $? = 1 ]
    "$bin" report runs/a runs/b --db "$db" -o "$out/report-history.html"
    "$bin" history --db "$db" >"$out/history.txt"
    for m in icount walltime cycles alloc-bytes allocs peak-bytes max-rss; do
        "$bin" history --db "$db" --scenario alloc/word_count/borrowed --metric "$m" \
            >"$out/history-$m.txt"
    done
    "$bin" import runs/a --db fresh.db --commit 0000000 --branch main >"$out/import.txt" 2>&1
    "$bin" history --db fresh.db >"$out/history-imported.txt"
    "$bin" history --db fresh.db --scenario index/matmul32/checked --metric cycles \
        >"$out/history-imported-cycles.txt"
    # Times of day: the import's and the HTML report's own.
    sed -i -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2})?(Z|[+-][0-9:]{5})?/<time>/g' \
        "$out"/*
}

# normalise RUN OUT: the run's record and CSV files without what depends on time or load.
normalise() {
    python3 - "$1" "$2" <<'EOF'
import csv, json, os, sys
run, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
r = json.load(open(os.path.join(run, "run.json")))
for k in ("run_id", "started_at", "finished_at"):
    r.pop(k, None)
r["environment"].pop("git", None)
r.pop("build", None)
r["settings"].pop("walltime_cpu", None)
# Under load: how it was measured, not what it measured.
load = ("clients", "load", "target_rate", "ops_per_request", "rounds", "slices_per_round",
        "slice_ms", "warmup_ms")
for res in r["results"]:
    res.pop("walltime", None)
    if res.get("memory"):
        res["memory"].pop("max_rss_kib", None)
    if res.get("throughput"):
        res["throughput"] = {k: v for k, v in res["throughput"].items() if k in load}
    for f in res["failures"]:
        # When the dying server was seen to die, and the lines it left.
        if f["instrument"] == "throughput":
            f.pop("message", None)
            f.pop("stderr_tail", None)
json.dump(r, open(os.path.join(out, "run.json"), "w"), indent=1, sort_keys=True)
for name in sorted(os.listdir(run)):
    if not name.endswith(".csv") or name == "walltime.csv":
        continue
    rows = list(csv.reader(open(os.path.join(run, name))))
    if name == "memory.csv":
        i = rows[0].index("max_rss_kib")
        for row in rows[1:]:
            row[i] = "-"
    if name == "throughput.csv":
        rows = [row[:5] for row in rows]  # id, scenario, clients, load, target_rate
    csv.writer(open(os.path.join(out, name), "w")).writerows(rows)
EOF
}

cd "$work"
case $mode in
capture)
    rm -rf "$dir/runs" "$dir/render"
    measure "$dir/runs"
    render "$dir/render"
    printed "$dir/render"
    # b was measured like a: what differs between them is not deterministic and `check` would
    # report it as a change.
    normalise "$dir/runs/a" "$work/a"
    normalise "$dir/runs/b" "$work/b"
    diff -r "$work/a" "$work/b" || { echo "a and b differ beyond the normalised fields"; exit 1; }
    # Likewise the load measured twice.
    measure_throughput "$work/tp2"
    normalise "$dir/runs/tp" "$work/tp1n"
    normalise "$work/tp2" "$work/tp2n"
    diff -r "$work/tp1n" "$work/tp2n" ||
        { echo "two runs under load differ beyond the normalised fields"; exit 1; }
    echo "captured in $dir: $(ls "$dir/render" | wc -l) rendered files, runs a, b, ct, tp"
    ;;
check)
    status=0
    render "$work/render"
    printed "$work/render"
    diff -r "$dir/render" "$work/render" && echo "rendered views: the same ($(ls "$work/render" | wc -l) files)" || status=1
    measure "$work/runs" a
    for r in a ct tp; do
        normalise "$dir/runs/$r" "$work/kept/$r"
        normalise "$work/runs/$r" "$work/fresh/$r"
    done
    diff -r "$work/kept" "$work/fresh" && echo "fresh run records and CSV files: the same" || status=1
    exit $status
    ;;
*)
    echo "usage: crates/costbench-cli/tests/slices-same.sh capture|check DIR" >&2
    exit 2
    ;;
esac
