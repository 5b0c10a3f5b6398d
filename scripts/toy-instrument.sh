#!/usr/bin/env bash
# Issues 25 and 40, measured (figures in docs/extending.md, "What it touched, measured"): adds
# the toy instrument `nulgrind` of docs/extending.md ("Walkthrough: a toy instrument") to a
# scratch worktree of REV, with its folder in the measuring crate and its slices of the record
# (its figure, a memory.csv column, a compared figure, a history series) and of the reports (a
# counters-table row, an HTML fact), and prints `git diff --stat` of that change: the files a
# new instrument touches.
#
# With --test it also runs the toy's unit tests and, twice, the selftest suite's
# `calibrate/1000` with `--instrument nulgrind,icount` (needs valgrind) into a history of its
# own, and prints the figure run.json recorded (`"figures": {"nulgrind": N}`), its memory.csv
# column, its terminal row, its row of `compare`, its series in `history` and what the HTML
# report shows of it (its row of the comparison, its chart's caption, its fact, its provenance).
# The scratch worktree is removed at the end; nothing is committed.
#
# Usage: scripts/toy-instrument.sh [--test] [REV]   (REV defaults to HEAD)
set -euo pipefail
test=0
if [ "${1:-}" = "--test" ]; then
    test=1
    shift
fi
rev=${1:-HEAD}
repo=$(git rev-parse --show-toplevel)
scratch=$(mktemp -d)
cleanup() { git -C "$repo" worktree remove --force "$scratch/tree" >/dev/null 2>&1 || true; rm -rf "$scratch"; }
trap cleanup EXIT
git -C "$repo" worktree add --detach "$scratch/tree" "$rev" >/dev/null 2>&1
cd "$scratch/tree"

# 1. The registry entry, last in the list (the test of the run order keeps the built-in
#    instruments' order: the toy finds its place by its run_rank).
python3 - <<'EOF'
p = "crates/costbench-record/src/instrument/mod.rs"
s = open(p).read()
end = "        }\n    };\n}\n"
at = s.index("macro_rules! for_each_instrument")
cut = s.index(end, at)
entry = '''            /// A toy: valgrind's core alone, counting the lines of its log.
            Nulgrind(nulgrind) {
                figures: [
                    /// The lines of valgrind's log, per run.
                    Nulgrind,
                ],
                metrics: [
                    /// The lines of valgrind's log, per run.
                    NulgrindLines,
                ],
                name: "nulgrind",
                help: "A toy: valgrind's core alone (--tool=none), counting the lines of its log",
                needs: &[Need::Valgrind],
                kept: Some(Kept { dir: "nulgrind", ext: "log" }),
                machine_bound: false,
                run_rank: 48,
            },
'''
s = s[:cut] + entry + s[cut:]
open(p, "w").write(s)
EOF

# 2. The folder.
d=crates/costbench-measure/src/instrument/nulgrind
mkdir -p "$d/testdata"
cat > "$d/mod.rs" <<'EOF'
//! A toy instrument (docs/extending.md): every party under valgrind's core alone
//! (`valgrind --tool=none`), its log written to a file; [`parse`] counts the log's lines.

pub mod parse;

use super::callgrind::Valgrind;
use super::phase::Phase;
use super::shape::{PerParty, Stored};
use costbench_record::instrument::Instrument;
use costbench_record::model::ScenarioResult;
use std::path::Path;
use std::process::Command;

/// How the scheduler runs it: one process per party, `--measure-jobs` scenarios at once.
pub(crate) const PHASE: Phase = Phase::Parallel(&Nulgrind);

/// The instrument, as the registry runs it.
pub(crate) struct Nulgrind;

/// Its figure: the lines of the log.
#[derive(Debug)]
pub(crate) struct LogLines(pub u64);

impl PerParty for Nulgrind {
    fn command(
        &self,
        valgrind: Option<&Valgrind>,
        exe: &Path,
        args: Vec<String>,
        out_file: &Path,
    ) -> Command {
        let vg = valgrind.expect("nulgrind runs only with valgrind");
        vg.command(["--tool=none"], "log-file", out_file, exe, &args)
    }
}

