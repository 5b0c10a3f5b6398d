//! GitHub Actions around `costbench check`: whether to print workflow commands (`--github`,
//! `GITHUB_ACTIONS`), where the job summary is (`GITHUB_STEP_SUMMARY`) and appending the report to
//! it, and costbench.toml's path as annotations name files (relative to the repository,
//! `GITHUB_WORKSPACE`). The text itself (annotations, markdown) is `costbench-report`'s; this
//! module only reads the environment and writes the summary file.

use crate::args::GithubArg;
use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// What `check` does for GitHub Actions in this environment.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Github {
    /// Print `::error`/`::warning`/`::notice` workflow commands (on stderr: stdout may be JSON).
    pub annotate: bool,
    /// Append the markdown report to this file (the job summary).
    pub step_summary: Option<PathBuf>,
}

impl Github {
    /// From `--github` and the process's environment.
    pub fn from_env(mode: GithubArg) -> Self {
        Self::from_vars(mode, |k| std::env::var_os(k))
    }

    /// From `--github` and the variables `var` returns: GitHub sets `GITHUB_ACTIONS=true` in
    /// every step and `GITHUB_STEP_SUMMARY` to a file of the step's own.
    pub fn from_vars(mode: GithubArg, var: impl Fn(&str) -> Option<OsString>) -> Self {
        if mode == GithubArg::Off {
            return Github::default();
        }
        let in_actions = var("GITHUB_ACTIONS").is_some_and(|v| v == "true");
        Github {
            annotate: mode == GithubArg::On || in_actions,
            step_summary: var("GITHUB_STEP_SUMMARY")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
        }
    }
}

/// GitHub refuses a step's summary beyond 1 MiB (and then shows none of it).
pub const STEP_SUMMARY_MAX: u64 = 1024 * 1024;

/// Appends `markdown` to the job summary at `path`, as GitHub expects (other commands of the step
/// may have written to it before), cut at a line so that the file stays within
/// [`STEP_SUMMARY_MAX`], with a last line saying so.
pub fn append_step_summary(path: &Path, markdown: &str) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let before = f.metadata()?.len();
    let sep = if before > 0 { "\n" } else { "" };
    let room = STEP_SUMMARY_MAX.saturating_sub(before + sep.len() as u64) as usize;
    let text = fit(markdown, room);
    if text.is_empty() {
        return Ok(());
    }
    // One write of the whole text: with O_APPEND it lands after whatever is there, in one piece.
    f.write_all(format!("{sep}{text}").as_bytes())
}

const CUT_NOTE: &str =
    "\n**costbench**: the report was cut here to fit GitHub's 1 MiB job summary; `--markdown FILE` writes all of it.\n";

/// `s`, or as many of its whole lines as fit in `room` bytes with [`CUT_NOTE`] after them
/// (nothing when not even the note fits).
fn fit(s: &str, room: usize) -> String {
    if s.len() <= room {
        return s.to_string();
    }
    if room < CUT_NOTE.len() {
        return String::new();
    }
    let budget = room - CUT_NOTE.len();
    // The last line break within the budget (a byte search: '\n' never occurs inside a
    // multi-byte character).
    let cut = s.as_bytes()[..budget]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    format!("{}{CUT_NOTE}", &s[..cut])
}

/// costbench.toml of the workspace at `workspace_root` as GitHub names files in annotations:
/// relative to the repository (`GITHUB_WORKSPACE`, else the current directory); `None` when
/// there is no such file or it lies outside.
pub fn config_file(workspace_root: &Path) -> Option<String> {
    let base = std::env::var_os("GITHUB_WORKSPACE")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())?;
    config_file_in(workspace_root, &base)
}

