#!/usr/bin/env bash
# Measures real crates' criterion and divan benches, unchanged, through costbench-criterion and
# costbench-divan (issue 26): each crate's published source (the .crate tarball from cargo's
# registry cache, fetched by cargo when missing), its bench files byte for byte as published,
# only the criterion (or divan) dependency line switched to `package = "costbench-criterion"`
# (or `"costbench-divan"`). Then, as a maintainer would (issue 41), `costbench run` with no
# option at all is typed in the crate's directory: it measures every bench target of the crate
# in one run, under its default instruments (icount and walltime). Beside it, the crate's own
# harness (the real criterion or divan, from the unswitched copy) lists its benchmarks
# (`cargo bench -- --list`), so that the table says whether every one of them was measured.
# The figures are in docs/compat.md.
#
# Usage: [COMPAT_ONLY=CRATE] scripts/compat.sh [OUT_DIR]   (default: a new temporary directory;
# it must lie outside this repository, whose workspace would otherwise claim the extracted crates)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
out=${1:-$(mktemp -d -t costbench-compat.XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)

cargo build --quiet -p costbench-cli
costbench="$repo/target/debug/costbench"

# name version harness [omit=FILE] [own=BENCH]
#
# omit=FILE: a file the published crate omits but its benches read. own=BENCH: the crate's own
# harness is listed on that bench target alone (`cargo bench --bench BENCH -- --list`), where
# another target runs a harness that has no `--list` (merni's tango).
#
# bnf's Cargo.toml excludes `tests` from the published crate, yet its bench `include_str!`s a
# grammar from tests/fixtures: as published, it builds with no divan. That one file is taken from
# the crate's repository at the release's tag: set COMPAT_BNF_REPO to a clone of
# https://github.com/shnewto/bnf (without it, bnf is skipped with a line saying so).
#
# tendril has two bench targets (futf and tendril), both criterion's: one run measures both.
# A crate with criterion and divan targets names both harnesses, `criterion+divan` (paralight
# 0.0.12 would be "paralight 0.0.12 criterion+divan"; see docs/compat.md).
crates=(
  "itoa 1.0.19 criterion"
  "semver 1.0.28 criterion"
  "zeroize 1.9.2 criterion"
  "tendril 0.5.0 criterion"
  "bnf 0.6.0 divan omit=tests/fixtures/postal_address.terminated.input.bnf"
  "merni 0.1.3 divan own=divan"
  "trie-hard 0.2.0 criterion+divan"
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

printf '%-8s %-8s %-16s %6s %6s %6s %8s %6s %4s %6s\n' \
  crate version targets own measured icount walltime failed exit seconds
for entry in "${crates[@]}"; do
  read -r name version harness options <<<"$entry"
  omitted= own_bench=()
  for o in ${options:-}; do
    case $o in
      omit=*) omitted=${o#omit=} ;;
      own=*) own_bench=(--bench "${o#own=}") ;;
      *) echo "compat.sh: unknown option $o of $name" >&2; exit 2 ;;
    esac
  done
  if [ -n "${COMPAT_ONLY:-}" ] && [ "$name" != "$COMPAT_ONLY" ]; then continue; fi
  dir="$out/$name-$version"
  rm -rf "$dir"
  tar -xzf "$(crate_file "$name" "$version")" -C "$out"
  # The one change: the harness's dependency section names the compat crate instead (for a
  # crate with criterion and divan targets, `criterion+divan`, each harness's line). Its
  # `features` and `default-features` lines stay (the compat crates have the same features).
  for h in ${harness//+/ }; do
  python3 - "$dir/Cargo.toml" "$repo/crates/costbench-$h" "$h" <<'PY'
import re, sys
path, compat, harness = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path).read()
head = re.compile(r'^\[(?:target\.(?:"[^"]*"|\'[^\']*\')\.)?dev-dependencies\.' + harness + r'\]\n', re.M)
m = head.search(text)
assert m, f"no {harness} dev-dependency section"
end = text.find("\n[", m.end())
section = text[m.end():end if end >= 0 else len(text)]
rest = text[m.end() + len(section):]
# A section that already renames a package (merni's `package = "codspeed-divan-compat"`, divan's
# API under another crate) loses that line: the compat crate takes the name instead.
unrenamed = re.sub(r'^package = "[^"]*"\n?', "", section, flags=re.M)
switched = re.sub(r'^version = "[^"]*"$', f'package = "costbench-{harness}"\npath = "{compat}"',
                  unrenamed, count=1, flags=re.M)
