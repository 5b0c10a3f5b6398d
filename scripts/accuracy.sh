#!/usr/bin/env bash
# How often costbench's verdicts are wrong on this machine, measured on what users meet:
#
#   aa        whole-suite `check --baseline-rev HEAD` where the candidate carries an unrelated code
#             change (one new scenario with code of its own, and one scenario's setup edited):
#             every regression or improvement is a false alarm. Target: at most 1 failing check
#             in 20, at most 0.1 % of rows flagged, no instruction-count row flagged.
#   power     the built-in suite's EXTRA_WORK_PERMILLE raised in the candidate, so that four
#             ordinary scenarios of different body sizes do +5 % and +2 % more work (and +0.5 %
#             for instruction counts). Each check measures those four scenarios with the family
#             error rate scaled so each row is judged as strictly as in a 35-row check.
#   unpaired  separate `run --instrument walltime` runs of one build, compared without history
#             (target: no wall-time verdict at all) and with a history of other runs of the same
#             build (target: at most 1 % of rows flagged).
#   kinds     like aa, over many kinds of unrelated pull request (issue 32): for each kind, the
#             scratch tree reset and that kind's edit applied (scripts/accuracy-kinds.py), then
#             CHECKS_PER_KIND whole-suite checks; one line per check, one per kind, then totals.
#             Every edit leaves the existing scenarios' measured code (the `b.iter` bodies and
#             the library functions they call) as it is; scripts/accuracy-kinds.py asserts that
#             its anchors are found and that those bodies and every `#[inline(never)]` kernel of
#             the library are still there verbatim, and each check asserts the ids it reports
#             new in or missing from the candidate. Targets (over >= 20 checks): at most 1
#             failing check, no instruction-count row flagged, at most 0.1 % of wall-time rows
#             flagged. The kinds:
#               first         a scenario with code of its own in the bench file, registered first
#               module        a new library module (src/checksums.rs, `pub mod`) and its
#                             scenario, registered last
#               setup-helper  a new library function (data::digest) called only in the setup of
#                             alloc/pipeline/stream, its result black_boxed
#               doc           doc comments and comments only (lib.rs, index.rs, text.rs, bench)
#               reorder       the registration groups `regexes` and `file_io` swapped in main
#               rename        index::transpose (setup of index/matmul32/iter only) renamed
#               static-table  a 4 KiB `static` table in index.rs and its scenario, registered at
#                             the end of `indexing` (mid-suite)
#               family        three new scenarios (`bench_params`), registered first
#               dependency    libc (workspace dependency, already locked) added to the suite
#                             crate, Cargo.lock's suite entry updated as a pull request would
#                             (so --locked passes), a library function calling it and its
#                             scenario, registered last
#               remove        the registration of regex/suffix/regex removed
#               generic       a generic library function over `impl Read` (files::count_newlines)
#                             instantiated by a new scenario at the end of `file_io` (mid-suite)
#               setup-edit    the setup of words/read_u64/aligned edited (one more black_box),
#                             as aa's unrelated change does
#               test-only     a unit test added to the library (a control: the bench binary's
#                             code does not change)
#
# The candidate is a scratch worktree of HEAD (edited per part), the baseline is HEAD built by
# `check` itself: the pull-request flow. Commit first.
#
# Usage: scripts/accuracy.sh [AA_CHECKS [POWER_CHECKS [HISTORY_RUNS]]]   (defaults 20, 10, 11)
#        PARTS="aa power unpaired kinds" selects parts (default "aa power unpaired");
#        KINDS="first doc ..." selects kinds for part kinds (default all, in the order above);
#        CHECKS_PER_KIND=N checks per kind (default 2: 13 kinds, 26 checks);
#        KEEP=DIR keeps each check's JSON and output directories as DIR/PART-N/ (part kinds:
#        DIR/kinds-KIND-N/, so that `scripts/accuracy-layouts.py DIR kinds-` reads them);
#        CHECK_ARGS="..." adds options to every check (e.g. --layouts shuffle).
# Needs python3 (parses JSON, applies the kinds' edits). Prints one line per check, then the
# totals; docs/accuracy.md records a measured set.
set -euo pipefail
aa_checks=${1:-20}
power_checks=${2:-10}
history_runs=${3:-11}
parts=${PARTS:-aa power unpaired}
checks_per_kind=${CHECKS_PER_KIND:-2}
repo=$(git rev-parse --show-toplevel)
cd "$repo"
if [[ " $parts " == *" kinds "* ]]; then
  if ! [[ $checks_per_kind =~ ^[1-9][0-9]*$ ]]; then
    echo "CHECKS_PER_KIND must be a positive number, not '$checks_per_kind'" >&2
    exit 1
  fi
  all_kinds=$(python3 "$repo/scripts/accuracy-kinds.py" list | paste -sd ' ')
  kinds=${KINDS:-$all_kinds}
  for k in $kinds; do
    if [[ " $all_kinds " != *" $k "* ]]; then
      echo "unknown kind '$k'; the kinds are: $all_kinds" >&2
      exit 1
    fi
  done
  if [ -z "${kinds// /}" ]; then
    echo "KINDS selects no kind" >&2
    exit 1
  fi
