#!/usr/bin/env bash
# The figures of docs/contracts.md (issue 28), measured again:
#
#   budgets  `costbench run` of the selftest suite's `budgets` bench target (Suite::budget, two
#            budgets broken on purpose): the budget lines, the exit code (3) and run.json's
#            budget checks with their exact figures.
#   complexity  `costbench run` of the selftest suite's `complexity` bench target: the fitted
#            class of each family of sized scenarios (log n, n, n log n, n², each declared).
#   builtin  `costbench run` of the built-in suite's sized families (`growth/*`): the fitted
#            class of each (log n, n, n log n).
#   growth   the selftest suite's `growth` target built plain and with the feature `quadratic`
#            (a duplicate check that adds less than 0.2 % at every size but grows as n²), then
#            `costbench check` of the two runs: every row unchanged, exit code 3 on the growth.
#   merge    the same target run as two shards (two sizes each), merged: the merged run's fit.
#   variants `costbench variants` of the `budgets` target, two variants, `loop/whole` only: the
#            broken budget named per variant, exit code 3.
#   history  the two `growth` runs imported into a fresh history: the series of the bench
#            binary's size and build time (`bench:growth`).
#   sizes    `costbench variants --preset build-choices` of the built-in suite, measuring one
#            cheap scenario by instruction count: the matrix's binary size and build time of
#            every variant (each is a full build of its own).
#   constant-time  `costbench run --instrument constant-time` of the selftest suite's
#            `consttime` target (four leaks on purpose, two constant-time comparisons, one
#            scenario without secrets; exit code 3), of examples/rustls's `consttime` target
#            (record encryption with a secret key) and of the built-in suite (no secrets: every
#            finding there would be a false one): each id's verdict and findings.
#   constant-time-allow  the `consttime` target again, in a scratch worktree of HEAD whose
#            costbench.toml has `[[constant-time.allow]]` entries: `leak/branch`'s line only
#            (exit code 3, that finding accepted), every leak's line (exit code 0), and every
#            leak's line plus an entry for a line with no finding (a warning, exit code 0);
#            then `check` of the first run under the second file (exit code 0).
#
# Usage: scripts/contracts.sh [PARTS...]
#   (default: budgets complexity builtin growth merge variants history sizes constant-time
#   constant-time-allow).
# Needs valgrind.
set -euo pipefail
parts=("${@:-budgets complexity builtin growth merge variants history sizes constant-time constant-time-allow}")
repo=$(git rev-parse --show-toplevel)
cd "$repo"
cargo build --locked -p costbench-cli
cb="$repo/target/debug/costbench"
out=$(mktemp -d)
trap 'git -C "$repo" worktree remove --force "$out/tree" >/dev/null 2>&1 || true; rm -rf "$out"; git -C "$repo" worktree prune' EXIT
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
    builtin)
      echo "== builtin: costbench run --filter '^growth/' (built-in suite)"
      "$cb" run -p costbench-suite --bench builtin --filter '^growth/' --instrument icount \
        --no-history --output-dir "$out/builtin"
      ;;
    growth | history)
      if [ ! -f "$out/growth-cand/run.json" ]; then
        echo "== growth: the selftest suite's growth target, plain and with --features quadratic"
        "$cb" run --manifest-path suites/selftest/Cargo.toml --bench growth --instrument icount \
          --no-history --quiet --output-dir "$out/growth-base"
        "$cb" run --manifest-path suites/selftest/Cargo.toml --bench growth --instrument icount \
          --features quadratic --no-history --quiet --output-dir "$out/growth-cand"
        python3 - "$out/growth-base/run.json" "$out/growth-cand/run.json" <<'PY'
import json, sys
b, c = (json.load(open(p)) for p in sys.argv[1:3])
ir = lambda run: {r["id"]: r["icount"]["ir_per_op"] for r in run["results"]}
bi, ci = ir(b), ir(c)
for id in bi:
    print(f"{id:<10} {bi[id]:>12,.0f} {ci[id]:>12,.0f} {ci[id] - bi[id]:>+8,.0f} {100 * (ci[id] / bi[id] - 1):+.3f} %")
for side, run in (("baseline", b), ("candidate", c)):
    for f in run["complexity"]:
        print(f"{side}: {f['family']} O({f['class']}) {f['offset']:.1f} + {f['constant']:.4f} x f(n), error {f['rms_rel_error']:.3%}, n^{f['exponent']:.2f}")
    print(f"{side}: binary {run['binary']['total']} B, build {run['build']['seconds']:.1f} s ({run['build']['compiled']} compiled, {run['build']['fresh']} fresh)")
PY
      fi
      if [ "$part" = growth ]; then
        echo "== growth: costbench check --baseline BASE --candidate CAND"
        set +e
        "$cb" check --manifest-path suites/selftest/Cargo.toml --bench growth --github off \
          --baseline "$out/growth-base" --candidate "$out/growth-cand"
        echo "exit code: $?"
        set -e
      else
        echo "== history: both growth runs imported into a fresh history"
        for side in base cand; do
          "$cb" import "$out/growth-$side" --db "$out/history.sqlite"
        done
        "$cb" history --db "$out/history.sqlite" --scenario bench:growth --metric binary-size
        "$cb" history --db "$out/history.sqlite" --scenario bench:growth --metric build-time
      fi
      ;;
    merge)
      echo "== merge: the growth target as two shards, merged"
      for k in 1 2; do
        "$cb" run --manifest-path suites/selftest/Cargo.toml --bench growth --instrument icount \
          --no-history --db "$out/none.sqlite" --quiet --shard "$k/2" --output-dir "$out/shard$k"
      done
      "$cb" merge --no-history --quiet --output "$out/merged" "$out/shard1" "$out/shard2"
      python3 - "$out/shard1/run.json" "$out/shard2/run.json" "$out/merged/run.json" <<'PY'
