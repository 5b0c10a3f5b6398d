#!/usr/bin/env bash
# Measures `costbench advise` (issue 39) and records its figures: the fixture crate of
# crates/costbench-cli/tests/advise-fixture (a redundant clone on the hot path, a cold
# `to_string` in `format!` arguments) with every candidate (build choices and clippy's), wall
# time included, and the built-in suite's library through clippy. Prints each run's advice and
# how long it took; the figures in docs/advise.md come from it.
#
# Usage: [COSTBENCH=PATH] scripts/advise.sh [OUT_DIR]   (default: a fresh temporary directory)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$(mktemp -d)}"
mkdir -p "$out"
# COSTBENCH=PATH uses a costbench already built (the runner's own speed barely matters: the
# measured work runs in the scenario binaries).
if [ -z "${COSTBENCH:-}" ]; then
  cargo build --release -p costbench-cli --manifest-path "$here/Cargo.toml" >&2
fi
bin="${COSTBENCH:-${CARGO_TARGET_DIR:-$here/target}/release/costbench}"

# The fixture as a crate of its own, committed, depending on this checkout's library.
crate="$out/fixture"
rm -rf "$crate"
mkdir -p "$crate"
cp -r "$here/crates/costbench-cli/tests/advise-fixture/." "$crate/"
cat > "$crate/Cargo.toml" <<TOML
[package]
name = "advise-fixture"
version = "0.1.0"
edition = "2021"

[dev-dependencies]
costbench = { path = "$here/crates/costbench" }

[[bench]]
name = "costs"
harness = false

[workspace]
TOML
cp "$here/Cargo.lock" "$crate/Cargo.lock"
echo /target > "$crate/.gitignore"
git -C "$crate" init -q
git -C "$crate" add -A
git -C "$crate" -c user.name=advise -c user.email=advise@example.invalid commit -qm fixture

timed() {
  local name="$1"; shift
  local start end
  start=$(date +%s.%N)
  "$@" > "$out/$name.md" 2> "$out/$name.log"
  end=$(date +%s.%N)
  printf '%s: %.1f s\n' "$name" "$(echo "$end - $start" | bc)" | tee -a "$out/times.txt"
}

# Every candidate of the fixture, icount and paired wall time (cold builds).
(cd "$crate" && timed fixture-all "$bin" advise --format markdown)
# The same again: builds reused, only measuring.
(cd "$crate" && timed fixture-all-warm "$bin" advise --format markdown)
# The built-in suite's library through clippy.
(cd "$here" && timed builtin-clippy "$bin" advise --only clippy --format markdown)

echo "advice and logs in $out" >&2