fi
cargo build --release --locked -p costbench-cli
scratch=$(mktemp -d)
# A copy, so that rebuilding the checkout while this runs changes nothing here.
cp "$repo/target/release/costbench" "$scratch/costbench"
cb="$scratch/costbench"
cp "$repo/scripts/accuracy-kinds.py" "$scratch/kinds.py"
cleanup() {
  git -C "$repo" worktree remove --force "$scratch/tree" >/dev/null 2>&1 || true
  rm -rf "$scratch"
  git -C "$repo" worktree prune
}
trap cleanup EXIT
git worktree add --quiet --detach "$scratch/tree" HEAD
tree="$scratch/tree"
# A build cache of its own, kept between runs of this script. Never the checkout's own target
# directory: cargo would take the scratch tree's build of a workspace member as fresh for the
# checkout's sources (it compares relative paths and mtimes, not checkouts).
export CARGO_TARGET_DIR="$repo/target/accuracy"
bench="$tree/suites/builtin/benches/builtin.rs"
lib="$tree/suites/builtin/src/lib.rs"

# Untracked files too: the kinds add files (part kinds, kind module).
reset_tree() {
  git -C "$tree" checkout --quiet -- .
  git -C "$tree" clean --quiet -fd
}

# An unrelated change, as pull requests make them: a new scenario with code of its own (the
# binary's code and the heap the other scenarios start from both move) and an edited setup of
# one placement-sensitive scenario (issue 13, items 3 and 8).
unrelated_change() {
  python3 - "$bench" "$lib" <<'PY'
import sys
bench, lib = sys.argv[1], sys.argv[2]
s = open(bench).read()
s = s.replace("    client_server(&mut suite);\n    suite.main();",
"""    client_server(&mut suite);
    suite.bench("zz/unrelated/checksum", ops(4096, "bytes"), |b| {
        let bytes: Vec<u8> = (0..4096u32).map(|i| (i * 31 % 251) as u8).collect();
        b.iter(|| costbench_suite::unrelated_checksum(black_box(&bytes)))
    });
    suite.main();""")
s = s.replace("""        let buf = words::WordBuffer::new(WORDS, 7);
        // SAFETY: aligned() starts at an 8-aligned address.""",
"""        let buf = words::WordBuffer::new(WORDS, 7);
        black_box(buf.aligned().len());
        // SAFETY: aligned() starts at an 8-aligned address.""")
open(bench, "w").write(s)
open(lib, "a").write('''
/// Fletcher-16 of `bytes`: code that exists only to move the rest (accuracy harness).
#[inline(never)]
pub fn unrelated_checksum(bytes: &[u8]) -> u16 {
    let (mut a, mut b) = (0u16, 0u16);
    for &x in bytes {
        a = (a + u16::from(x)) % 255;
        b = (b + a) % 255;
    }
    (b << 8) | a
}
''')
PY
}

extra_work() {
  sed -i "s/^pub const EXTRA_WORK_PERMILLE: usize = .*/pub const EXTRA_WORK_PERMILLE: usize = $1;/" "$lib"
}

