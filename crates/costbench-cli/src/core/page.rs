//! The HTML report's gathering, in the command core like every other command's: what the page
//! shows (the runs, the comparison of the first and last of them, history series from the store)
//! and its judging (which runs are compared, judged by [`super::sides::judge_sides`] as `compare`
//! judges them; each history series' threshold and the points that cross it), into the page
//! document (`costbench_report::render::Page`) that the output layer only renders and writes.
//! Shared by `costbench report` and `costbench run --html`; it reads the store but never
//! measures, and it neither renders nor writes.

use anyhow::{Context, Result};
use costbench_judge::compare::{self, noise::HistoricThresholds, CompareOptions, Comparison};
use costbench_record::history::{Metric, SeriesPoint};
use costbench_record::instrument::{Figure, Instrument};
use costbench_record::model::RunRecord;
use costbench_report::html::History;
use costbench_report::render::Page;
use costbench_store::{RunQuery, Store};
use std::path::Path;

/// Runs of history a chart shows by default.
pub const DEFAULT_HISTORY_LIMIT: usize = 30;

/// What the page of some runs shows, gathered: the runs (the last one shown), the comparison of
/// the first with the last when they are of one variant, the judged history series and the time
/// the page was made. [`Gathered::page`] is the document the sink renders.
#[derive(Debug)]
pub struct Gathered {
    /// The runs, in the order given.
    pub runs: Vec<RunRecord>,
    /// The first run against the last ([`comparison_pair`]), with its function movers.
    pub comparison: Option<Comparison>,
    /// The history charts.
    pub history: Vec<History>,
    /// When the page was made (RFC 3339).
    pub generated_at: String,
}

impl Gathered {
    /// The page to render.
    pub fn page(&self) -> Page<'_> {
        Page {
            runs: &self.runs,
            comparison: self.comparison.as_ref(),
            history: &self.history,
            generated_at: &self.generated_at,
        }
    }
}

/// The page for `runs` (at least one; the last is the one shown), with the history charts of
/// the last run's measured ids from `store` (runs of its variant and branch, at most
/// `history_limit`) when a store is given. `dirs[k]` is the output directory of `runs[k]` when it
/// was read from one: its callgrind outputs name the functions behind instruction-count changes.
pub fn gather(
    runs: Vec<RunRecord>,
    dirs: &[Option<&Path>],
    store: Option<&dyn Store>,
    history_limit: usize,
) -> Result<Gathered> {
    let last = runs.last().context("no run to report")?;
    // Default thresholds: the same verdicts `costbench compare BASE CAND` prints, judged by the
    // steps `compare` takes (profiles read first, then judged, then explained).
    let dir = |k: usize| dirs.get(k).copied().flatten();
    let comparison = comparison_pair(&runs).map(|(b, c)| {
        super::sides::judge_sides(
            (&runs[b], dir(b)),
            (&runs[c], dir(c)),
            &CompareOptions::default(),
            &HistoricThresholds::default(),
            None,
        )
    });
    let history = match store {
        Some(s) => history(s, last, history_limit)?,
        None => Vec::new(),
    };
    Ok(Gathered {
        runs,
        comparison,
        history,
        generated_at: costbench_measure::environment::now_rfc3339(),
    })
}

/// Which runs a list of runs compares: `Some((baseline, candidate))` (indices) when there are at
/// least two and the first and last are of the same variant. Runs of different variants are
/// shown as a variants matrix instead.
pub fn comparison_pair(runs: &[RunRecord]) -> Option<(usize, usize)> {
    let (first, last) = (runs.first()?, runs.last()?);
    (runs.len() >= 2 && first.variant == last.variant).then(|| (0, runs.len() - 1))
}

/// The instrument whose threshold applies to a history metric.
pub fn metric_instrument(m: Metric) -> Figure {
    m.figure()
}

