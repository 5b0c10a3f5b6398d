//! What a scenario binary does when a test runner starts it rather than the costbench runner:
//! `cargo test --benches` (every scenario once, as a smoke test), `cargo bench` (a quick
//! in-process wall-time table) and `cargo nextest` (which lists tests with `--list --format
//! terse` and runs each with `--exact NAME`).
//!
//! The arguments are libtest's, so that the tools built around libtest work on a bench target
//! with `harness = false`: positional name filters (substring, or whole with `--exact`),
//! `--skip`, `--list`, `--format pretty|terse`, `--ignored` (costbench has no ignored
//! scenarios, so it selects none), `--include-ignored`, and the options a runner passes that do
//! not change what a smoke test does (`--nocapture`, `--show-output`, `--test-threads`,
//! `--quiet`, `--color`). An unknown option is refused, as libtest refuses it, with exit 101.
//! A scenario is one test; a multi-party scenario's parties run as threads of that test.

use crate::body::once;
// `cargo bench`'s table is wall time's, sampled in process; the compatibility layers print it
// through here too.
pub(crate) use crate::instrument::walltime::{bench_header, bench_rows};
use crate::suite::{Scenario, Suite};

/// libtest's exit code for a failed test run and for arguments it cannot parse.
pub(crate) const EXIT_TEST_FAILED: i32 = 101;

/// libtest-style arguments, as far as a scenario binary honours them.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct HarnessArgs {
    /// Substring filters (whole names with `exact`); a scenario is selected if any matches.
    filters: Vec<String>,
    skip: Vec<String>,
    exact: bool,
    pub(crate) list: bool,
    pub(crate) terse: bool,
    /// `--ignored`: only ignored tests, and costbench has none.
    ignored_only: bool,
    /// `--bench`, which `cargo bench` passes.
    pub(crate) bench: bool,
}

pub(crate) fn parse(args: &[String]) -> Result<HarnessArgs, String> {
    let mut a = HarnessArgs::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        // `--opt=value` as well as `--opt value`.
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| format!("option {flag} needs a value"))
        };
        match flag {
            "--bench" => a.bench = true,
            "--list" => a.list = true,
            "--exact" => a.exact = true,
            "--ignored" => a.ignored_only = true,
            "--skip" => a.skip.push(value()?),
            "--format" => match value()?.as_str() {
                "terse" => a.terse = true,
                "pretty" => a.terse = false,
                other => {
                    return Err(format!(
                        "--format {other} is not supported by costbench scenario binaries \
                         (use pretty or terse)"
                    ))
                }
            },
            "--test-threads" | "--color" | "-Z" | "--logfile" | "--report-time" => {
                // Accepted for compatibility; a smoke test runs scenarios one after another.
                if flag != "--report-time" {
                    value()?;
                }
            }
            "--include-ignored" | "--nocapture" | "--show-output" | "--quiet" | "-q" | "--test" => {
            }
            f if f.starts_with('-') => {
                return Err(format!(
                    "unrecognized option {f:?}: a costbench scenario binary takes libtest's \
                     --list, --format, --exact, --skip, --ignored, --bench and name filters; \
                     measure it with `costbench run`"
                ))
            }
            _ => a.filters.push(arg.clone()),
        }
    }
    Ok(a)
}

impl HarnessArgs {
    pub(crate) fn selects(&self, name: &str) -> bool {
        let matches = |f: &String| {
            if self.exact {
                name == f
            } else {
                name.contains(f.as_str())
            }
        };
        !self.ignored_only
            && (self.filters.is_empty() || self.filters.iter().any(matches))
            && !self.skip.iter().any(|s| name.contains(s.as_str()))
    }
}

/// Runs the binary as a test runner asked, returning the process exit code.
pub(crate) fn run(suite: &Suite, args: &[String]) -> i32 {
    let a = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_TEST_FAILED;
        }
    };
    let selected: Vec<&Scenario> = suite
        .scenarios
        .iter()
        .filter(|s| !s.internal && a.selects(&s.name))
        .collect();
    if a.list {
        list(&selected, a.terse);
        0
    } else if a.bench {
        cargo_bench(&selected)
    } else {
        smoke_test(&selected)
    }
}

/// `--list`: one `NAME: test` line per scenario, as libtest prints them (and, unless terse,
/// its count line), which is what `cargo nextest` reads.
fn list(selected: &[&Scenario], terse: bool) {
    for s in selected {
        list_one(&s.name);
    }
    list_footer(selected.len(), terse);
}

pub(crate) fn list_one(name: &str) {
    println!("{name}: test");
}

pub(crate) fn list_footer(tests: usize, terse: bool) {
    if !terse {
        println!("\n{tests} tests, 0 benchmarks");
    }
}

/// `cargo test --benches`: every scenario once, each caught on its own.
fn smoke_test(selected: &[&Scenario]) -> i32 {
    let (mut passed, mut failed) = (0, 0);
    for s in selected {
        if smoke_one(s) {
            passed += 1;
        } else {
            failed += 1;
        }
    }
    smoke_summary(passed, failed)
}

/// Runs one scenario once, caught on its own, and prints its line; whether it passed.
pub(crate) fn smoke_one(s: &Scenario) -> bool {
    let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| once(s))).is_ok();
    println!(
        "scenario {} ... {}",
        s.name,
        if ok { "ok" } else { "FAILED" }
    );
    ok
}

/// The closing line of a smoke test, and its exit code.
pub(crate) fn smoke_summary(passed: usize, failed: usize) -> i32 {
    println!("\n{passed} passed, {failed} failed");
    if failed > 0 {
        EXIT_TEST_FAILED
    } else {
        0
    }
}

/// `cargo bench`: a quick in-process wall-time table. The runner's `walltime` instrument runs
/// each scenario in a fresh process instead, and keeps the samples.
fn cargo_bench(selected: &[&Scenario]) -> i32 {
    bench_header();
    for s in selected {
        bench_rows(s);
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(s: &str) -> Result<HarnessArgs, String> {
        parse(&s.split_whitespace().map(str::to_string).collect::<Vec<_>>())
    }

    #[test]
    fn nextest_listing_and_exact_runs_parse() {
        let a = parsed("--list --format terse").unwrap();
        assert!(a.list && a.terse && a.filters.is_empty());
        let a = parsed("--list --format terse --ignored").unwrap();
        assert!(a.ignored_only && !a.selects("anything"));
        let a = parsed("--exact index/sum/checked --nocapture").unwrap();
        assert!(a.selects("index/sum/checked"));
        assert!(!a.selects("index/sum/checked2"));
        assert!(!a.selects("index/sum"));
    }

    #[test]
    fn cargo_test_and_bench_arguments_parse() {
        // `cargo test --benches -- sum --skip unchecked` and `cargo bench -- --bench sum`.
        let a = parsed("sum --skip unchecked").unwrap();
        assert!(a.selects("index/sum/checked"));
        assert!(!a.selects("index/sum/unchecked"));
        assert!(!a.selects("words/read"));
        assert!(parsed("--bench sum").unwrap().bench);
        let a = parsed("--format=terse --test-threads=2 --list").unwrap();
        assert!(a.terse && a.list);
        assert_eq!(
            parsed("--test-threads 1 --color never -q").unwrap(),
            HarnessArgs::default()
        );
    }

    #[test]
    fn unknown_options_and_formats_are_refused() {
        assert!(parsed("--frobnicate").unwrap_err().contains("--frobnicate"));
        assert!(parsed("--format json").unwrap_err().contains("json"));
        assert!(parsed("--skip").unwrap_err().contains("needs a value"));
    }
}