n_kept=0
# check NAME ARGS...: one check of the scratch tree against HEAD; its JSON in $scratch/check.json,
# its exit code in $code and its duration in $secs.
check() {
  local name=$1
  shift
  local start
  start=$(date +%s)
  set +e
  # shellcheck disable=SC2086 # CHECK_ARGS is a list of options: split on purpose.
  "$cb" check --manifest-path "$tree/Cargo.toml" --baseline-rev HEAD --format json --no-history \
    --output-dir "$scratch/out" ${CHECK_ARGS:-} "$@" >"$scratch/check.json" 2>"$scratch/check.err"
  code=$?
  set -e
  secs=$(($(date +%s) - start))
  if [ "$code" != 0 ] && [ "$code" != 3 ]; then
    echo "costbench check failed (exit $code):" >&2
    tail -20 "$scratch/check.err" >&2
    exit 1
  fi
  if [ -n "${KEEP:-}" ]; then
    n_kept=$((n_kept + 1))
    local dir="$KEEP/$name-$n_kept"
    mkdir -p "$dir"
    cp -r "$scratch/out/baseline" "$scratch/out/candidate" "$scratch/check.json" "$dir/"
  fi
}

# rows.py: summarises a check's JSON. Modes:
#   summary           "icount_flagged icount_rows wall_flagged wall_rows unresolved placement
#                      wall_resolving_5 wall_resolving_2" and the flagged rows, one per line
#   row ID INST       "flagged change_pct min_detectable_pct" of one row
#   ids               "new missing": how many ids are in the candidate only, in the baseline only
cat >"$scratch/rows.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["comparison"]["rows"]
flag = lambda r: r["verdict"] in ("regression", "improvement")
if sys.argv[2] == "summary":
    ic = [r for r in rows if r["instrument"] == "icount"]
    wt = [r for r in rows if r["instrument"] == "walltime"]
    mde = [r.get("min_detectable_pct") for r in wt]
    res = lambda x: sum(1 for m in mde if m is not None and m <= x)
    print(sum(map(flag, ic)), len(ic), sum(map(flag, wt)), len(wt),
          sum(r["verdict"] == "unresolved" for r in rows),
          sum(r["verdict"] == "placement" for r in rows), res(5.0), res(2.0))
    for r in rows:
        if flag(r) or r["verdict"] == "placement":
            ci = r.get("ci") or {}
            print(f"  {r['verdict']}: {r['id']} {r['instrument']} {r['change_pct']:+.2f} % "
                  f"[{ci.get('low', float('nan')):.3f}, {ci.get('high', float('nan')):.3f}] "
                  f"{r.get('reason', '')}", file=sys.stderr)
elif sys.argv[2] == "ids":
    c = doc["comparison"]
    print(len(c["new_in_cand"]), len(c["missing_in_cand"]))
else:
    r = [r for r in rows if r["id"] == sys.argv[3] and r["instrument"] == sys.argv[4]]
    if not r:
        print("0 nan nan")
    else:
        r = r[0]
        m = r.get("min_detectable_pct")
        print(int(flag(r)), f"{r['change_pct']:.3f}", "inf" if m is None else f"{m:.2f}")
PY
rows() { python3 "$scratch/rows.py" "$scratch/check.json" "$@"; }
pct() { python3 -c "import sys; n, d = map(int, sys.argv[1:]); print(f'{n}/{d} = {100 * n / max(d, 1):.2f} %')" "$1" "$2"; }

if [[ " $parts " == *" aa "* ]]; then
  echo "== A/A: whole built-in suite, HEAD against HEAD plus an unrelated change, $aa_checks checks"
  reset_tree
  unrelated_change
  failed=0 ic_f=0 ic_n=0 wt_f=0 wt_n=0 unres=0 place=0 r5=0 r2=0
  for i in $(seq "$aa_checks"); do
    check aa
    read -r a b c d e f g h < <(rows summary)
    ic_f=$((ic_f + a)) ic_n=$((ic_n + b)) wt_f=$((wt_f + c)) wt_n=$((wt_n + d))
    unres=$((unres + e)) place=$((place + f)) r5=$((r5 + g)) r2=$((r2 + h))
    [ "$code" = 3 ] && failed=$((failed + 1))
    echo "A/A $i: exit $code, icount $a/$b flagged, walltime $c/$d flagged, $e unresolved, $f placement, $g/$d resolve 5 %, $h/$d resolve 2 % ($secs s)"
  done
  echo "A/A checks failed (exit 3):   $(pct "$failed" "$aa_checks")"
  echo "A/A icount rows flagged:      $(pct "$ic_f" "$ic_n")"
  echo "A/A walltime rows flagged:    $(pct "$wt_f" "$wt_n")"
  echo "A/A all rows flagged:         $(pct $((ic_f + wt_f)) $((ic_n + wt_n)))"
  echo "A/A rows unresolved:          $(pct "$unres" $((ic_n + wt_n)))"
  echo "A/A rows placement:           $(pct "$place" $((ic_n + wt_n)))"
  echo "A/A walltime rows resolving 5 %: $(pct "$r5" "$wt_n")"
  echo "A/A walltime rows resolving 2 %: $(pct "$r2" "$wt_n")"
