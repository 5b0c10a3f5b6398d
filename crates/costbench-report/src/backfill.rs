//! What `history backfill` did, for people: the closing line of the terminal, and markdown for
//! a job summary (every commit taken, with what became of it). JSON is the summary itself
//! (`costbench_record::history::BackfillSummary`).

use crate::escape::escape_cell;
use costbench_record::history::BackfillSummary;
use std::fmt::Write as _;

fn count(s: &BackfillSummary, outcome: &str) -> usize {
    s.commits.iter().filter(|c| c.outcome == outcome).count()
}

/// The one closing line: how many commits were measured, carried over, failed to build or were
/// recorded already, what narrowing took, and the time.
pub fn line(s: &BackfillSummary) -> String {
    let narrowed = s.commits.iter().filter(|c| c.narrowing).count();
    let narrowing = s.commits.iter().any(|c| c.narrowing) || s.merged_branch_commits > 0;
    let mut out = format!(
        "backfill of {}: {} measured, {} carried over (no build: their build's files were a measured commit's), \
         {} did not build, {} already recorded",
        s.range,
        count(s, "measured"),
        count(s, "carried"),
        count(s, "failed"),
        count(s, "recorded"),
    );
    if narrowing {
        let _ = write!(
            out,
            "; {narrowed} commits between them taken to narrow change points"
        );
    }
    if s.merged_branch_commits > 0 {
        let _ = write!(
            out,
            "; {} commits of merged branches measured to find which of them made a change found at a merge",
            s.merged_branch_commits
        );
    }
    let _ = writeln!(out, "; {:.0} s", s.seconds);
    if let Some(why) = &s.stopped {
        let _ = writeln!(out, "stopped: {why}");
    }
    out
}

/// Markdown: the closing line, then a table of every commit taken.
pub fn markdown(s: &BackfillSummary) -> String {
    let mut out = format!(
        "### costbench history backfill `{}`{}\n\n{}\n",
        escape_cell(&s.range),
        s.branch
            .as_deref()
            .map_or(String::new(), |b| format!(" on `{}`", escape_cell(b))),
        line(s).trim_end()
    );
    if s.commits.is_empty() {
        return out;
    }
    out.push_str("\n| commit | subject | outcome | detail |\n|---|---|---|---|\n");
    for c in &s.commits {
        let short = |sha: &str| sha[..12.min(sha.len())].to_string();
        let mut detail = Vec::new();
        if c.narrowing {
            detail.push("taken to narrow a change".to_string());
        }
        if let Some(from) = &c.carried_from {
            detail.push(format!("figures of `{}`", short(from)));
        }
        if let Some(with) = &c.paired_with {
            detail.push(format!("wall time paired with `{}`", short(with)));
        }
        if let Some(why) = &c.failure {
            let first = why.lines().next().unwrap_or("");
            detail.push(escape_cell(first));
        }
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            short(&c.commit),
            escape_cell(&c.subject),
            c.outcome,
            detail.join("; ")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::history::{BackfilledCommit, BACKFILL_SCHEMA_VERSION};

    fn summary() -> BackfillSummary {
        let commit = |k: u64, outcome: &str| BackfilledCommit {
            commit: format!("{k:040x}"),
            position: k,
            subject: format!("commit | {k}"),
            outcome: outcome.into(),
            narrowing: k == 3,
            carried_from: (outcome == "carried").then(|| format!("{:040x}", k - 1)),
            paired_with: (outcome == "measured" && k > 1).then(|| format!("{:040x}", k - 1)),
            failure: (outcome == "failed").then(|| "error[E0425]: x\nmore".into()),
        };
        BackfillSummary {
            schema: "costbench-backfill".into(),
            schema_version: BACKFILL_SCHEMA_VERSION,
            range: "v1..main".into(),
            branch: Some("main".into()),
            commits_in_range: 4,
            commits: vec![
                commit(1, "measured"),
                commit(2, "carried"),
                commit(3, "measured"),
                commit(4, "failed"),
            ],
            merged_branch_commits: 2,
            stopped: None,
            seconds: 12.4,
        }
    }

    #[test]
    fn the_line_counts_each_outcome() {
        let l = line(&summary());
        assert!(
            l.starts_with("backfill of v1..main: 2 measured, 1 carried over"),
            "{l}"
        );
        assert!(l.contains("1 did not build, 0 already recorded"), "{l}");
        assert!(l.contains("1 commits between them taken to narrow"), "{l}");
        assert!(l.contains("2 commits of merged branches measured"), "{l}");
        assert!(l.ends_with("; 12 s\n"), "{l}");
    }

    #[test]
    fn markdown_lists_every_commit_with_what_became_of_it() {
        let md = markdown(&summary());
        assert!(md.contains("### costbench history backfill `v1..main` on `main`"));
        let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| `")).collect();
        assert_eq!(rows.len(), 4, "{md}");
        assert!(
            rows[0].contains("commit &#124; 1"),
            "a | in a subject is escaped: {md}"
        );
        assert!(rows[1].contains("figures of `000000000000`"), "{md}");
        assert!(
            rows[2].contains("taken to narrow a change; wall time paired with"),
            "{md}"
        );
        assert!(
            rows[3].contains("error\\[E0425\\]: x") && !rows[3].contains("more"),
            "the first line of the reason, escaped: {md}"
        );
    }
}
