#!/usr/bin/env bash
# Issue 40's first target, measured (figures in docs/extending.md, "How far the slices go"):
# for each instrument, the source files under crates/*/src that name it outside the slice
# folders (`src/instrument/` of each crate, the registry included), as a markdown table of two
# counts: every file (snapshots and other non-Rust files included, as the docs' earlier figures
# were counted) and the Rust files alone. A word is counted case-insensitively wherever it
# appears, comments, `--help` text and CSV file names included, so some words count more than
# the instrument ("cache" also names cargo's build cache, "perf" the word "performance"): the
# figure is an upper bound, and its trend is what matters. Then the scheduler's special cases:
# the lines of `run_phases` (the measuring crate's scheduler) that name an `Instrument::` variant.
# (Import circles are counted by the project's `farm-studio look`, outside the repository.)
#
# Usage: scripts/slice-names.sh [REV]   (REV defaults to the work tree; a revision is read with
#                                        git grep at that revision)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
rev=${1:-}
words=(
    "dhat"
    "constant.time\|consttime\|constant_time"
    "cache"
    "memory"
    "perf"
    "counters"
    "census"
    "throughput"
    "walltime\|wall.time"
    "icount"
)
# grep_files PATTERN PATHSPEC: the files (at REV when given) that name PATTERN, outside the
# slice folders.
grep_files() {
    if [ -n "$rev" ]; then
        git grep -il -e "$1" "$rev" -- "$2" | sed "s/^$rev://"
    else
        git grep -il -e "$1" -- "$2"
    fi | grep -v '/instrument/' || true
}
echo "| instrument (pattern) | files outside the slices | of them .rs |"
echo "| --- | ---: | ---: |"
for w in "${words[@]}"; do
    all=$(grep_files "$w" 'crates/*/src/**' | wc -l)
    rs=$(grep_files "$w" 'crates/*/src/**.rs' | wc -l)
    echo "| \`$w\` | $all | $rs |"
done
echo
show() {
    if [ -n "$rev" ]; then git show "$rev:$1"; else cat "$1"; fi
}
scheduler=crates/costbench-measure/src/run/mod.rs
named=$(show "$scheduler" | awk '/^fn run_phases/,/^}/' | grep -c 'Instrument::' || true)
echo "run_phases in $scheduler: $named lines name an Instrument:: variant"
