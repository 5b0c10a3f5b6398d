//! The change points and drift of a branch's history (`costbench history changes`) as text: a
//! terminal listing grouped by commit, GitHub-flavoured markdown for a job summary or an issue,
//! JSON (`"schema": "costbench-changes"`), and GitHub Actions annotations for the change points
//! that fail. Pure: which change points fail, and their explanations, are given.

use crate::escape::escape_cell;
use costbench_judge::changes::{ChangePoint, ChangeReport, Drift, Method};
use costbench_record::fmt::fmt_change;
use costbench_record::history::{MergedOrigin, Metric, Timeline, TimelineRun};
use std::fmt::Write as _;

/// The JSON document's schema version.
pub const SCHEMA_VERSION: u32 = 1;

/// What a change point's reader needs besides the change itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChangeNote {
    /// Narrowed to one commit: the run before it measured the commit's first parent.
    pub exact_commit: bool,
    /// The reason costbench.toml gives, when the change point is acknowledged there.
    pub acknowledged: Option<String>,
    /// The functions whose own cost moved (and their checks and machine code), as `check`
    /// explains a pull request; plain text.
    pub explanation: Option<String>,
    /// Whether it fails the command: new (after `--since`) and not acknowledged.
    pub fails: bool,
    /// At a merge commit: which commit of the merged branch brought it (`history backfill
    /// --narrow` bisects the branch).
    pub merged: Option<MergedOrigin>,
}

/// `history changes`' document.
#[derive(Debug, Clone, Copy)]
pub struct ChangesView<'a> {
    /// The runs and series judged.
    pub timeline: &'a Timeline,
    /// What was found.
    pub report: &'a ChangeReport,
    /// One note per change point of `report.changes`, in order.
    pub notes: &'a [ChangeNote],
    /// What drift is measured from, as the user named it and the commit it resolved to.
    pub reference: Option<&'a str>,
    /// Lines after the listing (where a dashboard was written).
    pub footer: &'a str,
}

impl ChangesView<'_> {
    /// Whether anything fails: a failing change point or a drift over its budget.
    pub fn fails(&self) -> bool {
        self.notes.iter().any(|n| n.fails) || self.report.drift.iter().any(|d| d.over_budget)
    }
}

/// A per-op value of `metric` with its unit.
pub fn value(metric: Metric, v: f64) -> String {
    (metric.spec().with_unit)(v)
}

/// `before` and `after` of `metric` as two strings that differ: a change of an exact count can be
/// smaller than the usual four significant digits show (16.03 Ir → 16.03 Ir), so they get as many
/// more as it takes.
pub fn before_after(metric: Metric, before: f64, after: f64) -> (String, String) {
    let (b, a) = (value(metric, before), value(metric, after));
    if b != a || before == after {
        return (b, a);
    }
    let unit = b.split_once(' ').map_or("", |(_, u)| u);
    for digits in 5..=12 {
        let f = |v: f64| {
            let magnitude = if v == 0.0 {
                0
            } else {
                v.abs().log10().floor() as i32
            };
            let decimals = (digits - 1 - magnitude).max(0) as usize;
            format!("{v:.decimals$}")
        };
        let (fb, fa) = (f(before), f(after));
        if fb != fa {
            return if unit.is_empty() {
                (fb, fa)
            } else {
                (format!("{fb} {unit}"), format!("{fa} {unit}"))
            };
        }
    }
    (b, a)
}

fn short(sha: Option<&str>) -> &str {
    sha.map_or("(no commit)", |s| &s[..12.min(s.len())])
}

fn commit_line(run: &TimelineRun) -> String {
    let mut s = short(run.commit.as_deref()).to_string();
    if let Some(subject) = &run.subject {
        let _ = write!(s, " {}", crate::escape::clean(subject));
    }
    if let Some(date) = &run.author_date {
        let _ = write!(s, " ({})", &date[..10.min(date.len())]);
    }
    s
}