fi

if [[ " $parts " == *" kinds "* ]]; then
  # Every selected edit applied once before anything is measured: a suite that drifted from an
  # edit's anchors fails here, not an hour in.
  for k in $kinds; do
    reset_tree
    python3 "$scratch/kinds.py" apply "$tree" "$k"
  done
  n_kinds=$(wc -w <<<"$kinds")
  echo "== kinds: whole built-in suite, HEAD against HEAD plus one unrelated change of each of" \
    "$n_kinds kinds, $checks_per_kind checks each"
  t_checks=0 t_failed=0 t_ic_f=0 t_ic_n=0 t_wt_f=0 t_wt_n=0 t_unres=0 t_place=0
  summaries=()
  for k in $kinds; do
    reset_tree
    python3 "$scratch/kinds.py" apply "$tree" "$k"
    read -r want_new want_missing < <(python3 "$scratch/kinds.py" expect "$k")
    failed=0 ic_f=0 ic_n=0 wt_f=0 wt_n=0 unres=0 place=0
    for i in $(seq "$checks_per_kind"); do
      check "kinds-$k"
      read -r a b c d e f _ _ < <(rows summary)
      read -r new missing < <(rows ids)
      # The edit must have done what the kind says (unless a filter hides scenarios).
      if [[ " ${CHECK_ARGS:-} " != *" --filter"* ]] &&
        { [ "$new" != "$want_new" ] || [ "$missing" != "$want_missing" ]; }; then
        echo "kind $k: the check reports $new ids new and $missing missing, not" \
          "$want_new and $want_missing" >&2
        exit 1
      fi
      ic_f=$((ic_f + a)) ic_n=$((ic_n + b)) wt_f=$((wt_f + c)) wt_n=$((wt_n + d))
      unres=$((unres + e)) place=$((place + f))
      [ "$code" = 3 ] && failed=$((failed + 1))
      echo "$k $i: exit $code, icount $a/$b flagged, walltime $c/$d flagged, $f placement, $e unresolved, ids +$new -$missing ($secs s)"
    done
    line="kind $k: $failed/$checks_per_kind checks failed, icount $ic_f/$ic_n flagged, walltime $wt_f/$wt_n flagged, $place placement, $unres unresolved"
    echo "$line"
    summaries+=("$line")
    t_checks=$((t_checks + checks_per_kind)) t_failed=$((t_failed + failed))
    t_ic_f=$((t_ic_f + ic_f)) t_ic_n=$((t_ic_n + ic_n)) t_wt_f=$((t_wt_f + wt_f)) t_wt_n=$((t_wt_n + wt_n))
    t_unres=$((t_unres + unres)) t_place=$((t_place + place))
  done
  reset_tree
  echo "== kinds: per kind"
  printf '%s\n' "${summaries[@]}"
  echo "kinds checks failed (exit 3):   $(pct "$t_failed" "$t_checks")"
  echo "kinds icount rows flagged:      $(pct "$t_ic_f" "$t_ic_n")"
  echo "kinds walltime rows flagged:    $(pct "$t_wt_f" "$t_wt_n")"
  echo "kinds all rows flagged:         $(pct $((t_ic_f + t_wt_f)) $((t_ic_n + t_wt_n)))"
  echo "kinds rows unresolved:          $(pct "$t_unres" $((t_ic_n + t_wt_n)))"
  echo "kinds rows placement:           $(pct "$t_place" $((t_ic_n + t_wt_n)))"
fi

