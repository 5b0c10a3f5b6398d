//! Every check one scenario executed, read back after the run: the kept callgrind output (with
//! per-instruction counts, which a census run writes) names the binary it measured, whose guards
//! the static census finds again. The run record keeps only the top few sites; the census diff
//! of a comparison (`costbench_judge::instrument::census`) needs all of them.
//!
//! Reads files (the callgrind output, the binary) and nothing else; the binaries' censuses are
//! cached per path, since every scenario of a run shares one binary.

use super::parse::{executed_sites, instruction_counts};
use super::analyse;
use anyhow::{anyhow, Context, Result};
use costbench_record::instrument::census::StaticCensus;
use costbench_record::model::{CensusSite, RunRecord};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The program a callgrind output measured: the object (`ob=`, or `cob=` where its compressed
/// name is first defined) named like the command's first word (callgrind writes the mapped,
/// absolute path there; `cmd:` may be relative).
pub fn measured_binary(text: &str) -> Option<PathBuf> {
    let cmd = text
        .lines()
        .find_map(|l| l.strip_prefix("cmd:"))?
        .split_whitespace()
        .next()?;
    let name = Path::new(cmd).file_name()?;
    text.lines()
        .filter_map(|l| l.strip_prefix("ob=(").or_else(|| l.strip_prefix("cob=(")))
        .filter_map(|l| l.split_once(") ").map(|(_, path)| Path::new(path.trim())))
        .find(|p| p.file_name() == Some(name))
        .map(Path::to_path_buf)
        .or_else(|| Some(PathBuf::from(cmd)))
}

/// Loads every executed check of an id from runs' output directories, caching each binary's
/// static census.
#[derive(Debug, Default)]
pub struct SiteLoader {
    censuses: HashMap<PathBuf, std::result::Result<StaticCensus, String>>,
}

impl SiteLoader {
    /// Every check scenario `id` of `run` executed, with the ops its run counted; `None` when
    /// the run measured no census for it (nothing to diff), an error saying why they cannot be
    /// had otherwise (a run from history keeps no callgrind output; a binary since deleted).
    /// Source files under `root` (the side's checkout, when the caller knows it) are named
    /// relative to it, so that the two sides' checkouts name the same file alike.
    pub fn load(
        &mut self,
        run: &RunRecord,
        dir: Option<&Path>,
        id: &str,
        root: Option<&Path>,
    ) -> Option<std::result::Result<(Vec<CensusSite>, u64), String>> {
        let r = run.results.iter().find(|r| r.id == id)?;
        r.census.as_ref()?;
        let ic = r.icount.as_ref()?;
        Some(
            self.sites(dir, &ic.callgrind_out, r.ops)
                .map(|mut sites| {
                    if let Some(root) = root {
                        relative_to(&mut sites, root);
                    }
                    (sites, r.ops)
                })
                .map_err(|e| format!("{e:#}")),
        )
    }

    fn sites(&mut self, dir: Option<&Path>, out: &str, ops: u64) -> Result<Vec<CensusSite>> {
        let dir = dir.ok_or_else(|| {
            anyhow!("the run was loaded from history, which keeps no callgrind output")
        })?;
        let path = dir.join(out);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read callgrind output {}", path.display()))?;
        let binary = measured_binary(&text)
            .ok_or_else(|| anyhow!("{} names no measured program", path.display()))?;
        let census = self
            .censuses
            .entry(binary.clone())
            .or_insert_with(|| analyse(&binary).map_err(|e| format!("{e:#}")))
            .as_ref()
            .map_err(|e| anyhow!("the census of the measured binary: {e}"))?;
        let canonical = binary.canonicalize().ok();
        let counts = instruction_counts(&text, |ob| {
            Path::new(ob) == binary || canonical.as_deref() == Some(Path::new(ob))
        })
        .with_context(|| format!("in callgrind output {}", path.display()))?;
        Ok(executed_sites(census, &counts, ops))
    }
}

/// Names every source file of `sites` under `root` relative to it.
fn relative_to(sites: &mut [CensusSite], root: &Path) {
    let rel = |f: &mut Option<String>| {
        if let Some(r) = f
            .as_deref()
            .and_then(|f| Path::new(f).strip_prefix(root).ok())
        {
            *f = Some(r.to_string_lossy().into_owned());
        }
    };
    for s in sites {
        rel(&mut s.file);
        for frame in &mut s.inline_chain {
            rel(&mut frame.file);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_measured_binary_is_the_object_named_like_the_command() {
        let text = include_str!("testdata/indirect.callgrind.out");
        let b = measured_binary(text).unwrap();
        assert!(
            b.to_string_lossy().ends_with("/census-a037f5e5504b6ea1"),
            "{b:?}"
        );
        // A relative command with no object of its name: the command itself.
        assert_eq!(
            measured_binary("cmd:  target/x --a\nob=(1) /lib/ld.so\n"),
            Some(PathBuf::from("target/x"))
        );
        assert_eq!(measured_binary("events: Ir\n"), None);
    }
}
