//! Text tables of the history: the list of runs, and one scenario's series.

use costbench_record::history::{Metric, RunSummary, SeriesPoint};
use std::fmt::Write as _;

fn short(commit: Option<&str>) -> &str {
    commit.map_or("-", |c| &c[..c.len().min(10)])
}

/// The table of `costbench history runs`: one line per run, newest first as given.
pub fn runs(runs: &[RunSummary]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<27}  {:<20}  {:<16}  {:<10}  {:<10}  {:>9}  {:>6}",
        "run id", "started", "branch", "commit", "variant", "scenarios", "failed"
    );
    for r in runs {
        let _ = writeln!(
            s,
            "{:<27}  {:<20}  {:<16}  {:<10}  {:<10}  {:>9}  {:>6}",
            r.run_id,
            r.started_at,
            r.branch.as_deref().unwrap_or("-"),
            format!(
                "{}{}",
                short(r.commit.as_deref()),
                if r.dirty { "+" } else { "" }
            ),
            r.variant,
            r.scenarios,
            r.failures
        );
        if let Some(why) = &r.unfinished {
            // A run that did not finish, recorded by a costbench from before such runs were
            // refused: never a baseline, never in the noise model.
            s.pop();
            let _ = writeln!(s, "  UNFINISHED ({why})");
        }
    }
    if runs.is_empty() {
        s.push_str("(no runs recorded)\n");
    }
    s
}

/// The table of `costbench history series`: one line per recorded value of `id`'s `metric`.
pub fn series(id: &str, metric: Metric, points: &[SeriesPoint]) -> String {
    let mut s = String::new();
    let what = metric.spec().title;
    let _ = writeln!(s, "{id}: {what}");
    let mut prev: Option<f64> = None;
    for p in points {
        let value = (metric.spec().fmt_value)(p.per_op);
        let change = match prev {
            Some(b) if b != 0.0 => format!("{:+.2}%", 100.0 * (p.per_op - b) / b),
            _ => String::new(),
        };
        let _ = writeln!(
            s,
            "{:<27}  {:<20}  {:<10}  {:>14}  {:>8}",
            p.run_id,
            p.started_at,
            short(p.commit.as_deref()),
            value,
            change
        );
        prev = Some(p.per_op);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unfinished_runs_are_listed_as_such() {
        let summary = |id: &str, unfinished: Option<&str>| RunSummary {
            run_id: id.into(),
            started_at: "2026-01-01T00:00:00Z".into(),
            commit: Some("abc".into()),
            branch: Some("main".into()),
            dirty: false,
            variant: "default".into(),
            package: "p".into(),
            bench: "b".into(),
            scenarios: 11,
            failures: 0,
            unfinished: unfinished.map(String::from),
        };
        let t = runs(&[summary("whole", None), summary("killed", Some("killed"))]);
        let lines: Vec<&str> = t.lines().collect();
        assert!(!lines[1].contains("UNFINISHED"), "{t}");
        assert!(lines[2].ends_with("UNFINISHED (killed)"), "{t}");
    }

    #[test]
    fn series_shows_changes_between_runs() {
        let p = |id: &str, v: f64| SeriesPoint {
            run_id: id.into(),
            started_at: "2026-01-01T00:00:00Z".into(),
            commit: Some("0123456789abcdef".into()),
            per_op: v,
        };
        let t = series("x", Metric::Icount, &[p("a", 100.0), p("b", 110.0)]);
        assert!(t.contains("+10.00%"), "{t}");
        assert!(t.contains("0123456789 "), "{t}");
    }
}
