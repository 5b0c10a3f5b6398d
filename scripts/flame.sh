#!/usr/bin/env bash
# Issue 27's differential flame graph, measured (figures in docs/explain.md, "Differential flame
# graph"): the selftest suite's knob turned in a scratch worktree of HEAD (KNOB_EXTRA_PERMILLE
# 0 -> 5: knob/spin spins 500 more steps per run, placement/words counts 2,005 words instead of
# 2,000), `check --baseline-rev HEAD --instrument icount` on those two scenarios, then
# `costbench report` of the two output directories check kept. Prints, per flame graph in the
# page: the frames drawn, those narrower than half a pixel, the call paths of the baseline only,
# and the frames whose own cost changed most, with their tooltips; the page's size and the time
# `report` took.
#
# Usage: scripts/flame.sh [OUT_DIR]   (default: a temporary directory, printed at the end)
# Needs valgrind. Commit first: the candidate is a scratch worktree of HEAD.
set -euo pipefail
# Sets repo, out, scratch, cb and tree (a scratch worktree of HEAD, removed on exit).
source "$(dirname "$0")/scratch-tree.sh" "$@"
# A build cache of this script's own, kept between runs (never the checkout's).
export CARGO_TARGET_DIR="$repo/target/flame"
sed -i 's/^pub const KNOB_EXTRA_PERMILLE: u64 = 0;/pub const KNOB_EXTRA_PERMILLE: u64 = 5;/' \
  "$tree/suites/selftest/src/lib.rs"
grep -q '^pub const KNOB_EXTRA_PERMILLE: u64 = 5;' "$tree/suites/selftest/src/lib.rs"

start=$(date +%s)
set +e
"$cb" check --manifest-path "$tree/suites/selftest/Cargo.toml" --bench selftest \
  --baseline-rev HEAD --instrument icount --filter '^(knob/spin|placement/words)$' \
  --no-history --quiet --output-dir "$out/check"
code=$?
set -e
echo "check: exit $code in $(( $(date +%s) - start )) s"
start=$(date +%s%N)
"$cb" report "$out/check/baseline" "$out/check/candidate" --no-history --output "$out/report.html"
end=$(date +%s%N)
echo "report: $(stat -c %s "$out/report.html") bytes in $(( (end - start) / 1000000 )) ms"
python3 - "$out/report.html" <<'PY'
import html, re, sys
page = open(sys.argv[1]).read()
for sec in re.findall(r'<section class="scenario".*?</section>', page, re.S):
    sid = re.search(r'data-scenario="([^"]*)"', sec).group(1)
    svg = re.search(r'<svg class="chart flame"[^>]*>.*?</svg>', sec, re.S)
    if not svg:
        print(f"{sid}: no flame graph")
        continue
    head = svg.group(0)[:svg.group(0).index(">")]
    attrs = dict(re.findall(r'(data-[a-z]+)="([^"]*)"', head))
    print(f"{sid}: {attrs['data-frames']} frames drawn, {attrs['data-narrow']} narrower than "
          f"half a pixel, {attrs['data-gone']} call paths of the baseline only; "
          f"{len(svg.group(0))} bytes of SVG")
    frames = re.findall(r'<g class="frame" data-depth="(\d+)"><title>(.*?)</title><rect [^>]*fill="([^"]*)"', sec, re.S)
    coloured = [f for f in frames if f[2] != "rgb(236,236,236)"]
    def strength(f):
        r, g, b = map(int, re.findall(r'\d+', f[2]))
        return min(r, g, b)
    for depth, title, fill in sorted(coloured, key=strength)[:4]:
        print(f"  depth {depth}, {fill}: " + html.unescape(title).replace("\n", " | "))
    caption = re.search(r'<figcaption>(.*?)</figcaption>', sec, re.S).group(1)
    tail = caption.split("Hover a frame for both sides' figures.")[-1].strip()
    if tail:
        print("  caption: " + html.unescape(re.sub(r'<[^>]+>', '', tail)))
PY
echo "kept in $out"
