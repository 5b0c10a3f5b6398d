//! `costbench.toml`: project settings read from the workspace root, beside `Cargo.toml`.
//!
//! ```toml
//! [run]
//! package = "my-crate"   # package that has the bench target
//! bench = "costs"        # bench target to run when --bench is not given
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
//! [variants.release]     # build variants for `costbench variants` (see variants::spec)
//! [variants.checked]
//! overflow-checks = true
//! features = ["unaligned"]
//! ```
//!
//! Unknown keys are errors, so that a typo never silently changes what is measured. Variant
//! tables are kept as written (in file order: the first is the baseline) and validated by
//! `variants::spec`, which names the variant and the key in every error.

use anyhow::{Context, Result};
use serde::Deserialize;
use std::path::Path;

/// File name looked up in the workspace root.
pub const FILE_NAME: &str = "costbench.toml";

#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub run: RunConfig,
    #[serde(default)]
    pub check: CheckConfig,
    /// `[variants.NAME]` tables, unvalidated, in file order.
    #[serde(default)]
    pub variants: toml::Table,
}

/// `[check]`: the CI gate's limits.
#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CheckConfig {
    /// Measured ids (globs: `*` matches any run of characters) that never fail the check.
    #[serde(default)]
    pub ignore: Vec<String>,
    #[serde(default)]
    pub limit: Vec<Limit>,
}

/// One `[[check.limit]]` entry.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Limit {
    /// Glob over measured ids.
    #[serde(default = "any")]
    pub scenario: String,
    /// `icount` or `walltime`; both when absent.
    pub metric: Option<LimitMetric>,
    /// Percent: a significant regression fails the check only when its change exceeds this.
    pub soft: Option<f64>,
    /// Absolute per-op ceiling for the candidate (instructions per op, or median ns per op).
    pub hard: Option<f64>,
}

fn any() -> String {
    "*".into()
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LimitMetric {
    Icount,
    Walltime,
}

/// Whether `glob` (`*` matches any run of characters, everything else itself) matches all of `s`.
pub fn glob_match(glob: &str, s: &str) -> bool {
    let parts: Vec<&str> = glob.split('*').collect();
    if parts.len() == 1 {
        return glob == s;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !s.starts_with(first) || s.len() < first.len() + last.len() || !s.ends_with(last) {
        return false;
    }
    let mut rest = &s[first.len()..s.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

impl CheckConfig {
    fn validate(&self) -> Result<()> {
        for (i, l) in self.limit.iter().enumerate() {
            let n = i + 1;
            if l.soft.is_none() && l.hard.is_none() {
                anyhow::bail!(
                    "[[check.limit]] number {n} ({:?}) sets neither soft nor hard",
                    l.scenario
                );
            }
            if let Some(v) = l.soft.filter(|v| !(v.is_finite() && *v >= 0.0)) {
                anyhow::bail!(
                    "[[check.limit]] number {n}: soft must be a percentage of at least 0, not {v}"
                );
            }
            if let Some(v) = l.hard.filter(|v| !(v.is_finite() && *v > 0.0)) {
                anyhow::bail!(
                    "[[check.limit]] number {n}: hard must be a positive per-op figure, not {v}"
                );
            }
        }
        Ok(())
    }
}

#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    pub package: Option<String>,
    pub bench: Option<String>,
}

impl Config {
    /// Reads `DIR/costbench.toml`; a missing file is the default configuration.
    pub fn load(dir: &Path) -> Result<Config> {
        let path = dir.join(FILE_NAME);
        match std::fs::read_to_string(&path) {
            Ok(text) => Config::parse(&text).with_context(|| format!("in {}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }

    pub fn parse(text: &str) -> Result<Config> {
        let c: Config = toml::from_str(text)?;
        c.check.validate()?;
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_run_section_and_rejects_typos() {
        let c = Config::parse("[run]\nbench = \"b\"\n").unwrap();
        assert_eq!(c.run.bench.as_deref(), Some("b"));
        let e = Config::parse("[run]\nbnech = \"b\"\n").unwrap_err();
        assert!(format!("{e:#}").contains("bnech"), "{e:#}");
        let c = Config::parse("[variants.b]\nlto = true\n[variants.a]\n").unwrap();
        let names: Vec<&String> = c.variants.keys().collect();
        assert_eq!(names, ["b", "a"]);
        let e = Config::parse("[variant.a]\n").unwrap_err();
        assert!(format!("{e:#}").contains("variant"), "{e:#}");
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
        assert_eq!(c.check.limit[0].metric, Some(LimitMetric::Icount));
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

    #[test]
    fn globs() {
        for (g, s, m) in [
            ("*", "anything", true),
            ("index/*", "index/sum", true),
            ("index/*", "words/x", false),
            ("*/checked", "index/sum/checked", true),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxcyyb", false),
            ("ab*ba", "aba", false),
            ("exact", "exact", true),
            ("exact", "exactly", false),
        ] {
            assert_eq!(glob_match(g, s), m, "{g} {s}");
        }
    }
}
