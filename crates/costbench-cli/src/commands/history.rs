//! `costbench history`: list the recorded runs, or one scenario's series of per-op figures; and
//! watching a branch: `history changes` (change points and drift), `history backfill`
//! (measuring a range of commits) and `history dashboard` (the static site).

use crate::args::{ChangesCmd, DashboardCmd, HistoryAction, HistoryCmd};
use crate::core::changes::Watch;
use crate::core::history::database;
use crate::output::Sink;
use anyhow::{bail, Context, Result};
use costbench_report::render::Format;
use costbench_report::render::{ChangesView, HistoryView, Render};

mod backfill;

pub(super) fn history(h: HistoryCmd) -> Result<i32> {
    use costbench_store::RunQuery;
    match h.action {
        Some(HistoryAction::Changes(c)) => return changes(c),
        Some(HistoryAction::Dashboard(d)) => return dashboard(d),
        Some(HistoryAction::Backfill(b)) => return backfill::backfill(b),
        None => {}
    }
    let path = database(
        h.database.db.as_deref(),
        h.database.manifest_path.as_deref(),
    )?;
    if !path.exists() {
        bail!(
            "no history database at {path}: `costbench run` records every run there (or pass --db PATH)"
        );
    }
    let store = path.open()?;
    let q = RunQuery {
        branch: h.branch,
        variant: h.variant,
        limit: Some(h.limit),
    };
    let table = Sink::new(Some(Format::Table));
    match h.scenario {
        None => {
            table.emit(&HistoryView::Runs(&store.runs(&q)?))?;
        }
        Some(id) => {
            let metric = h.metric;
            let points = store.series(&id, metric, &q)?;
            if points.is_empty() {
                bail!("no {} figures for {id:?} in {path}", metric.as_str());
            }
            table.emit(&HistoryView::Series {
                id: &id,
                metric,
                points: &points,
            })?;
        }
    }
    Ok(crate::exit::OK)
}

/// `history changes`: exit 3 when a change point after `--since` (every one without it) is not
/// acknowledged, or a drift is over its budget.
fn changes(c: ChangesCmd) -> Result<i32> {
    let watch = Watch::open(
        c.database.db.as_deref(),
        c.database.manifest_path.as_deref(),
    )?;
    let judged = watch.judge(&c.changes, c.since.as_deref(), c.explain)?;
    let view = ChangesView {
        timeline: &judged.timeline,
        report: &judged.report,
        notes: &judged.notes,
        reference: judged.reference.as_deref(),
        footer: "",
    };
    let github = crate::github::Github::from_env(c.github);
    Sink::new(Some(c.format))
        .stderr(github.annotate.then_some(Format::Github))
        .emit(&view)?;
    if let Some(path) = &github.step_summary {
        let md = view
            .render(Format::Markdown)
            .expect("change points render as markdown");
        if let Err(e) = crate::github::append_step_summary(path, &md) {
            eprintln!(
                "warning: could not append the change points to GITHUB_STEP_SUMMARY ({}): {e}",
                path.display()
            );
        }
    }
    Ok(if view.fails() {
        crate::exit::REGRESSION
    } else {
        crate::exit::OK
    })
}

/// How many change points the dashboard explains (the largest).
const DASHBOARD_EXPLAINED: usize = 20;

/// How many lines of each explanation the dashboard shows.
const DASHBOARD_LINES: usize = 80;

/// `history dashboard`: the site, written atomically; prints where it is.
fn dashboard(d: DashboardCmd) -> Result<i32> {
    let watch = Watch::open(
        d.database.db.as_deref(),
        d.database.manifest_path.as_deref(),
    )?;
    // The largest changes' explanations (machine code included) make the page; every one of a
    // long history's would make it megabytes.
    let judged = watch.judge(&d.changes, None, DASHBOARD_EXPLAINED)?;
    let dir = match (&d.output_dir, &watch.paths) {
        (Some(dir), _) => {
            std::path::absolute(dir).with_context(|| format!("cannot resolve {}", dir.display()))?
        }
        (None, Some(p)) => p.dashboard(),
        (None, None) => crate::exit::usage!(
            "no crate here to put the dashboard under its target directory: give -o DIR"
        ),
    };
    let title = d.title.clone().unwrap_or_else(|| {
        format!(
            "costbench history{}",
            judged
                .branch
                .as_deref()
                .map_or(String::new(), |b| format!(" of {b}"))
        )
    });
    let generated_at = costbench_measure::environment::now_rfc3339();
    // A machine-code listing of a large function is thousands of lines: the page keeps the
    // head of each explanation, the terminal's `history changes` prints it whole.
    let mut notes = judged.notes.clone();
    for n in &mut notes {
        if let Some(e) = &mut n.explanation {
            let lines = e.lines().count();
            if lines > DASHBOARD_LINES {
                let head: Vec<&str> = e.lines().take(DASHBOARD_LINES).collect();
                *e = format!(
                    "{}\n... and {} more lines: `costbench history changes` prints it whole",
                    head.join("\n"),
                    lines - DASHBOARD_LINES
                );
            }
        }
    }
    let html = costbench_report::dashboard::render(&costbench_report::dashboard::DashboardInput {
        title: &title,
        generated_at: &generated_at,
        timeline: &judged.timeline,
        changes: &judged.report.changes,
        notes: &notes,
        drift: &judged.report.drift,
        reference: judged.reference.as_deref(),
    });
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let page = dir.join("index.html");
    costbench_record::output::write_atomic(&page, html.as_bytes())?;
    let footer = format!("dashboard: {} ({} bytes)\n", page.display(), html.len());
    let view = ChangesView {
        timeline: &judged.timeline,
        report: &judged.report,
        notes: &judged.notes,
        reference: judged.reference.as_deref(),
        footer: &footer,
    };
    if d.format == Format::Table {
        print!("{footer}");
    } else {
        Sink::new(Some(d.format)).emit(&view)?;
    }
    Ok(crate::exit::OK)
}