/// The change points grouped by the commit that carries them, newest first.
fn by_commit<'a>(v: &'a ChangesView<'a>) -> Vec<(usize, Vec<(&'a ChangePoint, &'a ChangeNote)>)> {
    let mut groups: Vec<(usize, Vec<(&ChangePoint, &ChangeNote)>)> = Vec::new();
    for (c, n) in v.report.changes.iter().zip(v.notes) {
        match groups
            .iter_mut()
            .find(|(run, _)| v.timeline.runs[*run].commit == v.timeline.runs[c.run].commit)
        {
            Some((_, list)) => list.push((c, n)),
            None => groups.push((c.run, vec![(c, n)])),
        }
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.0));
    groups
}

fn where_found(t: &Timeline, c: &ChangePoint, n: &ChangeNote) -> String {
    if let (true, Some(m)) = (n.exact_commit, &n.merged) {
        format!("at this merge: {}", merged_words(m))
    } else if n.exact_commit {
        "at this commit".into()
    } else {
        format!(
            "between {} and this commit (not narrowed: `history backfill --narrow`)",
            short(t.runs[c.previous_run].commit.as_deref())
        )
    }
}

/// Which commits of a merged branch made a change found at its merge, in words.
pub fn merged_words(m: &MergedOrigin) -> String {
    let steps: Vec<String> = m
        .steps
        .iter()
        .map(|st| {
            format!(
                "{} “{}” ({})",
                &st.commit[..12.min(st.commit.len())],
                st.subject,
                fmt_change(100.0 * (st.after / st.before - 1.0))
            )
        })
        .collect();
    let mut words = match steps.len() {
        0 => "not by the merged branch's commits (its tip has the value of where it forked)".into(),
        1 => format!("brought by {} of the merged branch", steps[0]),
        _ => format!(
            "brought by {} commits of the merged branch: {}",
            steps.len(),
            steps.join(", ")
        ),
    };
    if let Some(note) = &m.note {
        words.push_str(&format!("; {note}"));
    }
    words
}

fn how(c: &ChangePoint) -> String {
    match (c.method, c.p_value) {
        (Method::TTest, Some(p)) => format!("t-test p = {p:.1e}"),
        (Method::Paired, _) => "paired with the previous measured commit".into(),
        _ if !c.confirmed => "newest commit, not yet confirmed".into(),
        _ => "exact".into(),
    }
}

/// The terminal listing.
pub fn terminal(v: &ChangesView) -> String {
    let t = v.timeline;
    let mut s = String::new();
    let commits = t
        .runs
        .iter()
        .filter_map(|r| r.commit.as_deref())
        .collect::<std::collections::HashSet<_>>()
        .len();
    let _ = writeln!(
        s,
        "{} change point(s) in {} series over {} runs of {commits} commits",
        v.report.changes.len(),
        t.series.len(),
        t.runs.len()
    );
    for (run, list) in by_commit(v) {
        let _ = writeln!(s, "\n{}", commit_line(&t.runs[run]));
        for (c, n) in list {
            let series = &t.series[c.series];
            let mark = if n.fails {
                "FAIL "
            } else if n.acknowledged.is_some() {
                "ack  "
            } else {
                "     "
            };
            let (before, after) = before_after(series.metric, c.before, c.after);
            let _ = writeln!(
                s,
                "  {mark}{} {} [{}]: {before} -> {after} ({}), {}; {}",
                series.id,
                series.metric.as_str(),
                series.machine,
                fmt_change(c.change_pct),
                how(c),
                where_found(t, c, n)
            );
            if let Some(why) = &n.acknowledged {
                let _ = writeln!(s, "       acknowledged: {why}");
            }
            if let Some(e) = &n.explanation {
                for line in e.lines() {
                    let _ = writeln!(s, "       {line}");
                }
            }
        }
    }
    drift_terminal(&mut s, v);
    s + v.footer
}