/// [`config_file`] relative to `base`.
fn config_file_in(workspace_root: &Path, base: &Path) -> Option<String> {
    let file = workspace_root.join("costbench.toml").canonicalize().ok()?;
    let base = base.canonicalize().ok()?;
    let rel = file.strip_prefix(&base).ok()?;
    Some(rel.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(set: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |k| {
            set.iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn modes_and_variables() {
        let actions = [
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_STEP_SUMMARY", "/tmp/summary"),
        ];
        let summary = Some(PathBuf::from("/tmp/summary"));
        for (mode, set, annotate, file) in [
            (GithubArg::Auto, &actions[..], true, summary.clone()),
            (GithubArg::Auto, &[][..], false, None),
            (
                GithubArg::Auto,
                &[("GITHUB_ACTIONS", "false")][..],
                false,
                None,
            ),
            (GithubArg::Auto, &actions[1..], false, summary.clone()),
            (
                GithubArg::Auto,
                &[("GITHUB_STEP_SUMMARY", "")][..],
                false,
                None,
            ),
            (GithubArg::On, &[][..], true, None),
            (GithubArg::On, &actions[..], true, summary.clone()),
            (GithubArg::Off, &actions[..], false, None),
        ] {
            let g = Github::from_vars(mode, vars(set));
            assert_eq!(
                g,
                Github {
                    annotate,
                    step_summary: file
                },
                "{mode:?} {set:?}"
            );
        }
    }

    #[test]
    fn the_summary_is_appended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("step_summary.md");
        append_step_summary(&path, "### first\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "### first\n");
        append_step_summary(&path, "### second\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "### first\n\n### second\n"
        );
        // A file another command of the step wrote first is kept.
        let other = dir.path().join("other.md");
        std::fs::write(&other, "tests: 3 passed").unwrap();
        append_step_summary(&other, "report\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(&other).unwrap(),
            "tests: 3 passed\nreport\n"
        );
    }

    #[test]
    fn an_unwritable_summary_is_an_error_for_the_caller_to_report() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no/such/dir/summary.md");
        let e = append_step_summary(&missing, "x").unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
        let is_dir = append_step_summary(dir.path(), "x").unwrap_err();
        assert_eq!(is_dir.kind(), std::io::ErrorKind::IsADirectory);
    }

    #[test]
    fn a_huge_report_is_cut_at_a_line_within_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.md");
        std::fs::write(&path, "x".repeat(1000)).unwrap();
        let line = "| scenario/é | 1 Ir | 2 Ir |\n";
        let md = line.repeat(2 * STEP_SUMMARY_MAX as usize / line.len());
        append_step_summary(&path, &md).unwrap();
        let got = std::fs::read_to_string(&path).unwrap();
        assert!(got.len() as u64 <= STEP_SUMMARY_MAX, "{}", got.len());
        assert!(got.len() as u64 > STEP_SUMMARY_MAX - 200, "{}", got.len());
        assert!(got.ends_with(CUT_NOTE), "{}", &got[got.len() - 300..]);
        let body = &got[1001..got.len() - CUT_NOTE.len()];
        assert!(body.lines().all(|l| format!("{l}\n") == line));
        // A full file gets nothing more.
        std::fs::write(&path, "x".repeat(STEP_SUMMARY_MAX as usize)).unwrap();
        append_step_summary(&path, "more\n").unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), STEP_SUMMARY_MAX);
    }

    #[test]
    fn config_file_is_named_relative_to_the_repository() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("crates/suite");
        std::fs::create_dir_all(&ws).unwrap();
        assert_eq!(config_file_in(&ws, dir.path()), None, "no costbench.toml");
        std::fs::write(ws.join("costbench.toml"), "").unwrap();
        assert_eq!(
            config_file_in(&ws, dir.path()).as_deref(),
            Some("crates/suite/costbench.toml")
        );
        assert_eq!(config_file_in(&ws, &ws).as_deref(), Some("costbench.toml"));
        let elsewhere = tempfile::tempdir().unwrap();
        assert_eq!(config_file_in(&ws, elsewhere.path()), None, "outside");
    }
}
