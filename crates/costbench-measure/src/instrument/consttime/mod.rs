//! Constant time: every party of a scenario under valgrind's memcheck, with the bytes the
//! scenario marked secret (`costbench::secret`, a memcheck client request) undefined; memcheck
//! reports each conditional jump and each memory address computed from them. [`parse`] reads
//! its XML into findings with their source lines and inline chains.
//!
//! Memcheck tracks definedness, not time: it sees branches and addresses that depend on a
//! secret, not instructions whose duration depends on their operands (division), nor what the
//! cache does with addresses that do not. Those limits are documented in docs/contracts.md.

pub mod parse;

use super::callgrind::Valgrind;
use super::phase::Phase;
use super::shape::{PerParty, Stored};
use crate::run::options::RunOptions;
use costbench_record::instrument::consttime::ConstantTime;
use costbench_record::model::{RunRecord, ScenarioResult};
use std::path::Path;
use std::process::Command;

/// Memcheck's options: XML to a file, inline frames for the source lines, origins to tell a
/// secret (a client request) from uninitialised memory, no leak checking, every error reported
/// and stacks deep enough to reach the measured region.
pub const TOOL_ARGS: &[&str] = &[
    "--tool=memcheck",
    "--xml=yes",
    "--read-inline-info=yes",
    "--track-origins=yes",
    "--leak-check=no",
    "--error-limit=no",
    "--num-callers=64",
    "--expensive-definedness-checks=yes",
];

/// How the scheduler runs it: one process per party, `--measure-jobs` scenarios at once.
pub(crate) const PHASE: Phase = Phase::Parallel(&ConstantTimeCheck);

/// The constant-time instrument, as the registry runs it.
pub(crate) struct ConstantTimeCheck;

impl PerParty for ConstantTimeCheck {
    fn command(
        &self,
        valgrind: Option<&Valgrind>,
        exe: &Path,
        args: Vec<String>,
        out_file: &Path,
    ) -> Command {
        let vg = valgrind.expect("the constant-time instrument runs only with valgrind");
        vg.command(TOOL_ARGS, "xml-file", out_file, exe, &args)
    }

    /// Its findings' source files named relative to the side's workspace, then the findings
    /// costbench.toml's `[[constant-time.allow]]` matches marked accepted.
    fn finish(&self, record: &mut RunRecord, root: &Path, opts: &RunOptions) {
        relative_to(record, root);
        costbench_judge::instrument::consttime::accept(record, &opts.allowances.consttime);
    }
}

impl Stored for ConstantTime {
    fn store(self: Box<Self>, r: &mut ScenarioResult) {
        r.counters.constant_time = Some(*self);
    }
}

/// Names the source files of every finding of `record` under `root` (the workspace that was
/// built) relative to it, as the library names the places secrets were marked.
fn relative_to(record: &mut RunRecord, root: &Path) {
    let rel = |f: &mut Option<String>| {
        if let Some(r) = f
            .as_deref()
            .and_then(|f| Path::new(f).strip_prefix(root).ok())
        {
            *f = Some(r.to_string_lossy().into_owned());
        }
    };
    for r in &mut record.results {
        for f in r
            .counters
            .constant_time
            .iter_mut()
            .flat_map(|c| c.findings.iter_mut())
        {
            rel(&mut f.at.file);
            for fr in &mut f.frames {
                rel(&mut fr.file);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    #[test]
    fn costbench_toml_reads_allowances_with_their_lines_and_refuses_bad_ones() {
        let c = Config::parse(
            "[run]\nbench = \"b\"\n\n[[constant-time.allow]]\nscenario = \"leak/*\"\n\
             at = \"benches/ct.rs:27\"\nwhy = \"reviewed\"\n\n\
             [[constant-time.allow]]\nat = \"ct::setup\"\nkind = \"address\"\nwhy = \"setup only\"\n",
        )
        .unwrap();
        let a = &c.constant_time.allow;
        assert_eq!(a.len(), 2);
        assert_eq!(a[0].scenario, "leak/*");
        assert_eq!(a[0].entry, "costbench.toml:4");
        assert_eq!(a[1].scenario, "*");
        assert_eq!(a[1].entry, "costbench.toml:9");
        assert_eq!(a[0].kind, None);
        assert_eq!(
            a[1].kind,
            Some(costbench_record::instrument::consttime::CtKind::Address)
        );
        for (bad, needle) in [
            (
                "[[constant-time.allow]]\nat = \"a.rs:1\"\n",
                "[[constant-time.allow]] at costbench.toml:1: `why` is missing or empty",
            ),
            (
                "\n[[constant-time.allow]]\nwhy = \"r\"\nat = \"\"\n",
                "[[constant-time.allow]] at costbench.toml:2: `at` is missing or empty",
            ),
            (
                "[[constant-time.allow]]\nwhy = \"r\"\nat = \"a.rs:1x\"\n",
                "costbench.toml:1: `at = \"a.rs:1x\"`: \"1x\" is not a line number",
            ),
            ("[[constant-time.allow]]\nwhy = \"r\"\nline = 3\n", "line"),
            ("[constant-time]\nalow = []\n", "alow"),
            (
                "[[constant-time.allow]]\nwhy = \"r\"\nat = \"f\"\nkind = \"sometimes\"\n",
                "sometimes",
            ),
            (
                "[[constant-time.allow]]\nwhy = \"r\"\nat = \"f\"\nkind = \"memory\"\n",
                "costbench.toml:1: `kind` for `at = \"f\"`: only",
            ),
        ] {
            let e = Config::parse(bad).unwrap_err();
            assert!(costbench_record::error::is_bad_input(&e), "{bad:?}");
            let e = format!("{e:#}");
            assert!(e.contains(needle), "{bad:?}: {e}");
        }
    }
}
