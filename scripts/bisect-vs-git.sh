#!/usr/bin/env bash
# Issue 27's bisect target, timed (figures in docs/explain.md, "Measured"): `costbench bisect`
# against `git bisect run` calling the same `costbench run` once per step, on a scratch range of
# 9 commits on top of HEAD whose 5th adds a bounds check to index::sum_indirect_unchecked (the
# others change a note no build reads), following index/sum_indirect/unchecked. Both must name
# the 5th; the target is at most ceil(log2 9) + 1 = 5 measurements, and less time than git.
#
# RANGE=notes (default) makes the other 8 commits change NOTES-explain.txt, which no build
# reads; RANGE=suite makes them append a comment to suites/builtin/src/words.rs, a file the
# build reads (the count does not change, but no commit can be decided without a build).
#
# States, for each tool its own target directory prepared the same way:
#   empty   nothing built: every dependency and workspace crate is compiled by the tool.
#   cold    what a user who ran costbench has: `costbench run` built BAD's checkout (HEAD), so
#           `costbench/build/default` holds the dependencies and the workspace's crates built
#           from BAD's sources; no bisect build directories and no bisect worktrees. git bisect
#           run builds in that same `build/default` (that is where `costbench run` builds).
#   warm    right after a cold round, the same target directories again (bisect's build
#           directory and worktree as the last bisect left them; git's checkout back at BAD).
#
# Usage: scripts/bisect-vs-git.sh [OUT_DIR]      (default: a temporary directory)
#        STATES="cold warm" ROUNDS=2 select the states (in order) and repeat the whole list.
# Commit first: the range is built on HEAD. Prints a markdown table; logs per tool and round in
# OUT_DIR (each costbench status line and each git step with its time).
set -euo pipefail
states=${STATES:-cold warm}
range=${RANGE:-notes}
rounds=${ROUNDS:-2}
# Sets repo, out, scratch, cb and tree (a scratch worktree of HEAD, removed on exit).
source "$(dirname "$0")/scratch-tree.sh" "$@"
manifest="$tree/suites/builtin/Cargo.toml"
index="$tree/suites/builtin/src/index.rs"
filter='^index/sum_indirect/unchecked$'

for k in 1 2 3 4 5 6 7 8 9; do
  if [ "$k" = 5 ]; then
    python3 - "$index" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = "        s = s.wrapping_add(unsafe { *data.get_unchecked(i) });"
assert old in s, "sum_indirect_unchecked's loop as committed"
open(p, "w").write(s.replace(old, "        s = s.wrapping_add(data[i]);"))
PY
  elif [ "$range" = suite ]; then
    echo "// note $k" >>"$tree/suites/builtin/src/words.rs"
  else
    echo "note $k" >"$tree/NOTES-explain.txt"
    git -C "$tree" add NOTES-explain.txt
  fi
  git -C "$tree" -c user.name=explain -c user.email=explain@example.invalid \
    commit --quiet -am "commit $k"
done
fifth=$(git -C "$tree" rev-parse HEAD~4)

# Seconds since $1 (date +%s.%N), one decimal.
since() { python3 -c "import sys,time; print(f'{time.time()-float(sys.argv[1]):.1f}')" "$1"; }
# Each line of stdin with the seconds since $1 in front (one process: a process per line would
# slow the pipeline down by more than the steps it times).
stamp() {
  python3 -u -c 'import sys, time
t0 = float(sys.argv[1])
for l in sys.stdin:
    print(f"{time.time() - t0:6.1f} {l}", end="")' "$1"
}

# The git side's step: the same `costbench run` call; the good count is measured first, at GOOD.
step="$scratch/step.sh"
cat >"$step" <<EOF
#!/usr/bin/env bash
set -e
"$cb" run --manifest-path "$manifest" --instrument icount --filter '$filter' --no-history \\
  --quiet --format json --output-dir "$scratch/step" >"$scratch/step.json"