import json, sys
for p in sys.argv[1:]:
    run = json.load(open(p))
    ids = [r["id"] for r in run["results"]]
    fits = [f"{f['family']} O({f['class']}) {f['offset']:.1f} + {f['constant']:.1f} x f(n)" for f in run.get("complexity", [])]
    print(f"{p.rsplit('/', 2)[-2]}: {', '.join(ids)}; fits: {'; '.join(fits) or 'none'}")
PY
      ;;
    variants)
      echo "== variants: a broken budget in every variant (selftest suite, budgets target)"
      set +e
      "$cb" variants --manifest-path suites/selftest/Cargo.toml --bench budgets \
        --variant e2e-release: --variant e2e-oc:overflow-checks=true --filter '^loop/whole$' \
        --instrument icount --no-history --quiet --output-dir "$out/variants"
      echo "exit code: $?"
      set -e
      ;;
    sizes)
      echo "== sizes: costbench variants --preset build-choices (built-in suite)"
      "$cb" variants --preset build-choices -p costbench-suite --bench builtin \
        --filter '^index/sum_indirect/iter$' --instrument icount --no-history \
        --output-dir "$out/sizes"
      ;;
    constant-time)
      for target in "suites/selftest consttime" "examples/rustls consttime" "suites/builtin builtin"; do
        set -- $target
        echo "== constant-time: costbench run --manifest-path $1/Cargo.toml --bench $2"
        set +e
        start=$(date +%s)
        "$cb" run --manifest-path "$1/Cargo.toml" --bench "$2" --instrument constant-time \
          --no-history --output-dir "$out/ct-$2-${1//\//-}" --quiet
        echo "exit code: $? ($(( $(date +%s) - start )) s, build included)"
        set -e
        python3 - "$out/ct-$2-${1//\//-}/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
findings = 0
for r in run["results"]:
    c = r.get("constant_time")
    if c is None:
        print(f"{r['id']}: not measured {r.get('failures')}")
        continue
    findings += len(c["findings"])
    verdict = "not checked (no secret)" if c["secret_marks"] == 0 else (
        "constant time" if not c["findings"] else f"{len(c['findings'])} finding(s)")
    print(f"{r['id']}: {verdict}, {c['secret_bytes']} secret bytes")
    for f in c["findings"]:
        at = f["at"]
        print(f"  {f['kind']} ({f['origin']}) at {at.get('file')}:{at.get('line')} in {at.get('function')}, {f['count']} times")
print(f"findings: {findings} in {len(run['results'])} ids")
PY
      done
      ;;
    constant-time-allow)
      git worktree add --quiet --detach "$out/tree" HEAD
      tree="$out/tree"
      src=suites/selftest/benches/consttime.rs
      line() { grep -n -F "$1" "$tree/$src" | cut -d: -f1; }
      branch="[[constant-time.allow]]
scenario = \"leak/branch\"
at = \"$src:$(line '// LEAK: branch')\"
why = \"reviewed: the key's parity is public here\"
"
      others="[[constant-time.allow]]
at = \"$src:$(line '// LEAK: address')\"
why = \"S-box on public data\"

[[constant-time.allow]]
at = \"$src:$(line '// LEAK: early exit')\"
why = \"the tag is public once sent\"

[[constant-time.allow]]
at = \"$src:$(line '// LEAK: setup')\"
why = \"setup only\"
"
      stale="[[constant-time.allow]]
scenario = \"leak/*\"
at = \"$src:$(line 'fn fold_eq(')\"
why = \"a line with no finding\"
"
      for case in branch all stale; do
        case "$case" in
          branch) printf '%s' "$branch" > "$tree/costbench.toml" ;;
          all) printf '%s\n%s' "$branch" "$others" > "$tree/costbench.toml" ;;
          stale) printf '%s\n%s\n%s' "$branch" "$others" "$stale" > "$tree/costbench.toml" ;;
        esac
        echo "== constant-time-allow ($case): costbench.toml"
        cat "$tree/costbench.toml"
        echo "-- costbench run --manifest-path suites/selftest/Cargo.toml --bench consttime --instrument constant-time --quiet"
        set +e
        "$cb" run --manifest-path "$tree/suites/selftest/Cargo.toml" --bench consttime \
          --instrument constant-time --no-history --output-dir "$out/allow-$case" --quiet 2>&1 \
          | grep -E '^(CONSTANT-TIME|warning)'
        echo "exit code: ${PIPESTATUS[0]}"
        set -e
      done
      printf '%s\n%s' "$branch" "$others" > "$tree/costbench.toml"
      echo "== constant-time-allow: check of the 'branch' run under the 'all' file"
      set +e
      "$cb" check --manifest-path "$tree/suites/selftest/Cargo.toml" --bench consttime \
        --github off --baseline "$out/allow-branch" --candidate "$out/allow-branch" \
        | sed -n '/^check:/,$p'
      echo "exit code: ${PIPESTATUS[0]}"
      set -e
      ;;
    *)
      echo "unknown part $part (budgets, complexity, builtin, growth, merge, variants, history, sizes, constant-time, constant-time-allow)" >&2
      exit 2
      ;;
  esac
done