fn drift_terminal(s: &mut String, v: &ChangesView) {
    let over: Vec<&Drift> = v.report.drift.iter().filter(|d| d.over_budget).collect();
    if v.report.drift.is_empty() {
        return;
    }
    let budget = v.report.drift[0].budget_pct;
    let _ = writeln!(
        s,
        "\ndrift since {}: {} of {} series beyond the budget of {budget} %",
        v.reference.unwrap_or("the oldest run"),
        over.len(),
        v.report.drift.len()
    );
    let mut largest: Vec<&Drift> = v.report.drift.iter().collect();
    largest.sort_by(|a, b| b.change_pct.abs().total_cmp(&a.change_pct.abs()));
    for d in largest
        .iter()
        .filter(|d| d.over_budget || d.change_pct != 0.0)
        .take(20)
    {
        let series = &v.timeline.series[d.series];
        let _ = writeln!(
            s,
            "  {}{} {}: {} -> {} ({})",
            if d.over_budget { "OVER " } else { "     " },
            series.id,
            series.metric.as_str(),
            value(series.metric, d.reference),
            value(series.metric, d.latest),
            fmt_change(d.change_pct)
        );
    }
}

/// GitHub-flavoured markdown: a table per commit, then drift.
pub fn markdown(v: &ChangesView) -> String {
    let t = v.timeline;
    let mut s = format!(
        "## costbench: {} change point(s) in {} series\n",
        v.report.changes.len(),
        t.series.len()
    );
    for (run, list) in by_commit(v) {
        let _ = writeln!(s, "\n### `{}`\n", escape_cell(&commit_line(&t.runs[run])));
        s.push_str("| | id | metric | machine | before | after | change | how | where |\n");
        s.push_str("|---|---|---|---|---:|---:|---:|---|---|\n");
        for (c, n) in &list {
            let series = &t.series[c.series];
            let mark = if n.fails {
                "❌"
            } else if n.acknowledged.is_some() {
                "✔️ acknowledged"
            } else {
                ""
            };
            let (before, after) = before_after(series.metric, c.before, c.after);
            let _ = writeln!(
                s,
                "| {mark} | `{}` | {} | {} | {before} | {after} | {} | {} | {} |",
                escape_cell(&series.id),
                series.metric.as_str(),
                escape_cell(&series.machine),
                fmt_change(c.change_pct),
                how(c),
                escape_cell(&where_found(t, c, n))
            );
        }
        for (c, n) in &list {
            let series = &t.series[c.series];
            if let Some(why) = &n.acknowledged {
                let _ = writeln!(
                    s,
                    "\n`{}` acknowledged: {}",
                    escape_cell(&series.id),
                    escape_cell(why)
                );
            }
            if let Some(e) = &n.explanation {
                let _ = writeln!(
                    s,
                    "\n<details><summary>what moved in <code>{}</code></summary>\n\n```text\n{}\n```\n</details>",
                    crate::html::escape::escape(&series.id),
                    e.replace("```", "'''")
                );
            }
        }
    }
    if !v.report.drift.is_empty() {
        let over = v.report.drift.iter().filter(|d| d.over_budget).count();
        let _ = writeln!(
            s,
            "\n### Drift since {}: {over} of {} series beyond {} %\n",
            escape_cell(v.reference.unwrap_or("the oldest run")),
            v.report.drift.len(),
            v.report.drift[0].budget_pct
        );
        s.push_str(
            "| | id | metric | reference | latest | change |\n|---|---|---|---:|---:|---:|\n",
        );
        for d in v.report.drift.iter().filter(|d| d.over_budget) {
            let series = &t.series[d.series];
            let _ = writeln!(
                s,
                "| ❌ | `{}` | {} | {} | {} | {} |",
                escape_cell(&series.id),
                series.metric.as_str(),
                value(series.metric, d.reference),
                value(series.metric, d.latest),
                fmt_change(d.change_pct)
            );
        }
    }
    s + v.footer
}

