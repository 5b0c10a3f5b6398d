#!/usr/bin/env bash
# What a killed or interrupted `costbench run` leaves behind (issue 16). Starts a run of the
# selftest suite, waits until a scenario process (valgrind or a scenario binary) is running,
# sends the signal, then counts, 2 s later, the run's processes still alive (any process whose
# command line names the output directory, and the run's janitor) and the temporary files in the
# output directory, and checks that the next run into the same directory succeeds.
#
#   scripts/kill-test.sh [KILL|INT|TERM] [instruments]     (default: KILL icount,walltime)
#
# COSTBENCH names the binary (default target/debug/costbench). Exit status 0 when nothing was
# left and the next run succeeded.
set -euo pipefail
cd "$(dirname "$0")/.."
sig=${1:-KILL}
instruments=${2:-icount,walltime}
costbench=${COSTBENCH:-target/debug/costbench}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Processes of the run: the command line names the output directory, or it is the janitor of $1.
run_processes() {
    local p
    for p in /proc/[0-9]*; do
        [ "${p#/proc/}" = "$$" ] && continue
        local cmd
        cmd=$( { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null) || continue
        if grep -qE -- "$out|__costbench-janitor $1\b" <<<"$cmd"; then
            echo "${p#/proc/}: ${cmd:0:120}"
        fi
    done
}

"$costbench" run --manifest-path suites/selftest/Cargo.toml --bench selftest \
    --instrument "$instruments" --output-dir "$out" --no-history --quiet 2>"$out.stderr" &
pid=$!
start=$(date +%s)
until [ -n "$(run_processes "$pid" | grep -v __costbench-janitor || true)" ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "costbench ended before a scenario ran:"; cat "$out.stderr"; exit 1
    fi
    [ $(($(date +%s) - start)) -gt 600 ] && { echo "no scenario started in 600 s"; exit 1; }
    sleep 0.05
done
echo "running before the signal:"; run_processes "$pid"
kill -"$sig" "$pid"
code=0; wait "$pid" || code=$?
echo "costbench exit code: $code"
sed 's/^/  stderr: /' "$out.stderr" | tail -3
sleep 0.2
echo "processes left after 0.2 s: $(run_processes "$pid" | grep -c . || true)"
sleep 1.8
left=$(run_processes "$pid")
tmp=$(find "$out" -name '.*' | grep -v "^$out$" || true)
echo "processes left after 2 s: $(printf '%s' "$left" | grep -c . || true)"
[ -n "$left" ] && echo "$left"
echo "temporary files left: $(printf '%s' "$tmp" | grep -c . || true)"
[ -n "$tmp" ] && echo "$tmp"
if [ -f "$out/run.json" ]; then
    echo "run.json: $(tr -d '\n ' <"$out/run.json" | grep -o '"interrupted":{[^}]*}' || echo 'not marked interrupted')"
    echo "run.json: $(tr -d '\n ' <"$out/run.json" | grep -o '"completion":{[^}]*}' || echo 'no completion')"
fi
next=0
"$costbench" run --manifest-path suites/selftest/Cargo.toml --bench selftest --instrument icount \
    --filter '^calibrate/1000$' --output-dir "$out" --no-history --quiet || next=$?
echo "next run into the same directory: exit code $next"
rm -f "$out.stderr"
[ -z "$left" ] && [ -z "$tmp" ] && [ "$next" = 0 ]
