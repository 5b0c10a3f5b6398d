#!/usr/bin/env bash
# Measures issue 17's targets on the examples under examples/ and prints the figures the book
# quotes (docs/guide/experiments.md):
#   rustls  - every row of icounts.csv identical across RUNS runs (default 3);
#   capnp   - the `unaligned` feature's per-message instruction difference off the variant
#             matrix, and Miri over the unaligned side;
#   logscan - the allocator and profile variants of Hayabusa's guide (icount and memory).
# Usage: scripts/examples.sh [rustls|capnp|logscan ...]   (default: all three)
# Environment: RUNS (rustls runs, default 3), COSTBENCH (the binary, default target/debug/costbench;
# build it with `cargo build -p costbench-cli`), OUT (where results go, default
# target/examples/figures). The examples build into target/examples (CARGO_TARGET_DIR), shared
# with the end-to-end tests.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
costbench=${COSTBENCH:-$root/target/debug/costbench}
runs=${RUNS:-3}
out=${OUT:-$root/target/examples/figures}
export CARGO_TARGET_DIR=$root/target/examples
mkdir -p "$out"
[ -x "$costbench" ] || { echo "examples.sh: $costbench not found; run cargo build -p costbench-cli" >&2; exit 1; }

rustls() {
  echo "== rustls: $runs runs, instruction counts only"
  for i in $(seq 1 "$runs"); do
    rm -rf "$out/rustls-$i"
    "$costbench" run --manifest-path examples/rustls/Cargo.toml --instrument icount \
      --no-history --quiet --output-dir "$out/rustls-$i"
  done
  # Rows whose count is the same in every run, out of all rows.
  python3 - "$out" "$runs" <<'EOF'
import sys
out, runs = sys.argv[1], int(sys.argv[2])
tables = []
for i in range(1, runs + 1):
    rows = dict(l.rsplit(",", 1) for l in open(f"{out}/rustls-{i}/icounts.csv").read().split())
    tables.append({k: int(v) for k, v in rows.items()})
names = sorted(tables[0])
same = [n for n in names if all(t.get(n) == tables[0][n] for t in tables)]
print(f"rustls: {len(same)} of {len(names)} rows identical across {runs} runs")
for n in names:
    if n not in same:
        print("  differs:", n, [t.get(n) for t in tables])
EOF
  head -8 "$out/rustls-1/icounts.csv"
}

capnp() {
  echo "== capnp: variants aligned / unaligned, instruction counts"
  "$costbench" variants --manifest-path examples/capnp/Cargo.toml --instrument icount \
    --no-history --placement-runs 0 --output-dir "$out/capnp" | tee "$out/capnp.txt"
  "$costbench" variants --manifest-path examples/capnp/Cargo.toml --instrument icount \
    --no-history --placement-runs 0 --output-dir "$out/capnp" --format json >"$out/capnp.json"
  python3 - "$out/capnp.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
for row in m["rows"]:
    cells = {c["variant"]: c.get("icount", {}).get("per_op") for c in row["cells"]}
    total = {v: round(p * row["ops"]) for v, p in cells.items() if p is not None}
    line = f'{row["id"]}: ' + ", ".join(f"{v} {t} Ir per {row['ops']} {row['unit']}" for v, t in total.items())
    if len(total) == 2:
        d = total["unaligned"] - total["aligned"]
        line += f"; unaligned - aligned = {d:+d} Ir per run, {d / row['ops']:+.3f} Ir per message"
    print(line)
EOF
  echo "== capnp: Miri over the unaligned side"
  if cargo +nightly miri --version >/dev/null 2>&1; then
    "$costbench" miri --manifest-path examples/capnp/Cargo.toml --features unaligned | tee "$out/capnp-miri.txt"
  else
    echo "SKIPPED: nightly with miri is not installed (rustup toolchain install nightly --component miri,rust-src)"
  fi
}

logscan() {
  echo "== logscan: Hayabusa's build choices, instruction counts and allocations"
  "$costbench" variants --manifest-path examples/logscan/Cargo.toml --instrument icount,memory \
    --no-history --placement-runs 0 --output-dir "$out/logscan" | tee "$out/logscan.txt"
}

for e in "${@:-rustls capnp logscan}"; do
  for x in $e; do "$x"; done
done