if [[ " $parts " == *" power "* ]]; then
  ids=(index/sum_indirect/checked index/binary_search/std regex/filter/regex_only alloc/pipeline/collect)
  filter='^(index/sum_indirect/checked|index/binary_search/std|regex/filter/regex_only|alloc/pipeline/collect)$'
  # Four rows judged as strictly as one row of 35 (Bonferroni): 0.05 * 4 / 35.
  family=0.0057
  for permille in 50 20; do
    reset_tree
    extra_work "$permille"
    # +5 % at the default threshold; +2 % with the threshold lowered to 1 %, since a change
    # below the threshold is by definition not flagged.
    threshold_args=()
    [ "$permille" = 20 ] && threshold_args=(--paired-walltime-threshold 1)
    echo "== power: +$((permille / 10)) % work in ${ids[*]}, $power_checks checks ${threshold_args[*]}"
    declare -A found=() resolving=() found_resolving=()
    for i in $(seq "$power_checks"); do
      check "power$permille" --filter "$filter" --family-error "$family" "${threshold_args[@]}"
      line="+$((permille / 10)) % $i ($secs s):"
      for id in "${ids[@]}"; do
        read -r f ch mde < <(rows row "$id" walltime)
        read -r _ irch _ < <(rows row "$id" icount)
        found[$id]=$((${found[$id]:-0} + f))
        if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)" "$mde" "$((permille / 10)).0"; then
          resolving[$id]=$((${resolving[$id]:-0} + 1))
          found_resolving[$id]=$((${found_resolving[$id]:-0} + f))
        fi
        line="$line $id time $ch % (Ir $irch %) flagged $f resolves $mde %;"
      done
      echo "$line"
    done
    for id in "${ids[@]}"; do
      echo "+$((permille / 10)) % $id: flagged $(pct "${found[$id]:-0}" "$power_checks"); where it reported resolving the change: $(pct "${found_resolving[$id]:-0}" "${resolving[$id]:-0}")"
    done
    unset found resolving found_resolving
  done
  reset_tree
  extra_work 5
  echo "== power: +0.5 % work, instruction counts, 3 checks"
  for i in 1 2 3; do
    check power5 --filter "$filter" --instrument icount
    line="+0.5 % $i:"
    for id in "${ids[@]}"; do
      read -r f ch _ < <(rows row "$id" icount)
      line="$line $id $ch % flagged $f;"
    done
    echo "$line"
  done
  reset_tree
fi

if [[ " $parts " == *" unpaired "* ]]; then
  probes=4
  echo "== unpaired: $history_runs runs of HEAD as history, $probes more as probes (wall time only)"
  db="$scratch/history.sqlite"
  for i in $(seq $((history_runs + probes))); do
    branch=acc-history
    [ "$i" -gt "$history_runs" ] && branch=acc-probe
    "$cb" run --manifest-path "$tree/Cargo.toml" --instrument walltime --no-history -q \
      --output-dir "$scratch/runs/$i" >/dev/null
    # The scratch tree is a detached worktree: say which branch the run stands for.
    python3 - "$scratch/runs/$i/run.json" "$branch" "$(git rev-parse HEAD)" <<'PY'
import json, sys
path, branch, commit = sys.argv[1:]
rec = json.load(open(path))
git = rec["environment"].get("git") or {"commit": commit, "dirty": False}
git["branch"] = branch
rec["environment"]["git"] = git
json.dump(rec, open(path, "w"))
PY
    "$cb" import "$scratch/runs/$i" --db "$db" >/dev/null
    echo "run $i recorded as $branch"
  done
  none=0 hist=0 total=0
  for i in $(seq $((history_runs + 1)) $((history_runs + probes - 1))); do
    for mode in none history; do
      args=()
      [ "$mode" = history ] && args=(--history-branch acc-history --db "$db")
      "$cb" compare "$scratch/runs/$i" "$scratch/runs/$((i + 1))" --format json "${args[@]}" \
        >"$scratch/check.json.raw"
      python3 -c 'import json, sys; print(json.dumps({"comparison": json.load(open(sys.argv[1]))}))' \
        "$scratch/check.json.raw" >"$scratch/check.json"
      read -r _ _ c d _ _ _ _ < <(rows summary)
      if [ "$mode" = none ]; then none=$((none + c)); total=$((total + d)); else hist=$((hist + c)); fi
      echo "probe $i vs $((i + 1)), $mode: walltime $c/$d flagged"
    done
  done
  echo "unpaired, no history:   $(pct "$none" "$total") wall-time rows flagged"
  echo "unpaired, with history: $(pct "$hist" "$total") wall-time rows flagged"
fi
