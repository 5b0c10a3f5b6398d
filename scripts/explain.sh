#!/usr/bin/env bash
# Issue 27's targets on the built-in suite, measured (figures in docs/explain.md):
#
#   added-check  a pull request that adds a bounds check to the hot loop of
#                index::sum_indirect_unchecked (`*data.get_unchecked(i)` becomes `data[i]`):
#                `check --baseline-rev HEAD --instrument icount,census` on index/sum_indirect/*;
#                the markdown comment is printed and kept. Target: it names the function, shows
#                the added compare and branch with their executions per op, and the census diff
#                shows +1 check at its line, once per op; nothing else.
#   unrelated    a pull request that edits only the setup of words/read_u64/aligned (one more
#                black_box), checked on index/* and words/*: the number of listed functions
#                whose own cost did not change. Target: 0.
#   (bisect against `git bisect run` is scripts/bisect-vs-git.sh's, cold and warm.)
#
# Usage: scripts/explain.sh [OUT_DIR]   (default: a temporary directory, printed at the end)
#        PARTS="added-check unrelated" selects parts (default both).
# Commit first: the candidate is a scratch worktree of HEAD.
set -euo pipefail
parts=${PARTS:-added-check unrelated}
# Sets repo, out, scratch, cb and tree (a scratch worktree of HEAD, removed on exit).
source "$(dirname "$0")/scratch-tree.sh" "$@"
# A build cache of this script's own, kept between runs (never the checkout's: cargo would take
# the scratch tree's build of a workspace member as fresh for the checkout's sources).
export CARGO_TARGET_DIR="$repo/target/explain"
manifest="$tree/suites/builtin/Cargo.toml"
index="$tree/suites/builtin/src/index.rs"

add_check() {
  python3 - "$1" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = "        s = s.wrapping_add(unsafe { *data.get_unchecked(i) });"
assert old in s, "sum_indirect_unchecked's loop as committed"
s = s.replace(old, "        s = s.wrapping_add(data[i]);")
open(p, "w").write(s)
PY
}

if [[ " $parts " == *" added-check "* ]]; then
  add_check "$index"
  line=$(grep -n "s = s.wrapping_add(data\[i\]);" "$index" | tail -1 | cut -d: -f1)
  echo "== added-check: index.rs:$line now indexes data[i]"
  start=$(date +%s)
  set +e
  "$cb" check --manifest-path "$manifest" --baseline-rev HEAD --instrument icount,census \
    --filter '^index/sum_indirect/' --no-history --quiet --format json \
    --markdown "$out/added-check.md" --output-dir "$out/added-check" >"$out/added-check.json"
  code=$?
  set -e
  echo "exit $code in $(( $(date +%s) - start )) s; markdown comment:"
  cat "$out/added-check.md"
  git -C "$tree" checkout --quiet -- .
fi

if [[ " $parts " == *" unrelated "* ]]; then
  python3 - "$tree/suites/builtin/benches/builtin.rs" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
i = s.index('"words/read_u64/aligned"')
j = s.index("b.iter(", i)
s = s[:j] + "let _ = black_box(0u64);\n            " + s[j:]
open(p, "w").write(s)
PY
  echo "== unrelated: the setup of words/read_u64/aligned edited"
  set +e
  "$cb" check --manifest-path "$manifest" --baseline-rev HEAD --instrument icount,census \
    --filter '^(index|words)/' --no-history --quiet --format json \
    --markdown "$out/unrelated.md" --output-dir "$out/unrelated" >"$out/unrelated.json"
  set -e
  python3 - "$out/unrelated.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["comparison"]
flagged = [r["id"] for r in c["rows"] if r["instrument"] == "icount" and r["verdict"] != "unchanged"]
listed = [(f["id"], d["name"]) for f in c.get("functions", []) for d in f["top"]]
still = [x for x in listed if any(d["name"] == x[1] and d["base_self"] == d["cand_self"]
         for f in c["functions"] if f["id"] == x[0] for d in f["top"])]
print(f"icount rows not unchanged: {len(flagged)} {flagged}")
print(f"functions listed: {len(listed)}; of them with an unchanged self cost: {len(still)}")
PY
  git -C "$tree" checkout --quiet -- .
fi

echo "results in $out"