assert switched != unrenamed, f"no version line in the {harness} section"
open(path, "w").write(text[:m.end()] + switched + rest)
PY
  done
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
  if [ -n "${omitted:-}" ]; then
    mkdir -p "$pristine/$name-$version/$(dirname "$omitted")"
    cp "$dir/$omitted" "$pristine/$name-$version/$omitted"
  fi
  # What the crate's own harness runs, from the unswitched copy: criterion's benchmarks as its
  # `--list` prints them (`NAME: benchmark` lines, over every bench target), and divan's as a
  # one-sample run of each divan target draws them, one leaf of its tree per argument, type and
  # const (divan's `--list` names each function once: trie-hard's 7 are 102 benchmarks).
  manifest="$pristine/$name-$version/Cargo.toml"
  listed=$(CARGO_TARGET_DIR="$out/own-target" cargo bench --quiet "${own_bench[@]}" \
    --manifest-path "$manifest" -- --list 2>"$out/$name.own.log" |
    grep -cE ': bench(mark)?$' || true)
  leaves=0
  for t in $(python3 - "$manifest" <<'PY'
import os, sys, tomllib
path = sys.argv[1]
root = os.path.dirname(path)
m = tomllib.load(open(path, "rb"))
benches = {b["name"]: b.get("path", f"benches/{b['name']}.rs") for b in m.get("bench", [])}
if m.get("package", {}).get("autobenches", True) and os.path.isdir(f"{root}/benches"):
    for f in os.listdir(f"{root}/benches"):
        if f.endswith(".rs"):
            benches.setdefault(f[:-3], f"benches/{f}")
for name, src in sorted(benches.items()):
    try:
        if "divan::main" in open(os.path.join(root, src)).read():
            print(name)
    except OSError:
        pass
PY
  ); do
    n=$(CARGO_TARGET_DIR="$out/own-target" cargo bench --quiet --manifest-path "$manifest" \
      --bench "$t" -- --sample-count 1 --sample-size 1 2>>"$out/$name.own.log" |
      python3 -c '
import sys
lines = sys.stdin.read().splitlines()
depth = [max(l.find("\u251c\u2500"), l.find("\u2570\u2500")) for l in lines]
print(sum(1 for i, d in enumerate(depth)
          if d >= 0 and not (i + 1 < len(lines) and depth[i + 1] > d)))')
    leaves=$((leaves + n))
  done
  own=$((listed + leaves))
  # A crate that pins its toolchain (merni's rust-toolchain.toml: 1.89) is built with it, as on
  # its maintainer's machine: rustup installs it first where it is missing.
  if [ -f "$dir/rust-toolchain.toml" ] || [ -f "$dir/rust-toolchain" ]; then
    if ! (cd "$dir" && rustup toolchain install >"$out/$name.toolchain.log" 2>&1); then
      echo "$name: skipped: rustup cannot install the toolchain its rust-toolchain.toml pins (see $out/$name.toolchain.log)"
      continue
    fi
  fi
  # The maintainer's command: in the crate's directory, no option.
  start=$(date +%s)
  set +e
  (cd "$dir" && "$costbench" run) >"$out/$name.log" 2>&1
  code=$?
  set -e
  seconds=$(($(date +%s) - start))
  python3 - "$dir/target/costbench/results/run.json" "$name" "$version" "$own" "$code" "$seconds" <<'PY'
import json, sys
path, name, version, own, code, seconds = sys.argv[1:]
try:
    run = json.load(open(path))
except OSError:
    print(f"{name:<8} {version:<8} {'-':<16} {own:>6} {'-':>6} {'-':>6} {'-':>8} {'-':>6} {code:>4} {seconds:>6}  (no run record: see the log)")
    sys.exit(0)
rs = run["results"]
icount = sum(1 for r in rs if r.get("icount"))
wall = sum(1 for r in rs if r.get("walltime"))
failed = [r for r in rs if r["failures"]]
print(f"{name:<8} {version:<8} {run['suite']['bench']:<16} {own:>6} {len(rs):>6} {icount:>6} {wall:>8} {len(failed):>6} {code:>4} {seconds:>6}")
for r in failed:
    for f in r["failures"]:
        why = (f["stderr_tail"].strip().splitlines() or [f["message"]])[-1]
        print(f"  failed {r['id']} ({f['instrument']}, {f['kind']}): {why}")
PY
done
