#!/usr/bin/env bash
# Remakes docs/report.png, the screenshot of the HTML report shown in the README and the book: the built-in
# suite measured RUNS times (default 20) into a fresh history, then `costbench report` of the
# newest run against the one before, with history charts, shot by headless Chromium.
#
#   scripts/report-screenshot.sh [RUNS]
#   COSTBENCH_DB=path/history.sqlite scripts/report-screenshot.sh 0   # reuse a history
#
# Needs valgrind and chromium (apt-get install valgrind chromium). Prints the report's size and
# the time `costbench report` took.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db=${COSTBENCH_DB:-$work/history.sqlite}

cargo build --release --locked -p costbench-cli
cb=target/release/costbench
for i in $(seq 1 "$runs"); do
  echo "run $i of $runs"
  "$cb" run --db "$db" --output-dir "$work/results" --quiet
done
start=$(date +%s%N)
"$cb" report --db "$db" --output "$work/report.html"
end=$(date +%s%N)
echo "report: $(stat -c %s "$work/report.html") bytes in $(( (end - start) / 1000000 )) ms"
chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --hide-scrollbars --user-data-dir="$work/profile" \
  --window-size=1280,2200 --screenshot="$PWD/docs/report.png" "file://$work/report.html"
ls -l docs/report.png