ir=\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["icount"]["ir"])' "$scratch/step.json")
echo "\$(python3 -c 'import sys,time; print(round(time.time()-float(sys.argv[1]),1))' "\$(cat "$scratch/t0")") \$(git rev-parse --short HEAD) \$ir" >>"\$STEPS"
[ -f "$scratch/good" ] || { echo "\$ir" >"$scratch/good"; exit 0; }
[ "\$ir" = "\$(cat "$scratch/good")" ]
EOF
chmod +x "$step"

# A target directory in the cold state: `costbench run` built BAD's checkout as it is now (the
# first time everything; after a round, what git bisect's checkouts rewrote: cargo would rebuild
# it for the user too). Not timed.
prepared="$scratch/prepared"
prepare() {
  CARGO_TARGET_DIR="$prepared" "$cb" run --manifest-path "$manifest" --instrument icount \
    --filter "$filter" --no-history --quiet --output-dir "$scratch/prep-run" >/dev/null
  rm -rf "$prepared/costbench/worktrees" "$1"
  cp -a "$prepared" "$1"
}

run_cb() { # run_cb TARGET_DIR LOG: prints "seconds measurements decided answer"
  local t0; t0=$(date +%s.%N)
  CARGO_TARGET_DIR="$1" "$cb" bisect HEAD~9 HEAD --manifest-path "$manifest" --filter "$filter" \
    --output-dir "$scratch/cb-out" 2>&1 | stamp "$t0" >"$2"
  local secs; secs=$(since "$t0")
  local found; found=$(grep -o 'first commit that changed [^:]*: [0-9a-f]*' "$2" | awk '{print $NF}' || true)
  local m; m=$(grep -o '[0-9]* measurements' "$2" | head -1 | awk '{print $1}' || true)
  local d; d=$(grep -o '[0-9]* commits* decided' "$2" | awk '{print $1}' || true)
  echo "$secs ${m:-?} ${d:-0} ${found:-none}"
}

run_git() { # run_git TARGET_DIR LOG: prints "seconds measurements answer"
  local t0; t0=$(date +%s.%N)
  echo "$t0" >"$scratch/t0"
  rm -f "$scratch/good"
  : >"$2.steps"
  (
    cd "$tree"
    export CARGO_TARGET_DIR="$1" STEPS="$2.steps"
    local bad good
    bad=$(git rev-parse HEAD)
    good=$(git rev-parse HEAD~9)
    # GOOD's count first; git bisect then moves the checkout from GOOD to its first midpoint.
    git checkout --quiet "$good"
    "$step"
    git bisect start "$bad" "$good" >/dev/null
    git bisect run "$step" >"$2" 2>&1
    git bisect log >>"$2"
    git bisect reset "$bad" >/dev/null 2>&1
  )
  local secs; secs=$(since "$t0")
  local found; found=$(grep -o '^[0-9a-f]\{40\} is the first bad commit' "$2" | awk '{print $1}' || true)
  echo "$secs $(wc -l <"$2.steps") ${found:-none}"
}

echo "| round | state | \`costbench bisect\` | measurements (decided without a build) | \`git bisect run\` | measurements | load (1 min) |"
echo "|--:|:--|--:|--:|--:|--:|--:|"
for round in $(seq 1 "$rounds"); do
  for state in $states; do
    case $state in
      empty) rm -rf "$scratch/t-cb" "$scratch/t-git" ;;
      cold) prepare "$scratch/t-cb"; prepare "$scratch/t-git" ;;
      warm) ;;
      *) echo "unknown state $state" >&2; exit 2 ;;
    esac
    load=$(cut -d' ' -f1 /proc/loadavg)
    read -r c_s c_m c_d c_found < <(run_cb "$scratch/t-cb" "$out/cb-$round-$state.log")
    read -r g_s g_m g_found < <(run_git "$scratch/t-git" "$out/git-$round-$state.log")
    for f in "$c_found" "$g_found"; do
      if [ "$f" != "$fifth" ]; then
        echo "round $round $state: answer $f, not the 5th commit $fifth (logs in $out)" >&2
        exit 1
      fi
    done
    echo "| $round | $state | $c_s s | $c_m ($c_d) | $g_s s | $g_m | $load |"
  done
done
echo "logs in $out"