/// The JSON document.
pub fn json(v: &ChangesView) -> serde_json::Value {
    let t = v.timeline;
    let run = |i: usize| &t.runs[i];
    let changes: Vec<serde_json::Value> = v
        .report
        .changes
        .iter()
        .zip(v.notes)
        .map(|(c, n)| {
            let series = &t.series[c.series];
            let r = run(c.run);
            serde_json::json!({
                "commit": r.commit,
                "subject": r.subject,
                "author_date": r.author_date,
                "position": r.position,
                "run_id": r.run_id,
                "previous_commit": run(c.previous_run).commit,
                "narrowed": n.exact_commit,
                "id": series.id,
                "metric": series.metric.as_str(),
                "machine": series.machine,
                "variant": series.variant,
                "method": c.method,
                "before": c.before,
                "after": c.after,
                "change_pct": c.change_pct,
                "p_value": c.p_value,
                "confirmed": c.confirmed,
                "acknowledged": n.acknowledged,
                "fails": n.fails,
                "explanation": n.explanation,
                "merged_branch": n.merged,
            })
        })
        .collect();
    let drift: Vec<serde_json::Value> = v
        .report
        .drift
        .iter()
        .map(|d| {
            let series = &t.series[d.series];
            serde_json::json!({
                "id": series.id,
                "metric": series.metric.as_str(),
                "machine": series.machine,
                "variant": series.variant,
                "reference_commit": run(d.reference_run).commit,
                "latest_commit": run(d.latest_run).commit,
                "reference": d.reference,
                "latest": d.latest,
                "change_pct": d.change_pct,
                "budget_pct": d.budget_pct,
                "over_budget": d.over_budget,
            })
        })
        .collect();
    serde_json::json!({
        "schema": "costbench-changes",
        "schema_version": SCHEMA_VERSION,
        "passed": !v.fails(),
        "runs": t.runs.len(),
        "series": t.series.len(),
        "reference": v.reference,
        "changes": changes,
        "drift": drift,
    })
}

/// GitHub Actions annotations: one error per failing change point and per drift over budget.
pub fn github(v: &ChangesView) -> String {
    let t = v.timeline;
    let mut s = String::new();
    for (c, _) in v
        .report
        .changes
        .iter()
        .zip(v.notes)
        .filter(|(_, n)| n.fails)
    {
        let series = &t.series[c.series];
        let _ = writeln!(
            s,
            "::error title={}::{}",
            crate::github::escape_property(&format!(
                "costbench: {} {} changed at {}",
                series.id,
                series.metric.as_str(),
                short(t.runs[c.run].commit.as_deref())
            )),
            crate::github::escape_data(&format!(
                "{} -> {} ({}) at {}; acknowledge it in costbench.toml ([[history.acknowledge]]) if it was meant",
                value(series.metric, c.before),
                value(series.metric, c.after),
                fmt_change(c.change_pct),
                commit_line(&t.runs[c.run])
            ))
        );
    }
    for d in v.report.drift.iter().filter(|d| d.over_budget) {
        let series = &t.series[d.series];
        let _ = writeln!(
            s,
            "::error title={}::{}",
            crate::github::escape_property(&format!(
                "costbench: {} {} drifted {}",
                series.id,
                series.metric.as_str(),
                fmt_change(d.change_pct)
            )),
            crate::github::escape_data(&format!(
                "{} -> {} since {}, beyond the drift budget of {} %",
                value(series.metric, d.reference),
                value(series.metric, d.latest),
                v.reference.unwrap_or("the oldest run"),
                d.budget_pct
            ))
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_change_of_an_exact_count_shows_in_its_digits() {
        assert_eq!(
            before_after(Metric::Icount, 16.0312, 16.0298),
            ("16.031 Ir".to_string(), "16.030 Ir".to_string())
        );
        let (b, a) = before_after(Metric::Icount, 73.66, 73.6612);
        assert_ne!(b, a);
        assert_eq!(
            before_after(Metric::Icount, 100.0, 104.0),
            (value(Metric::Icount, 100.0), value(Metric::Icount, 104.0))
        );
    }
}