impl Stored for LogLines {
    fn store(self: Box<Self>, r: &mut ScenarioResult) {
        r.counters.set(Instrument::Nulgrind, self.0);
    }
}
EOF
cat > "$d/parse.rs" <<'EOF'
//! Reading valgrind's log into its number of lines. Pure.

use super::super::shape::{Output, Parser};
use super::{LogLines, Nulgrind};
use costbench_record::instrument::Instrument;
use costbench_record::model::Failure;

impl Parser for Nulgrind {
    const INSTRUMENT: Instrument = Instrument::Nulgrind;
    type Figure = LogLines;

    fn parse(&self, out: Output<'_>) -> Result<LogLines, Failure> {
        out.ended_well(Self::INSTRUMENT)?;
        let text = out
            .text("nulgrind")
            .map_err(|e| out.failure(Self::INSTRUMENT, "no-measurement", format!("{e:#}")))?;
        Ok(LogLines(text.lines().count() as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::shape::testing::*;
    use super::*;

    /// A real log of `valgrind --tool=none /bin/true`.
    #[test]
    fn counts_the_lines_of_a_real_log() {
        let ok = ok();
        let text = include_str!("testdata/none.log");
        let lines = Nulgrind.parse(file(&ok, 1, text)).unwrap();
        assert_eq!(lines.0, text.lines().count() as u64);
        let f = Nulgrind.parse(output(&ok, 1, missing())).unwrap_err();
        assert_eq!(f.message, "cannot read nulgrind output out/.tmp: gone");
    }
}
EOF
# A real log: this machine's valgrind, or valgrind 3.19's of `/bin/true` where there is none.
if command -v valgrind >/dev/null; then
    valgrind --tool=none --log-file="$d/testdata/none.log" /bin/true
else
    printf '==1== Nulgrind, the minimal Valgrind tool\n==1== Copyright (C) 2002-2017, and GNU GPL'"'"'d, by Nicholas Nethercote.\n==1== Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info\n==1== Command: /bin/true\n==1== Parent PID: 1\n==1== \n==1== \n' > "$d/testdata/none.log"
fi

# 3. Its slice of the record: where its figure is (one number, kept in `figures` under its name)
# and its column of memory.csv.
cat > crates/costbench-record/src/instrument/nulgrind.rs <<'EOF2'
//! The toy's slice of the run record (docs/extending.md): its figure, the lines of valgrind's
//! log, is one count kept in `figures` under its name; it adds one column to `memory.csv`, is
//! a compared figure (`compare`, `check`) and a series of the history.

use super::slice::{Column, Slice};
use super::{Figure, FigureSpec, Instrument, Judged, Metric, MetricSpec, Steps};
use crate::model::ScenarioResult;

/// Its slice.
pub const SLICE: Slice = Slice {
    memory_csv: &[Column {
        header: "nulgrind_log_lines",
        cell: |r| Some(figure(r)?.to_string()),
    }],
    figures: &[FigureSpec {
        figure: Figure::Nulgrind,
        name: "nulgrind",
        title: "Lines of valgrind's log",
        short_title: "log lines",
        unit: Some("lines"),
        judged: Judged::Exact,
        evidence: "exact line counts",
        history: Some(Metric::NulgrindLines),
        fmt_value: |v| format!("{v:.0} lines"),
        per_op: lines,
    }],
    metrics: &[MetricSpec {
        metric: Metric::NulgrindLines,
        name: "nulgrind_lines",
        arg: "nulgrind-lines",
        help: "Lines of valgrind's log, per run (--instrument nulgrind)",
        per_op: lines,
        title: "log lines (run)",
        chart_title: "lines of valgrind's log (run)",
        unit: "lines",
        fmt_value: |v| format!("{v:.0}"),
        with_unit: |v| format!("{v:.0} lines"),
        steps: Steps::Exact,
    }],
    // No CSV file of its own, no lines of counters.csv, no findings, no sample for the
    // fixtures, and `has_figure: None`.
    ..Slice::NONE
};

/// Its figure as a compared figure and a series' value.
fn lines(r: &ScenarioResult) -> Option<f64> {
    figure(r).map(|n| n as f64)
}

/// Its figure: the lines of the log of the whole process, if measured.
pub fn figure(r: &ScenarioResult) -> Option<u64> {
    match r.counters.figure(Instrument::Nulgrind)? {
        crate::model::FigureValue::Count(n) => Some(n),
        crate::model::FigureValue::Measure(x) => Some(x as u64),
    }
}
EOF2

# 4. Its slice of the reports: a section of the counters table, a fact on the HTML page and its
# name in the page's provenance line.
cat > crates/costbench-report/src/instrument/nulgrind.rs <<'EOF2'
//! The toy's slice of the reports (docs/extending.md): the lines of valgrind's log, per run,
//! in the counters table and on the HTML page.

use super::{Section, Slice};
use costbench_record::instrument::nulgrind::figure;
use costbench_record::model::ScenarioResult;

/// Its slice.
pub(super) const SLICE: Slice = Slice {
    counters: Some(counters),
    facts: |r| figure(r).map(|n| ("nulgrind log lines", n.to_string())).into_iter().collect(),
    measured_by: Some("nulgrind"),
    ..Slice::NONE
};

/// Its section of a group's counters table.
fn counters(cols: &[&ScenarioResult]) -> Section {
    let cells = cols
        .iter()
        .map(|r| figure(r).map_or("-".into(), |n| n.to_string()))
        .collect();
    (
        "nulgrind (valgrind's core alone), per run".into(),
        vec![("log lines".into(), cells)],
    )
}
EOF2

git add -A
echo "Files the toy instrument touched (against $(git rev-parse --short "$rev")):"
git diff --cached --stat

if [ "$test" = 1 ]; then
    # A build directory of the script's own unless CARGO_TARGET_DIR names one: sharing the
    # repository's leaves it holding the toy's build of the crates (cargo keys path crates by
    # name, not by checkout), so the next build of the tree rebuilds them. Kept between runs.
    export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target/toy-instrument}"
    cargo test -q -p costbench-record --lib instrument
    cargo test -q -p costbench-measure --lib nulgrind
    cargo build -q -p costbench-cli
    bin="$CARGO_TARGET_DIR/debug/costbench"
    export NO_COLOR=1
    toy=(--manifest-path suites/selftest/Cargo.toml --bench selftest
        --instrument nulgrind,icount --filter 'calibrate/1000$' --db "$scratch/history.db")
    # Two runs, both recorded in a history of their own: the second prints the run's table.
    "$bin" run "${toy[@]}" --output-dir "$scratch/a" --quiet
    "$bin" run "${toy[@]}" --output-dir "$scratch/b" 2>/dev/null >"$scratch/run-b.txt"
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print(r["id"], "figures:", json.dumps(r.get("figures")), "Ir/op:", r["icount"]["ir_per_op"])' "$scratch/a/run.json"
    echo "== its column of memory.csv:"
    cat "$scratch/a/memory.csv"
    echo "== its rows of the run's terminal table:"
    grep -A1 "^  nulgrind" "$scratch/run-b.txt"
    echo "== compare (its compared figure; the table lists changed rows only, so its row as JSON):"
    "$bin" compare "$scratch/a" "$scratch/b" --format table | tail -n 1
    "$bin" compare "$scratch/a" "$scratch/b" --format json | python3 -c 'import json,sys; [print(r["id"], r["instrument"], r["base"], "->", r["cand"], r["verdict"], "|", r["evidence"]) for r in json.load(sys.stdin)["rows"] if r["instrument"] == "nulgrind"]'
    echo "== history (its series):"
    "$bin" history --db "$scratch/history.db" --scenario calibrate/1000 --metric nulgrind-lines
    echo "== the HTML report (with history):"
    "$bin" report "$scratch/a" "$scratch/b" --db "$scratch/history.db" -o "$scratch/report.html" >/dev/null
    # Its row of the comparison, its chart's caption, its fact and its provenance.
    for want in 'nulgrind change</span><span>[^<]*' "History of [^<]*lines of valgrind's log (run)" \
        'nulgrind log lines</span><span>[0-9]*' 'measured by [^<]*nulgrind'; do
        grep -o "$want" "$scratch/report.html" | sed 's/<[^>]*>/ /g' | sort -u
    done
fi