/// The threshold a history series is judged against, in percent, and where it came from, as the
/// judge gives it (`compare::noise::series`): learned from the series itself as `compare
/// --history-branch` learns it when it is long enough, else what the figure's kind says of a
/// short series (none at all for a figure of separate runs that `compare` gives no verdict
/// without history) or the default threshold. (No history series follows a figure under load.)
pub fn history_threshold(h: &History) -> (f64, &'static str) {
    let values: Vec<f64> = h.points.iter().map(|p| p.per_op).collect();
    compare::noise::series(&values, metric_instrument(h.metric))
}

/// Indices of the points whose change from the previous point is beyond `threshold_pct`.
pub fn crossings(points: &[SeriesPoint], threshold_pct: f64) -> Vec<usize> {
    (1..points.len())
        .filter(|&i| {
            let prev = points[i - 1].per_op;
            prev > 0.0 && (100.0 * (points[i].per_op - prev) / prev).abs() > threshold_pct
        })
        .collect()
}

/// The series of `metric` for `id`, judged: its threshold (see [`history_threshold`]) and the
/// points that cross it.
pub fn judged_history(id: String, metric: Metric, points: Vec<SeriesPoint>) -> History {
    let mut h = History {
        id,
        metric,
        points,
        threshold_pct: f64::INFINITY,
        threshold_from: "",
        crossed: Vec::new(),
    };
    (h.threshold_pct, h.threshold_from) = history_threshold(&h);
    h.crossed = crossings(&h.points, h.threshold_pct);
    h
}

/// Every metric the last run measured, per measured id, and its bench binary's size and build
/// time, over the runs of its variant and branch: series of at least two points only (one point
/// is no history).
fn history(store: &dyn Store, run: &RunRecord, limit: usize) -> Result<Vec<History>> {
    let q = RunQuery {
        branch: run.environment.git.as_ref().and_then(|g| g.branch.clone()),
        variant: Some(run.variant.clone()),
        limit: Some(limit),
    };
    let mut out = Vec::new();
    for r in &run.results {
        // Every series the instruments' descriptors list, in the registry's order, that `r`
        // measured.
        let metrics = Instrument::ALL
            .into_iter()
            .flat_map(|i| i.descriptor().metrics)
            .copied()
            .filter(|m| m.per_op(r).is_some());
        for metric in metrics {
            let points = store
                .series(&r.id, metric, &q)
                .with_context(|| format!("reading the history of {}", r.id))?;
            if points.len() >= 2 {
                out.push(judged_history(r.id.clone(), metric, points));
            }
        }
    }
    // The bench binary's size and build time, recorded under `bench:NAME` (issue 28).
    let id = Metric::run_id(run);
    for metric in Metric::RUN {
        if metric.of_run(run).is_none() {
            continue;
        }
        let points = store
            .series(&id, metric, &q)
            .with_context(|| format!("reading the history of {id}"))?;
        if points.len() >= 2 {
            out.push(judged_history(id.clone(), metric, points));
        }
    }
    Ok(out)
}

/// The newest recorded run and, before it, the previous run of its variant and branch (the
/// baseline of its changes), oldest first; used when no run is named.
pub fn latest_runs(store: &dyn Store) -> Result<Vec<RunRecord>> {
    let newest = store
        .runs(&RunQuery {
            limit: Some(1),
            ..RunQuery::default()
        })?
        .into_iter()
        .next()
        .context("the history database holds no runs yet: `costbench run` records one")?;
    let newest = store.load(&newest.run_id)?;
    let mut runs: Vec<RunRecord> = previous_run(store, &newest)?.into_iter().collect();
    runs.push(newest);
    Ok(runs)
}

/// The newest recorded run before `run` of the same variant and branch, if any.
pub fn previous_run(store: &dyn Store, run: &RunRecord) -> Result<Option<RunRecord>> {
    let q = RunQuery {
        branch: run.environment.git.as_ref().and_then(|g| g.branch.clone()),
        variant: Some(run.variant.clone()),
        limit: None,
    };
    match store
        .runs(&q)?
        .into_iter()
        .find(|r| r.run_id != run.run_id && r.started_at <= run.started_at)
    {
        Some(prev) => Ok(Some(store.load(&prev.run_id)?)),
        None => Ok(None),
    }
}

