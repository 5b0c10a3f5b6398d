#!/usr/bin/env bash
# Issue 27's second target on the built-in suite: on a pull request unrelated to a scenario, no
# scenario's explanation lists a function whose own cost did not change. Four kinds of unrelated
# pull request, each `check --baseline-rev HEAD --instrument icount,census` on the whole built-in
# suite (figures in docs/explain.md):
#
#   doc         a doc-only change: a paragraph added to the module doc of suites/builtin/src/index.rs
#               (every line of the file moves, so the line tables of its functions differ)
#   setup       another scenario's setup code: one more black_box before words/read_u64/aligned's
#               loop (what scripts/accuracy.sh's A/A part does)
#   new         a new scenario, registered first: heap placement and codegen units move
#               (docs/FACTS: 8 of 35 rows moved by such an edit)
#   refactor    a dependency-free refactor of a helper: data::words as an iterator adaptor
#               (`repeat_with(..).take(n)`) instead of a mapped range
#
# For each kind, every explanation of every flagged or placement-labelled scenario is read from
# check's JSON: the movers (each with its self cost per op on both sides), the census diff (each
# check's function) and the machine-code diff (each function). Every listed function must have a
# self cost per op that differs between the sides; the script prints, per kind, the scenarios
# explained, the functions listed and how many of them did not change (target 0), and exits 1 if
# any did not. An unrelated change flags few scenarios, so the same two runs are then compared
# again with `compare --icount-threshold 0` (no new measurement): every scenario whose count moved
# at all is explained, and held to the same property.
#
# Usage: scripts/unrelated-kinds.sh [OUT_DIR]   (default: a temporary directory, printed at the end)
#        KINDS="doc setup new refactor" selects kinds (default all).
# Commit first: the candidate is a scratch worktree of HEAD.
set -euo pipefail
kinds=${KINDS:-doc setup new refactor}
# Sets repo, out, scratch, cb and tree (a scratch worktree of HEAD, removed on exit).
source "$(dirname "$0")/scratch-tree.sh" "$@"
# The build cache scripts/explain.sh keeps (never the checkout's own: cargo would take the scratch
# tree's build of a workspace member as fresh for the checkout's sources).
export CARGO_TARGET_DIR="$repo/target/explain"
manifest="$tree/suites/builtin/Cargo.toml"

edit() { # edit KIND: applies the kind's change to the scratch tree
  python3 - "$tree" "$1" <<'PY'
import sys
tree, kind = sys.argv[1], sys.argv[2]
def sub(path, old, new):
    p = f"{tree}/{path}"
    s = open(p).read()
    assert old in s, f"{path}: {old!r} as committed"
    open(p, "w").write(s.replace(old, new, 1))
if kind == "doc":
    sub("suites/builtin/src/index.rs", "//!", "//! Indexing, three ways: with the bounds check, without it and with an iterator,\n//! each asked what the check costs in a loop.\n//!\n//!", )
elif kind == "setup":
    sub("suites/builtin/benches/builtin.rs",
        "let buf = words::WordBuffer::new(WORDS, 7);\n        // SAFETY: aligned()",
        "let buf = words::WordBuffer::new(WORDS, 7);\n        let _ = black_box(0u64);\n        // SAFETY: aligned()")
elif kind == "new":
    sub("suites/builtin/benches/builtin.rs", "fn indexing(suite: &mut Suite) {\n",
        "fn indexing(suite: &mut Suite) {\n    suite.bench(\"index/first/sum\", ops(64, \"words\"), |b| {\n"
        "        let d = data::words(64, 5);\n        b.iter(|| black_box(&d).iter().fold(0u64, |s, w| s.wrapping_add(*w)))\n    });\n")
elif kind == "refactor":
    sub("suites/builtin/src/data.rs",
        "    let mut g = XorShift::new(seed);\n    (0..n).map(|_| g.next_u64()).collect()",
        "    let mut g = XorShift::new(seed);\n    std::iter::repeat_with(|| g.next_u64()).take(n).collect()")
else:
    sys.exit(f"unknown kind {kind}")
PY
}

analyse() { # analyse JSON LABEL: the property on one comparison
  python3 - "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
c = j.get("comparison", j)
label = sys.argv[2]
rows = [r for r in c["rows"] if r["instrument"] == "icount"]
moved = [r for r in rows if r["verdict"] != "unchanged"]
# Self cost per op of every mover, per scenario: what each listed function is held to.
movers = {(f["id"], d["name"]): (d["base_self"], d["cand_self"])
          for f in c.get("functions", []) for d in f["top"]}
listed = [("movers", f["id"], d["name"]) for f in c.get("functions", []) for d in f["top"]]
listed += [("census", d["id"], x["function"]) for d in c.get("census", [])
           for part in ("appeared", "disappeared", "changed") for x in d[part]]
listed += [("asm", a["id"], a["function"]) for a in c.get("asm", [])]
explained = sorted({f["id"] for f in c.get("functions", [])})
unchanged = [x for x in listed if (x[1], x[2]) not in movers
             or movers[(x[1], x[2])][0] == movers[(x[1], x[2])][1]]
print(f"{label}: icount rows {len(rows)}, not unchanged {len(moved)}: "
      + ", ".join(f"{r['id']} {r['verdict']} {r['change_pct']:+.3f}%" for r in moved))
print(f"{label}: scenarios explained {len(explained)}; functions listed {len(listed)} "
      f"(movers {sum(1 for x in listed if x[0] == 'movers')}, census {sum(1 for x in listed if x[0] == 'census')}, "
      f"asm {sum(1 for x in listed if x[0] == 'asm')}); with an unchanged self cost: {len(unchanged)}")
for x in unchanged:
    print(f"  UNCHANGED: {x}")
for f in c.get("functions", []):
    if f.get("unavailable"):
        print(f"  {f['id']}: unavailable: {f['unavailable']}")
    for d in f["top"]:
        print(f"  {f['id']}: {d['name']} self {d['base_self']:.6f} -> {d['cand_self']:.6f}")
sys.exit(1 if unchanged else 0)
PY
}

status=0
for kind in $kinds; do
  edit "$kind"
  echo "== $kind: $(git -C "$tree" diff --stat | tail -1)"
  start=$(date +%s)
  set +e
  "$cb" check --manifest-path "$manifest" --baseline-rev HEAD --instrument icount,census \
    --no-history --quiet --format json --markdown "$out/$kind.md" --output-dir "$out/$kind" \
    >"$out/$kind.json"
  code=$?
  "$cb" compare "$out/$kind/baseline" "$out/$kind/candidate" --icount-threshold 0 \
    --format json >"$out/$kind-every.json"
  set -e
  echo "check exit $code in $(( $(date +%s) - start )) s"
  analyse "$out/$kind.json" "$kind (check)" || status=1
  analyse "$out/$kind-every.json" "$kind (every change: compare --icount-threshold 0)" || status=1
  git -C "$tree" checkout --quiet -- .
done
echo "results in $out"
exit $status
