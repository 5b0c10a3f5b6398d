# Sourced, not run: the start that scripts/explain.sh, flame.sh, bisect-vs-git.sh and
# unrelated-kinds.sh share. From the repository's root it builds the runner, copies it aside (a
# change to the checkout cannot change the binary measuring it) and makes a scratch worktree of
# HEAD, removed on exit. Source it after `set -euo pipefail` with the script's arguments:
#   source "$(dirname "$0")/scratch-tree.sh" "$@"
# It sets `repo` (the checkout, also the working directory), `out` (the first argument, else a
# temporary directory), `scratch`, `cb` (the copied runner) and `tree` (the worktree).
repo=$(git rev-parse --show-toplevel)
cd "$repo"
out=${1:-$(mktemp -d)}
mkdir -p "$out"
cargo build --locked -p costbench-cli
scratch=$(mktemp -d)
cp "$repo/target/debug/costbench" "$scratch/costbench"
cb="$scratch/costbench"
cleanup() {
  git -C "$repo" worktree remove --force "$scratch/tree" >/dev/null 2>&1 || true
  rm -rf "$scratch"
  git -C "$repo" worktree prune
}
trap cleanup EXIT
git worktree add --quiet --detach "$scratch/tree" HEAD
tree="$scratch/tree"
