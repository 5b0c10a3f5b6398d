#!/usr/bin/env bash
# Measures `costbench advise` (issue 39) and records its figures:
#
# - planted: crates/costbench-cli/tests/idioms-fixture, a crate planted with the classic slow
#   idioms (a regex compiled in a loop, a regex for a prefix test, unbuffered writes, a Vec
#   without capacity, the default hasher, an owned copy in a loop (clippy), a Vec collected to be iterated
#   once, the system allocator), every candidate (build choices, clippy's, the idioms'), wall
#   time included;
# - fixture: crates/costbench-cli/tests/advise-fixture (a redundant clone on the hot path, a cold
#   `to_string` in `format!` arguments), every candidate, then again with its builds reused;
# - builtin: the built-in suite's library, clippy's suggestions and the idioms;
# - two published crates with their real criterion benches, switched to costbench-criterion by
#   their one dependency line: itoa with every candidate, semver with the source changes.
#
# Prints each run's advice (markdown) and how long it took; the figures in docs/advise.md come
# from it.
#
# Usage: [COSTBENCH=PATH] [ADVISE_ONLY=NAME] scripts/advise.sh [OUT_DIR]
#   (default OUT_DIR: a fresh temporary directory; it must lie outside this repository)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$(mktemp -d)}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
# COSTBENCH=PATH uses a costbench already built (the runner's own speed barely matters: the
# measured work runs in the scenario binaries).
if [ -z "${COSTBENCH:-}" ]; then
  cargo build --release -p costbench-cli --manifest-path "$here/Cargo.toml" >&2
fi
bin="${COSTBENCH:-${CARGO_TARGET_DIR:-$here/target}/release/costbench}"

# fixture NAME DEPENDENCIES: the test fixture NAME as a crate of its own in $out/NAME,
# committed, depending on this checkout's library.
fixture() {
  local name="$1" deps="$2" crate="$out/$1"
  rm -rf "$crate"
  mkdir -p "$crate"
  cp -r "$here/crates/costbench-cli/tests/$name/." "$crate/"
  cat > "$crate/Cargo.toml" <<TOML
[package]
name = "$name"
version = "0.1.0"
edition = "2021"

[dependencies]
$deps

[dev-dependencies]
costbench = { path = "$here/crates/costbench" }

[[bench]]
name = "costs"
harness = false

[workspace]
TOML
  cp "$here/Cargo.lock" "$crate/Cargo.lock"
  commit "$crate"
}

commit() {
  echo /target > "$1/.gitignore"
  git -C "$1" init -q
  git -C "$1" add -A
  git -C "$1" -c user.name=advise -c user.email=advise@example.invalid commit -qm fixture
}

# published NAME VERSION: the crate as published, its criterion dev-dependency switched to
# costbench-criterion (the one line a user changes), committed, in $out/NAME.
published() {
  local name="$1" version="$2" crate="$out/$1"
  rm -rf "$crate" "$out/fetch-$name"
  mkdir -p "$out/fetch-$name/src"
  printf '[package]\nname = "fetch-%s"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n%s = "=%s"\n[workspace]\n' \
    "$name" "$name" "$version" > "$out/fetch-$name/Cargo.toml"
  touch "$out/fetch-$name/src/lib.rs"
  cargo fetch --quiet --manifest-path "$out/fetch-$name/Cargo.toml"
  local cache
  cache=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/index.crates.io-*/ | head -n1)
  tar -xzf "$cache/$name-$version.crate" -C "$out"
  mv "$out/$name-$version" "$crate"
  python3 - "$crate/Cargo.toml" "$here/crates/costbench-criterion" <<'PY'
import re, sys
path, compat = sys.argv[1], sys.argv[2]
text = open(path).read()
head = re.compile(r'^\[(?:target\.(?:"[^"]*"|\'[^\']*\')\.)?dev-dependencies\.criterion\]\n', re.M)
m = head.search(text)
assert m, "no criterion dev-dependency section"
end = text.find("\n[", m.end())
section = text[m.end():end if end >= 0 else len(text)]
switched = re.sub(r'^version = "[^"]*"$', f'package = "costbench-criterion"\npath = "{compat}"',
                  section, count=1, flags=re.M)
open(path, "w").write(text[:m.end()] + switched + text[m.end() + len(section):])
PY
  commit "$crate"
}

timed() {
  local name="$1"; shift
  if [ -n "${ADVISE_ONLY:-}" ] && [ "$name" != "$ADVISE_ONLY" ]; then return; fi
  local start end
  start=$(date +%s.%N)
  "$@" > "$out/$name.md" 2> "$out/$name.log" || echo "$name: exit $?" | tee -a "$out/times.txt"
  end=$(date +%s.%N)
  printf '%s: %.1f s\n' "$name" "$(echo "$end - $start" | bc)" | tee -a "$out/times.txt"
}

# The planted crate: every candidate, icount and paired wall time (cold builds).
fixture idioms-fixture 'regex = "1"'
(cd "$out/idioms-fixture" && timed planted "$bin" advise --format markdown)
# The clippy fixture: every candidate, then again with the builds reused.
fixture advise-fixture ''
(cd "$out/advise-fixture" && timed fixture-all "$bin" advise --format markdown)
(cd "$out/advise-fixture" && timed fixture-all-warm "$bin" advise --format markdown)
# The built-in suite's library: clippy's suggestions, the idioms and the hottest checks
# (instruction counts: with wall time, relinking a code layout of its unchanged copy failed with
# "undefined symbol: main", 2026-11-28; see docs/advise.md).
(cd "$here" && timed builtin "$bin" advise --only clippy,idioms --instrument icount --format markdown)
# Two published crates with their real criterion benches.
published itoa 1.0.19
(cd "$out/itoa" && timed itoa "$bin" advise --bench bench --format markdown)
published semver 1.0.28
(cd "$out/semver" && timed semver "$bin" advise --bench parse --only clippy,idioms --format markdown)

echo "advice and logs in $out" >&2
