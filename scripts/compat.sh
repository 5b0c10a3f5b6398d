#!/usr/bin/env bash
# Measures real crates' criterion and divan benches, unchanged, through costbench-criterion and
# costbench-divan (issue 26): each crate's published source (the .crate tarball from cargo's
# registry cache, fetched by cargo when missing), its bench files byte for byte as published,
# only the criterion (or divan) dependency line switched to `package = "costbench-criterion"`
# (or `"costbench-divan"`). Every benchmark is measured by
# `costbench run --instrument icount,walltime`; the figures are in docs/compat.md.
#
# Usage: [COMPAT_ONLY=CRATE] [COMPAT_SAMPLES=N] scripts/compat.sh [OUT_DIR]   (default: a new temporary directory; it must lie outside
# this repository, whose workspace would otherwise claim the extracted crates)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
out=${1:-$(mktemp -d -t costbench-compat.XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
samples=${COMPAT_SAMPLES:-20}

cargo build --quiet -p costbench-cli
costbench="$repo/target/debug/costbench"

# name version bench-target harness [file the published crate omits but its benches read]
#
# bnf's Cargo.toml excludes `tests` from the published crate, yet its bench `include_str!`s a
# grammar from tests/fixtures: as published, it builds with no divan. That one file is taken from
# the crate's repository at the release's tag: set COMPAT_BNF_REPO to a clone of
# https://github.com/shnewto/bnf (without it, bnf is skipped with a line saying so).
crates=(
  "bnf 0.6.0 divan divan tests/fixtures/postal_address.terminated.input.bnf"
  "itoa 1.0.19 bench criterion"
  "semver 1.0.28 parse criterion"
  "zeroize 1.9.2 zeroize criterion"
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

printf '%-8s %-8s %-9s %7s %7s %8s %8s\n' crate version bench listed icount walltime failed
for entry in "${crates[@]}"; do
  read -r name version bench harness omitted <<<"$entry"
  if [ -n "${COMPAT_ONLY:-}" ] && [ "$name" != "$COMPAT_ONLY" ]; then continue; fi
  dir="$out/$name-$version"
  rm -rf "$dir"
  tar -xzf "$(crate_file "$name" "$version")" -C "$out"
  # The one change: the harness's dependency section names the compat crate instead. Its
  # `features` and `default-features` lines stay (the compat crates have the same features).
  python3 - "$dir/Cargo.toml" "$repo/crates/costbench-$harness" "$harness" <<'PY'
import re, sys
path, compat, harness = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path).read()
head = re.compile(r'^\[(?:target\.(?:"[^"]*"|\'[^\']*\')\.)?dev-dependencies\.' + harness + r'\]\n', re.M)
m = head.search(text)
assert m, f"no {harness} dev-dependency section"
end = text.find("\n[", m.end())
section = text[m.end():end if end >= 0 else len(text)]
switched = re.sub(r'^version = "[^"]*"$', f'package = "costbench-{harness}"\npath = "{compat}"',
                  section, count=1, flags=re.M)
assert switched != section, f"no version line in the {harness} section"
open(path, "w").write(text[:m.end()] + switched + text[m.end() + len(section):])
PY
  if [ -n "${omitted:-}" ]; then
    repo_var="COMPAT_$(echo "$name" | tr '[:lower:]-' '[:upper:]_')_REPO"
    clone=${!repo_var:-}
    if [ -z "$clone" ]; then
      echo "$name: skipped: the published crate omits $omitted, which its benches read; set $repo_var to a clone of its repository"
      continue
    fi
    mkdir -p "$dir/$(dirname "$omitted")"
    git -C "$clone" show "$version:$omitted" >"$dir/$omitted"
  fi
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
        why = (f["stderr_tail"].strip().splitlines() or [f["message"]])[-1]
        print(f"  failed {r['id']} ({f['instrument']}, {f['kind']}): {why}")
PY
done