/// `costbench run --html`: what the report of a finished run shows, compared with the previous
/// run of its variant and branch in `db` (when the run was recorded there), with history charts;
/// `out_dir` is where the run's callgrind outputs are.
pub fn gather_for_run(
    run: &RunRecord,
    out_dir: &Path,
    db: Option<&costbench_store::Location>,
) -> Result<Gathered> {
    let store = match db.filter(|p| p.exists()) {
        Some(p) => Some(p.open()?),
        None => None,
    };
    let mut runs = Vec::new();
    if let Some(s) = &store {
        runs.extend(previous_run(s.as_ref(), run)?);
    }
    runs.push(run.clone());
    // The previous run comes from history, which keeps no callgrind outputs.
    let mut dirs = vec![None; runs.len() - 1];
    dirs.push(Some(out_dir));
    gather(runs, &dirs, store.as_deref(), DEFAULT_HISTORY_LIMIT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_judge::testing::one_slower;
    use costbench_record::testing::{record, scenario, series_point, with_icount};
    use costbench_report::render::variant_runs;
    use costbench_report::render::{Format, Render as _};

    fn page_of(runs: &[RunRecord], cmp: Option<&Comparison>, history: &[History]) -> String {
        let page = Page {
            runs,
            comparison: cmp,
            history,
            generated_at: "2026-01-01T00:00:00Z",
        };
        page.render(Format::Html).expect("a page renders as HTML")
    }

    #[test]
    fn the_first_and_last_run_of_one_variant_are_compared() {
        let runs = [one_slower("base", 1.0, 1), one_slower("cand", 1.2, 3)];
        assert_eq!(comparison_pair(&runs), Some((0, 1)));
    }

    #[test]
    fn variants_are_a_heat_map_of_ratios_to_the_first() {
        let run = |id: &str, variant: &str, ir: f64| {
            let mut r = record(
                id,
                vec![
                    with_icount(scenario("a"), ir),
                    with_icount(scenario("b"), 100.0),
                ],
            );
            r.variant = variant.into();
            r
        };
        let runs = [
            run("1", "default", 100.0),
            run("2", "lto", 110.0),
            run("3", "opt-s", 100.0),
            run("4", "lto", 50.0),
        ];
        assert_eq!(comparison_pair(&runs), None);
        let v = variant_runs(&runs);
        // The last run of each variant, in order of first appearance.
        assert_eq!(
            v.iter().map(|r| r.run_id.as_str()).collect::<Vec<_>>(),
            ["1", "4", "3"]
        );
        let html = page_of(&runs, None, &[]);
        assert_eq!(
            html.matches(r#"data-chart="heatmap" data-series="3""#)
                .count(),
            1,
            "only instruction counts were measured"
        );
        assert!(html.contains(">0.500×*<"), "lto halves a: significant");
        assert!(html.contains(">1.000×<"));
        assert!(variant_runs(&runs[..1]).is_empty());
    }

    #[test]
    fn history_bands_come_from_the_series_and_crossings_are_marked() {
        let mut points: Vec<SeriesPoint> = (0..12)
            .map(|i| series_point(&i.to_string(), 100.0))
            .collect();
        points.push(series_point("12", 100.5));
        let h = judged_history("a".into(), Metric::Icount, points);
        // A count that never moved: the 0.01 % floor, so +0.5 % crosses it.
        assert_eq!(history_threshold(&h), (0.01, "learned from this history"));
        assert_eq!(crossings(&h.points, 0.01), [12]);
        let short = judged_history("a".into(), Metric::Icount, h.points[..3].to_vec());
        assert_eq!(
            history_threshold(&short).0,
            compare::DEFAULT_ICOUNT_THRESHOLD_PCT
        );
        let run = record("r", vec![with_icount(scenario("a"), 100.5)]);
        let html = page_of(std::slice::from_ref(&run), None, &[h]);
        assert!(
            html.contains(
                r#"data-chart="history" data-series="1" data-points="13" data-crossed="1""#
            ),
            "{html}"
        );
        assert!(html.contains("band: ±0.01 % around the previous run"));
    }
}
