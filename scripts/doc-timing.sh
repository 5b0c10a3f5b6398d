#!/usr/bin/env bash
# What `.ci/run`'s docs step adds to CI (issue 25): the time of
#
#   RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked
#
# run right after `cargo clippy --workspace --all-targets --locked -- -D warnings`, as in
# `.ci/run`. Each repetition starts from an empty target directory of its own (under
# target/doc-timing/, removed at the end): clippy fills it as CI's does, then the docs step is
# timed. Clippy's untimed run is the warm-up; the docs step still checks the workspace's library
# crates once with plain rustc (clippy's metadata of them is its own) and documents them.
#
# Usage: scripts/doc-timing.sh [REPETITIONS]   (default 3; one line per repetition)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
case $reps in '' | *[!0-9]* | 0)
  echo "usage: scripts/doc-timing.sh [REPETITIONS] (a positive whole number, not '$reps')" >&2
  exit 2
  ;;
esac
scratch=target/doc-timing
trap 'rm -rf "$scratch"' EXIT
for ((i = 1; i <= reps; i++)); do
  rm -rf "$scratch"
  CARGO_TARGET_DIR=$scratch cargo clippy --workspace --all-targets --locked -q -- -D warnings
  start=$(date +%s.%N)
  CARGO_TARGET_DIR=$scratch RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked -q
  end=$(date +%s.%N)
  printf 'run %d: cargo doc after clippy took %.1f s (load average %s)\n' "$i" \
    "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" "$(cut -d' ' -f1 /proc/loadavg)"
done
