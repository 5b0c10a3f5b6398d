//! `costbench.toml`: project settings read from the workspace root, beside `Cargo.toml`.
//!
//! ```toml
//! [run]
//! package = "my-crate"   # package that has the bench target
//! bench = "costs"        # bench target(s) to run when --bench is not given; a list takes
//!                        # several: bench = ["costs", "parse"]
//!
//! [check]                 # what `costbench check` fails on
//! ignore = ["pipe/*"]     # ids (globs) that never fail the check
//!
//! [[check.limit]]         # later entries override earlier ones for what they both match
//! scenario = "index/*"    # glob over measured ids; default "*"
//! metric = "icount"       # icount or walltime; default: both
//! soft = 1.0              # percent: a significant regression fails only beyond this
//! hard = 8.0              # absolute per-op ceiling (instructions or ns) for the candidate
//!
//! [[budget]]             # absolute limits, checked by `run` and `check` (see docs/contracts.md)
//! scenario = "parse/*"    # glob over measured ids; default "*"
//! instructions = 900      # per op (icount)
//! allocations = 0         # per op (memory)
//! bytes = 0               # allocated per op (memory)
//! peak-heap = 4096        # live heap bytes of one run of the body (memory)
//! checks = 0              # executed bounds/overflow checks per op (census)
//! binary-size = 4_000_000 # bytes of the bench binary's code and data (only with scenario "*")
//! complexity = "n log n"  # how the family `scenario/N` grows: 1, log n, n, n log n, n^2
//!
//! [history]              # `history changes` (see costbench_judge::changes::config)
//! drift-budget = 5.0      # percent since drift-reference (a revision or a date)
//! drift-reference = "v1.0"
//!
//! [[history.acknowledge]] # a change point that was meant: reported, not failing
//! commit = "3f2a9c1"      # its commit (7+ hex digits)
//! why = "..."             # required
//!
//! [variants.release]     # build variants for `costbench variants` (see variants::spec)
//! [variants.checked]
//! overflow-checks = true
//! features = ["unaligned"]
//! ```
//!
//! The instruments' own sections (the entries that accept their findings) are their slices':
//! declared into [`Config`] and read by `costbench_judge::instrument`, which shows them.
//!
//! Unknown keys are errors, so that a typo never silently changes what is measured; every
//! error here is bad input (a usage error), said before anything is built. Variant
//! tables are kept as written (in file order: the first is the baseline) and validated by
//! `variants::spec`, which names the variant and the key in every error.

use anyhow::{Context, Result};
use costbench_judge::check::CheckConfig;
use serde::Deserialize;
use std::path::Path;

/// File name looked up in the workspace root.
pub const FILE_NAME: &str = "costbench.toml";

costbench_judge::with_instrument_sections! {
    /// The contents of `costbench.toml`.
    #[derive(Debug, Default, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    pub struct Config {
        /// The `[run]` table.
        #[serde(default)]
        pub run: RunConfig,
        /// `[check]`: its types and their validation belong to the gate that applies them.
        #[serde(default)]
        pub check: CheckConfig,
        /// `[variants.NAME]` tables, unvalidated, in file order.
        #[serde(default)]
        pub variants: toml::Table,
        /// `[[budget]]` tables, in file order: later ones override earlier ones (and the
        /// suite's own) for the ids and figures they both limit.
        #[serde(default)]
        pub budget: Vec<costbench_record::model::budget::Budget>,
    } {
        /// `[history]`: the drift budget and acknowledged change points (`history changes`).
        #[serde(default)]
        pub history: costbench_judge::changes::config::HistoryConfig,
        /// Whether it was read from a file (`false`: there is none, and this is the default).
        #[serde(skip)]
        pub from_file: bool,
    }
}

/// The `[run]` table of `costbench.toml`: what to measure when the command line does not say.
#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Package of the bench target; `None` lets cargo choose.
    pub package: Option<String>,
    /// Bench targets to build, as `--bench` names them (a single name or a list); empty:
    /// every bench target that depends on costbench, as `cargo bench` runs them all (issue 41).
    #[serde(default, deserialize_with = "one_or_many")]
    pub bench: Vec<String>,
}

/// `bench = "a"` or `bench = ["a", "b"]`: one name, or a list of them.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged, expecting = "a bench target's name or a list of names")]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(name) => vec![name],
        OneOrMany::Many(names) => names,
    })
}

