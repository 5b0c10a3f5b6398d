#!/usr/bin/env bash
# Issue 40's first target, measured (figures in docs/extending.md, "How far the slices go"):
# for each instrument, the source files under crates/*/src that name it outside the slice
# folders (`src/instrument/` of each crate, the registry included), as a markdown table of
# counts: every file (snapshots and other non-Rust files included, as the docs' earlier figures
# were counted) and the Rust files alone. A word is counted case-insensitively wherever it
# appears, comments, `--help` text and CSV file names included, so some words count more than
# the instrument ("cache" also names cargo's build cache, "perf" the word "performance"): the
# figures are upper bounds, and their trend is what matters. A third count leaves out tests (a
# file's `#[cfg(test)]` module and files of tests), which name instruments to build fixtures. Then the scheduler's special cases:
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
show() {
    if [ -n "$rev" ]; then git show "$rev:$1"; else cat "$1"; fi
}
# in_code PATTERN FILE...: how many of the Rust files name PATTERN outside their tests (the part
# of a file before its first `#[cfg(test)]`; a file of tests, `tests.rs` or under `tests/`, not
# at all).
in_code() {
    local pattern=$1 n=0 f
    shift
    for f in "$@"; do
        case "$f" in */tests.rs | */tests/*) continue ;; esac
        # Every stage reads its whole input: one that stopped early would fail the pipeline
        # (SIGPIPE, under pipefail) and the file would not be counted.
        if show "$f" | awk '/^ *#\[cfg\(test\)\]/ { stop = 1 } !stop { print }' |
            grep -i -e "$pattern" >/dev/null; then
            n=$((n + 1))
        fi
    done
    echo "$n"
}
echo "| instrument (pattern) | files outside the slices | of them .rs | .rs outside tests |"
echo "| --- | ---: | ---: | ---: |"
for w in "${words[@]}"; do
    all=$(grep_files "$w" 'crates/*/src/**' | wc -l)
    mapfile -t rs_files < <(grep_files "$w" 'crates/*/src/**.rs')
    code=$(in_code "$w" "${rs_files[@]}")
    echo "| \`$w\` | $all | ${#rs_files[@]} | $code |"
done
echo
scheduler=crates/costbench-measure/src/run/mod.rs
named=$(show "$scheduler" | awk '/^fn run_phases/,/^}/' | grep -c 'Instrument::' || true)
echo "run_phases in $scheduler: $named lines name an Instrument:: variant"
