#!/usr/bin/env bash
# The figures of docs/contracts.md (issue 28), measured again:
#
#   budgets  `costbench run` of the selftest suite's `budgets` bench target (Suite::budget, two
#            budgets broken on purpose): the budget lines, the exit code (3) and run.json's
#            budget checks with their exact figures.
#   complexity  `costbench run` of the selftest suite's `complexity` bench target: the fitted
#            class of each family of sized scenarios (log n, n, n log n, n², each declared).
#   sizes    `costbench variants --preset build-choices` of the built-in suite, measuring one
#            cheap scenario by instruction count: the matrix's binary size and build time of
#            every variant (each is a full build of its own).
#
# Usage: scripts/contracts.sh [PARTS...]   (default: budgets complexity sizes). Needs valgrind.
set -euo pipefail
parts=("${@:-budgets complexity sizes}")
repo=$(git rev-parse --show-toplevel)
cd "$repo"
cargo build --locked -p costbench-cli
cb="$repo/target/debug/costbench"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for part in ${parts[*]}; do
  case "$part" in
    budgets)
      echo "== budgets: costbench run --bench budgets (selftest suite)"
      set +e
      "$cb" run --manifest-path suites/selftest/Cargo.toml --bench budgets \
        --instrument icount,memory --no-history --output-dir "$out/budgets" --quiet
      echo "exit code: $?"
      set -e
      python3 - "$out/budgets/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
print(f"harness residual: {run['harness_residual_ir']} instructions")
for c in run["budgets"]:
    print(f"{c['id']:<22} {c['figure']:<13} {c['status']:<9} value {c['value']!r:<12} limit {c['limit']!r} ({c['source']})")
b = run["binary"]
print(f"binary: total {b['total']} text {b['text']} data {b['data']} bss {b['bss']} file {b['file']}")
print("code by crate: " + ", ".join(f"{c['krate']} {c['bytes']}" for c in b["top_crates"]))
PY
      ;;
    complexity)
      echo "== complexity: costbench run --bench complexity (selftest suite)"
      "$cb" run --manifest-path suites/selftest/Cargo.toml --bench complexity \
        --instrument icount --no-history --output-dir "$out/complexity"
      ;;
    sizes)
      echo "== sizes: costbench variants --preset build-choices (built-in suite)"
      "$cb" variants --preset build-choices -p costbench-suite --bench builtin \
        --filter '^index/sum_indirect/iter$' --instrument icount --no-history \
        --output-dir "$out/sizes"
      ;;
    *) echo "unknown part $part (budgets, complexity, sizes)" >&2; exit 2 ;;
  esac
done
