#!/usr/bin/env bash
# Measures real crates' criterion benches, unchanged, through costbench-criterion (issue 26):
# each crate's published source (the .crate tarball from cargo's registry cache, fetched by cargo
# when missing), its bench files byte for byte as published, only the criterion dependency line
# switched to `package = "costbench-criterion"`. Every benchmark is measured by
# `costbench run --instrument icount,walltime`; the figures are in docs/compat.md.
#
# Usage: scripts/compat.sh [OUT_DIR]   (default: a new temporary directory; it must lie outside
# this repository, whose workspace would otherwise claim the extracted crates)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
out=${1:-$(mktemp -d "${TMPDIR:-/tmp}/costbench-compat.XXXXXX")}
mkdir -p "$out"
out=$(cd "$out" && pwd)
samples=${COMPAT_SAMPLES:-20}

cargo build --quiet -p costbench-cli
costbench="$repo/target/debug/costbench"

# name version bench-target
crates=(
  "itoa 1.0.19 bench"
  "semver 1.0.28 parse"
  "zeroize 1.9.2 zeroize"
)

registry_cache() {
  ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/index.crates.io-*/ 2>/dev/null | head -n1
}

# The published .crate of NAME VERSION: from cargo's cache, else fetched into it by cargo.
crate_file() {
  local name=$1 version=$2 cache
  cache=$(registry_cache)
  if [ -z "$cache" ] || [ ! -f "$cache/$name-$version.crate" ]; then
    local fetch="$out/fetch-$name"
    mkdir -p "$fetch/src"
    printf '[package]\nname = "fetch-%s"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n%s = "=%s"\n[workspace]\n' \
      "$name" "$name" "$version" >"$fetch/Cargo.toml"
    touch "$fetch/src/lib.rs"
    cargo fetch --quiet --manifest-path "$fetch/Cargo.toml"
    cache=$(registry_cache)
  fi
  echo "$cache/$name-$version.crate"
}

printf '%-8s %-8s %-9s %7s %7s %8s %8s\n' crate version bench listed icount walltime refused
for entry in "${crates[@]}"; do
  read -r name version bench <<<"$entry"
  dir="$out/$name-$version"
  rm -rf "$dir"
  tar -xzf "$(crate_file "$name" "$version")" -C "$out"
  # The one change: criterion's dependency section names costbench-criterion instead. Its
  # `features` and `default-features` lines stay (the compat crate has criterion's features).
  python3 - "$dir/Cargo.toml" "$repo/crates/costbench-criterion" <<'PY'
import re, sys
path, compat = sys.argv[1], sys.argv[2]
text = open(path).read()
head = re.compile(r'^\[(?:target\."[^"]*"\.)?dev-dependencies\.criterion\]\n', re.M)
m = head.search(text)
assert m, "no criterion dev-dependency section"
end = text.find("\n[", m.end())
section = text[m.end():end if end >= 0 else len(text)]
switched = re.sub(r'^version = "[^"]*"$', f'package = "costbench-criterion"\npath = "{compat}"',
                  section, count=1, flags=re.M)
assert switched != section, "no version line in the criterion section"
open(path, "w").write(text[:m.end()] + switched + text[m.end() + len(section):])
PY
  # Bench files as published: the hashes cargo recorded in the tarball's checksums are not
  # shipped, so compare against a second extraction instead.
  pristine="$out/pristine"
  rm -rf "$pristine" && mkdir -p "$pristine"
  tar -xzf "$(crate_file "$name" "$version")" -C "$pristine"
  diff -r "$pristine/$name-$version/benches" "$dir/benches"
  results="$out/results-$name"
  rm -rf "$results"
  "$costbench" run --manifest-path "$dir/Cargo.toml" --bench "$bench" \
    --instrument icount,walltime --iterations-per-scenario "$samples" \
    --output-dir "$results" --color never >"$out/$name.log" 2>&1 || true
  python3 - "$results/run.json" "$name" "$version" "$bench" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
rs = run["results"]
icount = sum(1 for r in rs if r.get("icount"))
wall = sum(1 for r in rs if r.get("walltime"))
refused = [r["id"] for r in rs if r["failures"]]
print(f"{sys.argv[2]:<8} {sys.argv[3]:<8} {sys.argv[4]:<9} {len(rs):>7} {icount:>7} {wall:>8} {len(refused):>8}")
for r in rs:
    for f in r["failures"]:
        print(f"  refused {r['id']} ({f['instrument']}): {f['stderr_tail'].strip().splitlines()[-1]}")
PY
done
