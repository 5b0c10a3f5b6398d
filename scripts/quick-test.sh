#!/usr/bin/env bash
# The contributor's quick loop (issue 41): every crate's unit tests, and the end-to-end tests that
# need no valgrind, browser or database and build at most the selftest suite once: wrong command
# lines (`usage_e2e`), one name per concept (`cli_consistency`), the docs' command lines
# (`docs_commands`), the book's links and generated reference (`book`), completions and man pages (`completions_e2e`), `--format` refusals
# (`formats`). 43-57 s on a 2-core VM with other builds running, after a first build; 5 min 9 s
# from an empty target directory, the build included. The full `cargo test --workspace` runs
# everything else too (instruments, reports, history, faults).
#
# Usage: scripts/quick-test.sh [CARGO TEST ARGS...]   (e.g. `-- issue_41` to run a few by name)
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo test --workspace --locked --lib --bins \
  --test usage_e2e --test cli_consistency --test docs_commands --test book \
  --test completions_e2e --test formats "$@"
