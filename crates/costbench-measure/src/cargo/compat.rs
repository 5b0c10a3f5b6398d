//! Measuring a commit whose benches still use criterion or divan: the dependency is switched to
//! costbench's compatible crate (`costbench-criterion`, `costbench-divan`) in that commit's
//! worktree, the one line a maintainer changes by hand (docs/compat.md), so that `history
//! backfill`, `bisect` and `check --baseline-rev` measure history that predates costbench. The
//! user's checkout is never touched: only the worktrees costbench moves from commit to commit,
//! which git resets on the next checkout.
//!
//! The edit is by lines, as a person would make it, so that the rest of the manifest (comments,
//! order) stays as it was: a `criterion = ...` or `divan = ...` entry of a dependency table
//! (`[dev-dependencies]`, `[dependencies]`, a target's, `[workspace.dependencies]`), on one line
//! or as an inline table over several, or a `[dev-dependencies.criterion]` table, becomes
//! `criterion = { package = "costbench-criterion", path = "…" }`. Entries that inherit from the
//! workspace (`criterion.workspace = true`) are left: the workspace's entry is switched. Until
//! the compatible crates are on crates.io they are found beside the costbench that runs (its
//! source checkout, as `cargo install --path` leaves it), or under `COSTBENCH_COMPAT_DIR`.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// The crates a bench may use and their costbench counterparts.
const SWITCHED: [(&str, &str); 2] = [
    ("criterion", "costbench-criterion"),
    ("divan", "costbench-divan"),
];

