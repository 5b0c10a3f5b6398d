//! `costbench.toml`: project settings read from the workspace root, beside `Cargo.toml`.
//!
//! ```toml
//! [run]
//! package = "my-crate"   # package that has the bench target
//! bench = "costs"        # bench target to run when --bench is not given
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
    /// `[variants.NAME]` tables, unvalidated, in file order.
    #[serde(default)]
    pub variants: toml::Table,
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
        Ok(toml::from_str(text)?)
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
}