impl Config {
    /// Reads `DIR/costbench.toml`; a missing file is the default configuration.
    pub fn load(dir: &Path) -> Result<Config> {
        let path = dir.join(FILE_NAME);
        match std::fs::read_to_string(&path) {
            Ok(text) => Config::parse(&text)
                .map(|c| Config {
                    from_file: true,
                    ..c
                })
                .with_context(|| format!("in {}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }

    /// Parses the text of a `costbench.toml`; unknown keys are errors. Every error is
    /// [`BadInput`](costbench_record::error::BadInput): the file is the user's input.
    pub fn parse(text: &str) -> Result<Config> {
        Config::parse_inner(text).map_err(|e| costbench_record::error::bad_input(format!("{e:#}")))
    }

    fn parse_inner(text: &str) -> Result<Config> {
        let mut c: Config = toml::from_str(text)?;
        c.check.validate()?;
        c.history.validate()?;
        for (i, b) in c.budget.iter().enumerate() {
            b.validate()
                .and_then(|()| costbench_judge::complexity::validate(b))
                .map_err(|e| anyhow::anyhow!("[[budget]] number {}: {e}", i + 1))?;
        }
        c.read_sections(text, FILE_NAME)?;
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_run_section_and_rejects_typos() {
        let c = Config::parse("[run]\nbench = \"b\"\n").unwrap();
        assert_eq!(c.run.bench, ["b"]);
        // Issue 41: a list names several, as --bench repeated does.
        let c = Config::parse("[run]\nbench = [\"b\", \"a\"]\n").unwrap();
        assert_eq!(c.run.bench, ["b", "a"]);
        assert!(Config::parse("[run]\n").unwrap().run.bench.is_empty());
        let e = Config::parse("[run]\nbench = 3\n").unwrap_err();
        assert!(
            format!("{e:#}").contains("a bench target's name or a list"),
            "{e:#}"
        );
        let e = Config::parse("[run]\nbnech = \"b\"\n").unwrap_err();
        assert!(format!("{e:#}").contains("bnech"), "{e:#}");
        let c = Config::parse("[variants.b]\nlto = true\n[variants.a]\n").unwrap();
        let names: Vec<&String> = c.variants.keys().collect();
        assert_eq!(names, ["b", "a"]);
        let e = Config::parse("[variant.a]\n").unwrap_err();
        assert!(format!("{e:#}").contains("variant"), "{e:#}");
    }

    #[test]
    fn parses_budgets_and_refuses_bad_ones() {
        let c = Config::parse(
            "[[budget]]\nscenario = \"parse/*\"\ninstructions = 900\nallocations = 0\n\
             [[budget]]\nbinary-size = 4_000_000\npeak-heap = 0\n",
        )
        .unwrap();
        assert_eq!(c.budget.len(), 2);
        assert_eq!(c.budget[0].instructions, Some(900.0));
        assert_eq!(c.budget[0].allocations, Some(0.0));
        assert_eq!(c.budget[1].scenario, "*");
        assert_eq!(c.budget[1].binary_size, Some(4_000_000));
        for (bad, needle) in [
            (
                "[[budget]]\nscenario = \"a\"\n",
                "[[budget]] number 1: the budget for \"a\" limits nothing",
            ),
            ("[[budget]]\ninstrutions = 3\n", "instrutions"),
            ("[[budget]]\nchecks = -1\n", "checks must be"),
            (
                "[[budget]]\nscenario = \"a\"\nbinary-size = 1\n",
                "not a scenario",
            ),
            ("[[budget]]\npeak-heap = -1\n", "peak-heap"),
            (
                "[[budget]]\nscenario = \"sort\"\ncomplexity = \"n^3\"\n",
                "complexity \"n^3\"",
            ),
        ] {
            let e = format!("{:#}", Config::parse(bad).unwrap_err());
            assert!(e.contains(needle), "{bad:?}: {e}");
        }
    }

    #[test]
    fn parses_check_limits() {
        let c = Config::parse(
            "[check]\nignore = [\"pipe/*\"]\n[[check.limit]]\nmetric = \"icount\"\nsoft = 1.5\n\
             [[check.limit]]\nscenario = \"index/*\"\nhard = 8\n",
        )
        .unwrap();
        assert_eq!(c.check.ignore, ["pipe/*"]);
        assert_eq!(c.check.limit[0].scenario, "*");
        assert_eq!(
            c.check.limit[0].metric,
            Some(costbench_judge::check::LimitMetric::Icount)
        );
        assert_eq!(c.check.limit[1].hard, Some(8.0));
        for (bad, needle) in [
            (
                "[[check.limit]]\nscenario = \"a\"\n",
                "neither soft nor hard",
            ),
            ("[[check.limit]]\nsoft = -1\n", "soft must be"),
            ("[[check.limit]]\nhard = 0\n", "hard must be"),
            ("[[check.limit]]\nmetric = \"cycles\"\nsoft = 1\n", "cycles"),
            ("[check]\nignroe = []\n", "ignroe"),
        ] {
            let e = format!("{:#}", Config::parse(bad).unwrap_err());
            assert!(e.contains(needle), "{bad:?}: {e}");
        }
    }
}