/// Where the compatible crate `package` is: `COSTBENCH_COMPAT_DIR/PACKAGE`, else beside the
/// measuring crate's source.
fn compat_dir(package: &str) -> Result<PathBuf> {
    let base = std::env::var_os("COSTBENCH_COMPAT_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
    let dir = base.join(package);
    if !dir.join("Cargo.toml").exists() {
        bail!(
            "cannot switch this commit's benches to {package}: it is not at {} (costbench finds its \
             compatible crates beside its own source, as `cargo install --path crates/costbench-cli` \
             leaves it, or under COSTBENCH_COMPAT_DIR)",
            dir.display()
        );
    }
    Ok(dir)
}

/// Switches every criterion and divan entry of the manifests `manifests` (a package's and its
/// workspace's; missing files are passed over) to the compatible crates. Returns what it
/// switched, as `FILE: NAME` lines, empty when there was nothing to switch.
pub fn switch(manifests: &[PathBuf]) -> Result<Vec<String>> {
    let mut done = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for m in manifests {
        if !seen.insert(m.clone()) || !m.exists() {
            continue;
        }
        let text =
            std::fs::read_to_string(m).with_context(|| format!("cannot read {}", m.display()))?;
        let (edited, names) = edit(&text, &|p| compat_dir(p))?;
        if !names.is_empty() {
            std::fs::write(m, edited).with_context(|| format!("cannot write {}", m.display()))?;
            done.extend(names.into_iter().map(|n| format!("{}: {n}", m.display())));
        }
    }
    Ok(done)
}

/// Whether a table header names a dependency table.
fn dependency_table(header: &str) -> bool {
    let h = header.trim_matches(|c| c == '[' || c == ']').trim();
    h == "dependencies"
        || h == "dev-dependencies"
        || h == "workspace.dependencies"
        || (h.starts_with("target.")
            && (h.ends_with(".dependencies") || h.ends_with(".dev-dependencies")))
}

/// The manifest `text` with its criterion and divan entries switched, and the names switched.
fn edit(text: &str, dir: &dyn Fn(&str) -> Result<PathBuf>) -> Result<(String, Vec<String>)> {
    let mut out = String::with_capacity(text.len());
    let mut names = Vec::new();
    let mut in_deps = false;
    // Inside a `[dev-dependencies.criterion]` table being replaced: its keys are dropped.
    let mut dropping = false;
    // Inside a multi-line inline table being replaced: lines until its closing brace dropped.
    let mut open_braces = 0usize;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if open_braces > 0 {
            open_braces =
                (open_braces + t.matches('{').count()).saturating_sub(t.matches('}').count());
            continue;
        }
        if t.starts_with('[') {
            dropping = false;
            in_deps = dependency_table(t);
            let h = t.trim_matches(|c| c == '[' || c == ']').trim();
            if let Some((table, name)) = h.rsplit_once('.') {
                if let Some((_, package)) = SWITCHED.iter().find(|(n, _)| *n == name) {
                    if dependency_table(&format!("[{table}]")) {
                        let path = dir(package)?;
                        out.push_str(line);
                        out.push_str(&format!(
                            "package = \"{package}\"\npath = {:?}\n",
                            path.display().to_string()
                        ));
                        names.push(name.to_string());
                        dropping = true;
                        continue;
                    }
                }
            }
            out.push_str(line);
            continue;
        }
        if dropping {
            if t.is_empty() || t.starts_with('#') {
                out.push_str(line);
            }
            continue;
        }
        if in_deps {
            let key = t.split(['=', '.', ' ']).next().unwrap_or("");
            if let Some((name, package)) = SWITCHED.iter().find(|(n, _)| *n == key) {
                let value = t.split_once('=').map_or("", |(_, v)| v.trim());
                let inherits = t.starts_with(&format!("{name}.")) || value.contains("workspace");
                if !inherits && !value.contains("costbench-") {
                    let path = dir(package)?;
                    let indent = &line[..line.len() - line.trim_start().len()];
                    out.push_str(&format!(
                        "{indent}{name} = {{ package = \"{package}\", path = {:?} }}\n",
                        path.display().to_string()
                    ));
                    names.push((*name).to_string());
                    open_braces = value
                        .matches('{')
                        .count()
                        .saturating_sub(value.matches('}').count());
                    continue;
                }
            }
        }
        out.push_str(line);
    }
    Ok((out, names))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(p: &str) -> Result<PathBuf> {
        Ok(PathBuf::from(format!("/c/{p}")))
    }

    #[test]
    fn every_form_of_the_entry_is_switched_and_the_rest_kept() {
        let text = "[package]\nname = \"x\"\n\n[dependencies]\nserde = \"1\"\n\n\
            [dev-dependencies]\n# benches\ncriterion = { version = \"0.5\", features = [\"html_reports\"] }\nrand = \"0.8\"\n\n\
            [[bench]]\nname = \"b\"\nharness = false\n";
        let (out, names) = edit(text, &dir).unwrap();
        assert_eq!(names, ["criterion"]);
        assert!(out.contains(
            "criterion = { package = \"costbench-criterion\", path = \"/c/costbench-criterion\" }\nrand = \"0.8\"\n"
        ), "{out}");
        assert!(
            out.contains("# benches\n")
                && out.contains("serde = \"1\"")
                && out.contains("harness = false")
        );
        // Over several lines, as a table, and in the workspace.
        let text = "[dev-dependencies]\ndivan = {\n  version = \"0.1\",\n}\nx = \"1\"\n";
        let (out, names) = edit(text, &dir).unwrap();
        assert_eq!(names, ["divan"]);
        assert_eq!(out, "[dev-dependencies]\ndivan = { package = \"costbench-divan\", path = \"/c/costbench-divan\" }\nx = \"1\"\n");
        let text = "[dev-dependencies.criterion]\nversion = \"0.3\"\ndefault-features = false\n\n[features]\na = []\n";
        let (out, _) = edit(text, &dir).unwrap();
        assert_eq!(out, "[dev-dependencies.criterion]\npackage = \"costbench-criterion\"\npath = \"/c/costbench-criterion\"\n\n[features]\na = []\n");
        let text = "[workspace.dependencies]\ncriterion = \"0.5\"\n";
        assert_eq!(edit(text, &dir).unwrap().1, ["criterion"]);
        // Inherited, already switched, or not a dependency table: left alone.
        for kept in [
            "[dev-dependencies]\ncriterion.workspace = true\n",
            "[dev-dependencies]\ncriterion = { workspace = true }\n",
            "[dev-dependencies]\ncriterion = { package = \"costbench-criterion\", path = \"x\" }\n",
            "[features]\ncriterion = []\n",
            "[dev-dependencies]\ncriterion-plot = \"0.5\"\n",
        ] {
            let (out, names) = edit(kept, &dir).unwrap();
            assert!(names.is_empty(), "{kept}");
            assert_eq!(out, kept);
        }
    }
}
