//! The HTML report: one self-contained page (inline CSS, a few lines of inline JavaScript for
//! sortable tables, charts as inline SVG; nothing fetched from anywhere) built from run records,
//! an optional comparison and history series.
//!
//! Pure: [`render`] is a function of its [`Input`]; reading runs, querying the history and
//! writing the file belong to the caller (`crate::html_report`). Every string that did not
//! come from this module goes through [`escape::escape`], and none is ever put inside a script.
//!
//! Sections: an overview table of every measured id's per-op figures (changes against the
//! baseline coloured when significant), a variants heat map when the runs are of several
//! variants, one section per measured id (wall-time distribution, instruction count and its
//! change, counters, memory, census, failures, history charts), and the provenance of every run.

pub mod escape;
pub mod svg;

use crate::compare::{self, Comparison, Instrument, Verdict};
use crate::fmt::{fmt_change, fmt_ir, fmt_js_number, fmt_ns, fmt_percent, fmt_threshold};
use crate::model::{RunRecord, ScenarioResult};
use crate::store::{Metric, SeriesPoint};
use escape::escape;
use std::collections::HashMap;
use std::fmt::Write as _;

const CSS: &str = include_str!("report.css");
const JS: &str = include_str!("report.js");

/// One measured id's series of one metric over recorded runs, oldest first.
#[derive(Debug, Clone)]
pub struct History {
    pub id: String,
    pub metric: Metric,
    pub points: Vec<SeriesPoint>,
}

/// What the page shows.
#[derive(Debug)]
pub struct Input<'a> {
    /// The runs, in the order given; the last one's figures fill the overview and the scenario
    /// sections.
    pub runs: &'a [RunRecord],
    /// Changes of the last run against a baseline run (one of `runs`), highlighted where
    /// significant.
    pub comparison: Option<&'a Comparison>,
    /// Series for the history charts, any order.
    pub history: &'a [History],
    /// When the report was made (RFC 3339), for the header.
    pub generated_at: &'a str,
}

/// Which runs a list of runs compares: `Some((baseline, candidate))` (indices) when there are at
/// least two and the first and last are of the same variant. Runs of different variants are
/// shown as a variants matrix instead.
pub fn comparison_pair(runs: &[RunRecord]) -> Option<(usize, usize)> {
    let (first, last) = (runs.first()?, runs.last()?);
    (runs.len() >= 2 && first.variant == last.variant).then(|| (0, runs.len() - 1))
}

/// The runs of the variants matrix: the last run of every variant, in order of each variant's
/// first appearance (the first is the baseline variant). Empty with fewer than two variants.
pub fn variant_runs(runs: &[RunRecord]) -> Vec<&RunRecord> {
    let mut order: Vec<&str> = Vec::new();
    for r in runs {
        if !order.contains(&r.variant.as_str()) {
            order.push(&r.variant);
        }
    }
    if order.len() < 2 {
        return Vec::new();
    }
    order
        .iter()
        .map(|v| {
            runs.iter()
                .rev()
                .find(|r| r.variant == *v)
                .expect("every variant comes from a run")
        })
        .collect()
}

/// The instrument whose threshold applies to a history metric.
pub fn metric_instrument(m: Metric) -> Instrument {
    match m {
        Metric::Icount => Instrument::Icount,
        Metric::Walltime => Instrument::Walltime,
        Metric::Cycles => Instrument::Cache,
        Metric::AllocBytes | Metric::Allocs | Metric::PeakBytes => Instrument::Memory,
        Metric::MaxRss => Instrument::Rss,
    }
}

fn metric_title(m: Metric) -> &'static str {
    match m {
        Metric::Icount => "instructions per op",
        Metric::Walltime => "median time per op",
        Metric::Cycles => "estimated cycles per op (simulated)",
        Metric::AllocBytes => "bytes allocated per op",
        Metric::Allocs => "allocations per op",
        Metric::PeakBytes => "peak live heap bytes (run)",
        Metric::MaxRss => "max RSS, KiB (process)",
    }
}

fn metric_fmt(m: Metric) -> fn(f64) -> String {
    match m {
        Metric::Walltime => fmt_ns,
        _ => fmt_ir,
    }
}

/// The threshold a history series is judged against, in percent, and where it came from:
/// learned from the series itself as `compare --history-branch` learns it (Q3 + 3·IQR of its
/// changes; for wall time at least the largest change, so that no change between separate runs
/// that history has already seen counts as evidence) when it is long enough. Else the default
/// threshold for exact figures; wall time of separate runs without enough history has no
/// threshold at all (infinite: nothing crosses it), as `compare` gives it no verdict.
pub fn history_threshold(h: &History) -> (f64, &'static str) {
    let inst = metric_instrument(h.metric);
    let values: Vec<f64> = h.points.iter().map(|p| p.per_op).collect();
    match compare::noise::threshold_pct(&values, inst) {
        Some(t) => (t, "learned from this history"),
        None if inst == Instrument::Walltime => (
            f64::INFINITY,
            "history too short to judge wall time between runs",
        ),
        None => (
            match inst {
                Instrument::Icount | Instrument::Cache | Instrument::Memory => {
                    compare::DEFAULT_ICOUNT_THRESHOLD_PCT
                }
                Instrument::Walltime => compare::DEFAULT_WALLTIME_THRESHOLD_PCT,
                Instrument::Rss => compare::RSS_THRESHOLD_PCT,
            },
            "default; history too short to learn one",
        ),
    }
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

fn short_commit(c: &str) -> &str {
    &c[..c.char_indices().nth(10).map_or(c.len(), |(i, _)| i)]
}

/// "commit 0123456789+ on main" for a run, unescaped.
fn git_label(run: &RunRecord) -> String {
    match &run.environment.git {
        Some(g) => format!(
            "commit {}{}{}",
            short_commit(&g.commit),
            if g.dirty { "+" } else { "" },
            g.branch
                .as_ref()
                .map_or(String::new(), |b| format!(" on {b}"))
        ),
        None => "no git commit".into(),
    }
}

/// The whole page.
pub fn render(input: &Input) -> String {
    let mut page = String::with_capacity(256 * 1024);
    let Some(main) = input.runs.last() else {
        return page;
    };
    let base = input
        .comparison
        .and_then(|c| input.runs.iter().find(|r| r.run_id == c.base.run_id));
    let rows: HashMap<(&str, Instrument), &compare::Row> = input
        .comparison
        .map(|c| {
            c.rows
                .iter()
                .map(|r| ((r.id.as_str(), r.instrument), r))
                .collect()
        })
        .unwrap_or_default();
    let variants = variant_runs(input.runs);
    let title = format!("costbench: {} / {}", main.suite.package, main.suite.bench);
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"generator\" content=\"costbench {}\">\
         <title>{}</title><style>{CSS}</style></head><body>",
        escape(&main.tool.version),
        escape(&title)
    );
    let _ = write!(
        page,
        "<header class=\"top\"><h1>{}</h1><p>run {} · variant {} · {} · {} · generated {}</p></header>",
        escape(&title),
        escape(&main.run_id),
        escape(&main.variant),
        escape(&git_label(main)),
        escape(&main.started_at),
        escape(input.generated_at),
    );
    page.push_str("<nav><a href=\"#overview\">Overview</a>");
    if !variants.is_empty() {
        page.push_str("<a href=\"#variants\">Variants</a>");
    }
    page.push_str(
        "<a href=\"#scenarios\">Scenarios</a><a href=\"#provenance\">Provenance</a></nav><main>",
    );
    overview(&mut page, main, input.comparison, &rows);
    if !variants.is_empty() {
        variants_section(&mut page, &variants);
    }
    page.push_str("<h2 id=\"scenarios\">Scenarios</h2>");
    let mut history: HashMap<&str, Vec<&History>> = HashMap::new();
    for h in input.history {
        history.entry(h.id.as_str()).or_default().push(h);
    }
    for (k, r) in main.results.iter().enumerate() {
        let base_result = base.and_then(|b| b.results.iter().find(|x| x.id == r.id));
        let functions = input
            .comparison
            .and_then(|c| c.functions.iter().find(|f| f.id == r.id));
        scenario(
            &mut page,
            k,
            main,
            r,
            base.zip(base_result),
            Changes {
                rows: &rows,
                functions,
            },
            history.get(r.id.as_str()).map_or(&[][..], |v| &v[..]),
        );
    }
    provenance(&mut page, input.runs);
    let _ = writeln!(page, "</main><script>{JS}</script></body></html>");
    page
}

/// A figure cell with its sort key.
fn cell(v: Option<f64>, fmt: impl Fn(f64) -> String) -> String {
    match v {
        Some(v) => format!(
            "<td data-v=\"{}\">{}</td>",
            fmt_js_number(v),
            escape(&fmt(v))
        ),
        None => "<td data-v=\"\">–</td>".into(),
    }
}

/// A change cell: coloured when significant (regression, improvement), marked but not coloured
/// when unresolved (`?`) or a placement effect (`≈`); the verdict, its reason and its evidence
/// as the tooltip.
fn change_cell(row: Option<&&compare::Row>) -> String {
    match row {
        Some(r) => {
            let class = match r.verdict {
                Verdict::Regression => " class=\"regression\"",
                Verdict::Improvement => " class=\"improvement\"",
                Verdict::Unresolved => " class=\"unresolved\"",
                Verdict::Placement => " class=\"placement\"",
                Verdict::Unchanged => "",
            };
            format!(
                "<td{class} data-v=\"{}\" title=\"{}: {} ({})\">{}</td>",
                fmt_js_number(r.change_pct),
                r.verdict.name(),
                escape(&r.reason),
                escape(&r.evidence),
                escape(&fmt_change(r.change_pct))
            )
        }
        None => "<td data-v=\"\">–</td>".into(),
    }
}

fn overview(
    page: &mut String,
    run: &RunRecord,
    cmp: Option<&Comparison>,
    rows: &HashMap<(&str, Instrument), &compare::Row>,
) {
    page.push_str("<h2 id=\"overview\">Overview</h2>");
    match cmp {
        Some(c) => {
            let _ = write!(
                page,
                "<p>Per-op figures of {}, changes against {}: {}. Significant changes are \
                 coloured (red: costs more, green: costs less); changes the comparison could not \
                 resolve are marked ?, placement effects (same instructions, time moved) ≈, \
                 neither is gated; hover a change for the reason and its evidence.</p>",
                escape(&c.cand.describe()),
                escape(&c.base.describe()),
                escape(&c.summary())
            );
        }
        None => page.push_str(
            "<p class=\"note\">Per-op figures of the run. Give two runs of the same variant \
             (<code>costbench report BASE CAND</code>) to see the changes.</p>",
        ),
    }
    let has = |f: &dyn Fn(&ScenarioResult) -> bool| run.results.iter().any(f);
    let cols_census = has(&|r| r.census.is_some());
    let cols_cache = has(&|r| r.counters.cache.is_some());
    let cols_alloc = has(&|r| {
        r.counters
            .memory
            .as_ref()
            .is_some_and(|m| m.allocations.is_some())
    });
    let cols_rss = has(&|r| r.counters.memory.is_some());
    let changes = cmp.is_some();
    page.push_str("<table class=\"sortable\" id=\"overview-table\"><thead><tr><th>scenario</th><th>ops</th><th class=\"text\">op</th><th>Ir/op</th>");
    if changes {
        page.push_str("<th>Δ Ir</th>");
    }
    page.push_str("<th>time/op (median)</th><th>IQR</th>");
    if changes {
        page.push_str("<th>Δ time</th>");
    }
    if cols_census {
        page.push_str("<th>checks/op</th>");
    }
    if cols_cache {
        page.push_str("<th>est. cycles/op (sim)</th>");
    }
    if cols_alloc {
        page.push_str("<th>bytes alloc/op</th><th>allocs/op</th>");
    }
    if cols_rss {
        page.push_str("<th>max RSS KiB</th>");
    }
    page.push_str("<th class=\"text\">status</th></tr></thead><tbody>");
    for (k, r) in run.results.iter().enumerate() {
        let _ = write!(
            page,
            "<tr><td><a href=\"#s-{k}\">{}</a></td><td data-v=\"{}\">{}</td><td class=\"text\">{}</td>{}",
            escape(&r.id),
            r.ops,
            r.ops,
            escape(&r.unit),
            cell(r.icount.as_ref().map(|i| i.ir_per_op), fmt_ir)
        );
        if changes {
            page.push_str(&change_cell(rows.get(&(r.id.as_str(), Instrument::Icount))));
        }
        page.push_str(&cell(
            r.walltime.as_ref().map(|w| w.ns_per_op.median),
            fmt_ns,
        ));
        page.push_str(&cell(
            r.walltime
                .as_ref()
                .filter(|w| w.ns_per_op.median > 0.0)
                .map(|w| 100.0 * w.ns_per_op.iqr / w.ns_per_op.median),
            |v| format!("{v:.1} %"),
        ));
        if changes {
            page.push_str(&change_cell(
                rows.get(&(r.id.as_str(), Instrument::Walltime)),
            ));
        }
        if cols_census {
            page.push_str(&cell(r.census.as_ref().map(|c| c.checks_per_op), fmt_ir));
        }
        if cols_cache {
            page.push_str(&cell(Instrument::Cache.per_op(r), fmt_ir));
        }
        let alloc = r
            .counters
            .memory
            .as_ref()
            .and_then(|m| m.allocations.as_ref());
        if cols_alloc {
            page.push_str(&cell(alloc.map(|a| a.bytes_allocated_per_op), fmt_ir));
            page.push_str(&cell(alloc.map(|a| a.allocs_per_op), fmt_ir));
        }
        if cols_rss {
            page.push_str(&cell(
                r.counters.memory.as_ref().map(|m| m.max_rss_kib as f64),
                |v| format!("{v:.0}"),
            ));
        }
        if r.failures.is_empty() {
            page.push_str("<td class=\"text\">ok</td></tr>");
        } else {
            let what: Vec<String> = r
                .failures
                .iter()
                .map(|f| format!("{} {}", f.instrument, f.kind))
                .collect();
            let _ = write!(
                page,
                "<td class=\"text failed\">failed: {}</td></tr>",
                escape(&what.join(", "))
            );
        }
    }
    page.push_str("</tbody></table>");
    if let Some(c) = cmp {
        let mut extra = Vec::new();
        if !c.missing_in_cand.is_empty() {
            extra.push(format!(
                "missing in the candidate: {}",
                c.missing_in_cand.join(", ")
            ));
        }
        if !c.new_in_cand.is_empty() {
            extra.push(format!(
                "new in the candidate: {}",
                c.new_in_cand.join(", ")
            ));
        }
        for s in &c.setup_changes {
            extra.push(format!("{} changed setup: {}", s.id, s.changes.join(", ")));
        }
        for e in extra {
            let _ = write!(page, "<p class=\"note\">{}</p>", escape(&e));
        }
    }
    for s in &run.skipped {
        let _ = write!(
            page,
            "<p class=\"note\">skipped instrument {}: {}</p>",
            escape(&s.instrument),
            escape(&s.reason)
        );
    }
}

/// Heat maps of every instrument measured by at least two variants: ratio of each variant's
/// per-op figure to the baseline variant's (the first), starred where `compare` finds the
/// difference significant.
fn variants_section(page: &mut String, runs: &[&RunRecord]) {
    let base = runs[0];
    let _ = write!(
        page,
        "<h2 id=\"variants\">Variants</h2><p>Ratio of each variant's per-op figure to the \
         baseline variant <b>{}</b> (1.000×: the same; red: costs more; green: costs less; \
         * and bold: significant, judged as <code>costbench compare</code> judges it; grey with ? \
         or ≈: unresolved or a placement effect, not a price).</p>",
        escape(&base.variant)
    );
    let opts = compare::CompareOptions::default();
    let none = compare::noise::HistoricThresholds::default();
    let cmps: Vec<Comparison> = runs
        .iter()
        .map(|r| compare::compare_with(base, r, &opts, &none))
        .collect();
    let mut ids: Vec<String> = Vec::new();
    for r in runs {
        for res in &r.results {
            if !ids.contains(&res.id) {
                ids.push(res.id.clone());
            }
        }
    }
    let cols: Vec<String> = runs.iter().map(|r| r.variant.clone()).collect();
    page.push_str("<div class=\"charts\">");
    for inst in Instrument::ALL {
        let mut any = false;
        let cells: Vec<Vec<Option<svg::Cell>>> = ids
            .iter()
            .map(|id| {
                let b = base
                    .results
                    .iter()
                    .find(|x| &x.id == id)
                    .and_then(|x| inst.per_op(x));
                runs.iter()
                    .zip(&cmps)
                    .enumerate()
                    .map(|(k, (run, c))| {
                        let v = run
                            .results
                            .iter()
                            .find(|x| &x.id == id)
                            .and_then(|x| inst.per_op(x))?;
                        let b = b.filter(|b| *b > 0.0)?;
                        if k > 0 {
                            any = true;
                        }
                        let row = c.rows.iter().find(|r| &r.id == id && r.instrument == inst);
                        let unsettled = row.and_then(|r| match r.verdict {
                            Verdict::Unresolved => Some(("?", format!("unresolved: {}", r.reason))),
                            Verdict::Placement => Some(("≈", format!("placement: {}", r.reason))),
                            _ => None,
                        });
                        Some(svg::Cell {
                            ratio: v / b,
                            significant: row.is_some_and(|r| r.verdict.is_significant()),
                            unsettled,
                        })
                    })
                    .collect()
            })
            .collect();
        if any {
            let _ = write!(
                page,
                "<figure><figcaption>{}: ratio to {}</figcaption>{}</figure>",
                inst.title(),
                escape(&base.variant),
                svg::heatmap(&ids, &cols, &cells)
            );
        }
    }
    page.push_str("</div>");
}

fn fact(page: &mut String, name: &str, value: &str) {
    let _ = write!(
        page,
        "<div><span>{}</span><span>{}</span></div>",
        escape(name),
        escape(value)
    );
}

/// What the comparison says about one scenario.
struct Changes<'a> {
    rows: &'a HashMap<(&'a str, Instrument), &'a compare::Row>,
    functions: Option<&'a compare::functions::FunctionChanges>,
}

fn scenario(
    page: &mut String,
    k: usize,
    run: &RunRecord,
    r: &ScenarioResult,
    base: Option<(&RunRecord, &ScenarioResult)>,
    changes: Changes,
    history: &[&History],
) {
    let Changes { rows, functions } = changes;
    let _ = write!(
        page,
        "<section class=\"scenario\" id=\"s-{k}\" data-scenario=\"{}\"><h3>{}</h3>\
         <p class=\"note\">op: {} · {} per run of the body</p><div class=\"facts\">",
        escape(&r.id),
        escape(&r.id),
        escape(&r.unit),
        r.ops
    );
    if let Some(i) = &r.icount {
        fact(page, "instructions/op", &fmt_ir(i.ir_per_op));
        fact(page, "instructions/run", &i.ir.to_string());
    }
    for inst in Instrument::ALL {
        if let Some(row) = rows.get(&(r.id.as_str(), inst)) {
            fact(
                page,
                &format!("{} change", inst.name()),
                &format!(
                    "{} ({}, {}; evidence: {})",
                    fmt_change(row.change_pct),
                    row.verdict.name(),
                    row.reason,
                    row.evidence
                ),
            );
        }
    }
    if let Some(w) = &r.walltime {
        let s = &w.ns_per_op;
        fact(page, "median time/op", &fmt_ns(s.median));
        fact(
            page,
            "min · p95",
            &format!("{} · {}", fmt_ns(s.min), fmt_ns(s.p95)),
        );
        fact(
            page,
            "mean ± sd",
            &format!("{} ± {}", fmt_ns(s.mean), fmt_ns(s.stddev)),
        );
        fact(
            page,
            "samples × iterations",
            &format!("{} × {}", w.samples, w.iterations_per_sample),
        );
        let o = &s.outliers;
        fact(
            page,
            "outliers (mild · severe)",
            &format!(
                "{} · {}",
                o.low_mild + o.high_mild,
                o.low_severe + o.high_severe
            ),
        );
        fact(page, "clock", &w.clock);
    }
    if let Some(c) = &r.census {
        let (bounds, bs) = c.per_op_where(|k| k != "overflow");
        let (overflow, os) = c.per_op_where(|k| k == "overflow");
        fact(page, "checks/op", &fmt_ir(c.checks_per_op));
        fact(
            page,
            "bounds etc./op",
            &format!("{} at {bs} sites", fmt_ir(bounds)),
        );
        fact(
            page,
            "overflow/op",
            &format!("{} at {os} sites", fmt_ir(overflow)),
        );
    }
    if let Some(m) = &r.counters.memory {
        fact(page, "allocator", &m.allocator);
        match &m.allocations {
            Some(a) => {
                fact(page, "allocs/op", &fmt_ir(a.allocs_per_op));
                fact(
                    page,
                    "bytes allocated/op",
                    &fmt_ir(a.bytes_allocated_per_op),
                );
                fact(page, "peak live bytes", &a.peak_live_bytes.to_string());
            }
            None => fact(
                page,
                "allocations",
                m.not_counted.as_deref().unwrap_or("not counted"),
            ),
        }
        fact(page, "max RSS", &format!("{} KiB", m.max_rss_kib));
    }
    if let Some(d) = &r.counters.dhat {
        fact(
            page,
            "DHAT total bytes · blocks",
            &format!("{} · {}", d.total_bytes, d.total_blocks),
        );
        fact(
            page,
            "DHAT peak bytes · blocks",
            &format!("{} · {}", d.peak_bytes, d.peak_blocks),
        );
    }
    page.push_str("</div>");
    if let Some(wall) = &r.walltime {
        let samples = r.per_op_samples();
        let base_samples = base.map(|(_, b)| b.per_op_samples());
        let w = &wall.ns_per_op;
        let mut dist = Vec::new();
        if let (Some(bs), Some((brun, b))) = (&base_samples, base) {
            if let Some(bw) = &b.walltime {
                dist.push(svg::Distribution {
                    label: &brun.variant,
                    samples: bs,
                    q1: bw.ns_per_op.q1,
                    median: bw.ns_per_op.median,
                    q3: bw.ns_per_op.q3,
                });
            }
        }
        let cand_label = if dist.is_empty() {
            "time/op"
        } else {
            "candidate"
        };
        if let Some(d) = dist.first_mut() {
            d.label = "baseline";
        }
        dist.push(svg::Distribution {
            label: cand_label,
            samples: &samples,
            q1: w.q1,
            median: w.median,
            q3: w.q3,
        });
        let _ = write!(
            page,
            "<figure><figcaption>Wall time per op: box from Q1 to Q3 with the median, whiskers \
             to the furthest samples within 1.5 IQR, every sample a dot</figcaption>{}</figure>",
            svg::distribution(&dist, fmt_ns)
        );
    }
    if let Some(f) = functions {
        function_changes(page, f);
    }
    if let Some(c) = &r.counters.cache {
        page.push_str("<table><thead><tr><th>simulated counter</th><th>per op</th><th>per run</th></tr></thead><tbody>");
        for (name, v) in &c.per_op {
            let _ = write!(
                page,
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(name),
                fmt_ir(*v),
                c.totals.get(name).map_or(String::new(), u64::to_string)
            );
        }
        page.push_str("</tbody></table>");
    }
    if let Some(p) = &r.counters.perf {
        page.push_str("<table><thead><tr><th>hardware counter</th><th>per op</th><th>running</th></tr></thead><tbody>");
        for c in &p.counters {
            let _ = write!(
                page,
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&c.name),
                fmt_ir(c.per_op),
                fmt_percent(c.running_fraction)
            );
        }
        page.push_str("</tbody></table>");
        for u in &p.unavailable {
            let _ = write!(page, "<p class=\"note\">{}</p>", escape(u));
        }
    }
    if let Some(c) = &r.census {
        if !c.top_sites.is_empty() {
            page.push_str("<p>Most executed checks:</p><ul class=\"sites\">");
            for s in &c.top_sites {
                let place = match (&s.file, s.line) {
                    (Some(f), Some(l)) => format!("{f}:{l}"),
                    (Some(f), None) => f.clone(),
                    _ => s.address.clone(),
                };
                let _ = write!(
                    page,
                    "<li>{} per op · {} · <code>{}</code> in <code>{}</code></li>",
                    escape(&fmt_ir(s.per_op)),
                    escape(&s.kind),
                    escape(&place),
                    escape(&s.function)
                );
            }
            page.push_str("</ul>");
        }
    }
    for f in &r.failures {
        let _ = write!(
            page,
            "<p class=\"failed\">{} failed ({}): {}</p>",
            escape(&f.instrument),
            escape(&f.kind),
            escape(&f.message)
        );
        if !f.stderr_tail.is_empty() {
            let _ = write!(page, "<pre>{}</pre>", escape(&f.stderr_tail));
        }
    }
    if !history.is_empty() {
        page.push_str("<div class=\"charts\">");
        for h in history {
            history_chart(page, h);
        }
        page.push_str("</div>");
    }
    let measured_by: Vec<&str> = [
        r.icount.as_ref().map(|_| "callgrind"),
        r.walltime.as_ref().map(|_| "wall clock"),
        r.counters.cache.as_ref().map(|_| "callgrind cache-sim"),
        r.counters.perf.as_ref().map(|_| "perf_event_open"),
        r.counters.memory.as_ref().map(|_| "counting allocator"),
        r.counters.dhat.as_ref().map(|_| "DHAT"),
        r.census.as_ref().map(|_| "census"),
    ]
    .into_iter()
    .flatten()
    .collect();
    let _ = write!(
        page,
        "<p class=\"provenance\">measured by {} in run {} · variant {} · {} · {} · {} · {}</p></section>",
        escape(&measured_by.join(", ")),
        escape(&run.run_id),
        escape(&run.variant),
        escape(&git_label(run)),
        escape(run.environment.rustc.as_deref().unwrap_or("rustc unknown")),
        escape(run.environment.valgrind.as_deref().unwrap_or("no valgrind")),
        escape(run.environment.host.cpu.as_deref().unwrap_or("unknown CPU")),
    );
}

/// The functions behind a significant instruction-count change, from the two callgrind outputs.
fn function_changes(page: &mut String, f: &compare::functions::FunctionChanges) {
    if let Some(why) = &f.unavailable {
        let _ = write!(
            page,
            "<p class=\"note\">functions behind the change: {}</p>",
            escape(why)
        );
        return;
    }
    if let Some(note) = &f.placement_note {
        let _ = write!(page, "<p class=\"note\">{}</p>", escape(note));
    }
    page.push_str(
        "<table class=\"sortable functions\"><thead><tr><th>function (most changed)</th>\
         <th>self Ir/op</th><th>Δ self</th><th>inclusive Ir/op</th><th>Δ inclusive</th></tr></thead><tbody>",
    );
    for d in &f.top {
        let _ = write!(
            page,
            "<tr><td><code>{}</code></td>{}{}{}{}</tr>",
            escape(&d.name),
            cell(Some(d.cand_self), fmt_ir),
            cell(Some(d.self_change()), |v| format!("{v:+.3}")),
            cell(Some(d.cand_inclusive), fmt_ir),
            cell(Some(d.inclusive_change()), |v| format!("{v:+.3}")),
        );
    }
    page.push_str("</tbody></table>");
}

fn history_chart(page: &mut String, h: &History) {
    let (t, from) = history_threshold(h);
    let crossed = crossings(&h.points, t);
    let fmt = metric_fmt(h.metric);
    let points: Vec<svg::HistoryPoint> = h
        .points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let change = if i > 0 && h.points[i - 1].per_op > 0.0 {
                let prev = h.points[i - 1].per_op;
                format!(" ({})", fmt_change(100.0 * (p.per_op - prev) / prev))
            } else {
                String::new()
            };
            svg::HistoryPoint {
                value: p.per_op,
                title: format!(
                    "{} · {} · commit {} · {}{}",
                    p.run_id,
                    p.started_at,
                    p.commit.as_deref().map_or("-", short_commit),
                    fmt(p.per_op),
                    change
                ),
                crossed: crossed.contains(&i),
            }
        })
        .collect();
    let first = h.points.first().map_or("", |p| p.started_at.as_str());
    let last = h.points.last().map_or("", |p| p.started_at.as_str());
    let band = if t.is_finite() {
        format!("±{}", fmt_threshold(t))
    } else {
        "none".to_string()
    };
    let _ = write!(
        page,
        "<figure><figcaption>History of {} over {} runs; band: {band} around the previous run ({}); {} crossed it</figcaption>{}</figure>",
        metric_title(h.metric),
        h.points.len(),
        from,
        crossed.len(),
        // No band to draw without a threshold.
        svg::history(&points, if t.is_finite() { t } else { 0.0 }, first, last, fmt)
    );
}

fn provenance(page: &mut String, runs: &[RunRecord]) {
    page.push_str(
        "<h2 id=\"provenance\">Provenance</h2><table class=\"sortable\" id=\"provenance-table\"><thead><tr>\
         <th>run</th><th class=\"text\">variant</th><th class=\"text\">started</th><th class=\"text\">commit</th>\
         <th class=\"text\">tool</th><th class=\"text\">rustc</th><th class=\"text\">valgrind</th>\
         <th class=\"text\">host</th><th class=\"text\">instruments</th><th>results</th></tr></thead><tbody>",
    );
    for r in runs {
        let h = &r.environment.host;
        let host = format!(
            "{} · {} cores · {} · {} · {}",
            h.cpu.as_deref().unwrap_or("unknown CPU"),
            h.cores,
            h.os.as_deref().unwrap_or("unknown OS"),
            h.kernel.as_deref().unwrap_or("unknown kernel"),
            h.arch
        );
        let _ = write!(
            page,
            "<tr><td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td>\
             <td class=\"text\">{} {} (library {}, {} {})</td><td class=\"text\">{}</td><td class=\"text\">{}</td>\
             <td class=\"text\">{}</td><td class=\"text\">{}</td><td data-v=\"{}\">{}</td></tr>",
            escape(&r.run_id),
            escape(&r.variant),
            escape(&r.started_at),
            escape(&git_label(r)),
            escape(&r.tool.name),
            escape(&r.tool.version),
            escape(&r.suite.library_version),
            escape(&r.suite.package),
            escape(&r.suite.bench),
            escape(r.environment.rustc.as_deref().unwrap_or("unknown")),
            escape(r.environment.valgrind.as_deref().unwrap_or("not used")),
            escape(&host),
            escape(&r.settings.instruments.join(", ")),
            r.results.len(),
            r.results.len()
        );
    }
    page.push_str("</tbody></table>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::testing::{
        noisy, record, scenario, with_failure, with_icount, with_walltime,
    };
    use crate::model::{Census, CensusKind, CensusSite};

    const INJECTED: &str = "<script>alert(1)</script>";

    fn page(runs: &[RunRecord], cmp: Option<&Comparison>, history: &[History]) -> String {
        render(&Input {
            runs,
            comparison: cmp,
            history,
            generated_at: "2026-01-01T00:00:00Z",
        })
    }

    fn point(run: &str, v: f64) -> SeriesPoint {
        SeriesPoint {
            run_id: run.into(),
            started_at: format!("2026-01-01T00:00:{run}Z"),
            commit: Some(format!("{run}</title>")),
            per_op: v,
        }
    }

    #[test]
    fn every_untrusted_string_shows_as_text() {
        let mut r = with_walltime(
            with_icount(scenario(INJECTED), 5.0),
            &noisy(10.0, 0.1, 20, 1),
        );
        r.unit = "\"&'".into();
        r.census = Some(Census {
            checks: 1,
            checks_per_op: 1.0,
            sites: 1,
            by_kind: vec![CensusKind {
                kind: "slice-index".into(),
                checks: 1,
                checks_per_op: 1.0,
                sites: 1,
            }],
            top_sites: vec![CensusSite {
                address: "0x1".into(),
                kind: "slice-index".into(),
                function: "<svg onload=alert(2)>".into(),
                file: Some("src/<i>.rs".into()),
                line: Some(3),
                inline_chain: vec![],
                executions: 1,
                per_op: 1.0,
            }],
        });
        let r = with_failure(r, "walltime", "<b>panicked</b>");
        let mut run = record("r1", vec![r]);
        run.variant = "<b>variant</b>".into();
        run.environment.git.as_mut().unwrap().branch = Some(INJECTED.into());
        run.environment.host.cpu = Some("<marquee>".into());
        let h = [History {
            id: INJECTED.into(),
            metric: Metric::Icount,
            points: vec![point("1", 5.0), point("2", 6.0)],
        }];
        let html = page(std::slice::from_ref(&run), None, &h);
        // The page's own script is the only script element, and no injected tag survives.
        assert_eq!(html.matches("<script").count(), 1, "{html}");
        for tag in ["<svg onload", "<b>", "<i>", "<marquee>", "1</title>"] {
            assert!(!html.contains(tag), "{tag} got through");
        }
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(html.contains("&quot;&amp;&#39;"));
        assert!(html.contains("&lt;svg onload=alert(2)&gt;"));
        assert!(html.contains("src/&lt;i&gt;.rs:3"));
        assert!(
            html.contains("commit 1&lt;/title&gt;"),
            "history tooltips escape commits"
        );
    }

    #[test]
    fn significant_changes_are_highlighted_and_both_distributions_drawn() {
        let run = |id: &str, slow: f64, seed: u64| {
            record(
                id,
                vec![
                    with_walltime(
                        with_icount(scenario("slower"), 1000.0 * slow),
                        &noisy(100.0 * slow, 0.01, 30, seed),
                    ),
                    with_walltime(
                        with_icount(scenario("same"), 500.0),
                        &noisy(50.0, 0.01, 30, seed + 1),
                    ),
                ],
            )
        };
        let runs = [run("base", 1.0, 1), run("cand", 1.2, 3)];
        assert_eq!(comparison_pair(&runs), Some((0, 1)));
        let cmp = compare::compare_with(
            &runs[0],
            &runs[1],
            &compare::CompareOptions::default(),
            &compare::noise::HistoricThresholds::default(),
        );
        let html = page(&runs, Some(&cmp), &[]);
        // The instruction count of "slower" regressed; its wall time (two separate runs, no
        // history of their noise) is not judged (issue 13): marked unresolved, not coloured,
        // with the reason and the evidence as the tooltip. "same" did not change.
        assert_eq!(
            html.matches("<td class=\"regression\"").count(),
            1,
            "{html}"
        );
        assert!(
            html.contains("<td class=\"regression\" data-v=\"20.000000000000004\"")
                || html.contains("<td class=\"regression\" data-v=\"20\"")
        );
        assert_eq!(
            html.matches("<td class=\"unresolved\"").count(),
            2,
            "{html}"
        );
        assert!(
            html.contains("title=\"unresolved: separate runs: not judged from within-run spread;"),
            "{html}"
        );
        assert!(html.contains("(separate runs, no history of between-run noise)\""));
        // With history's thresholds the same runs are judged, and "slower" is coloured.
        let mut h = compare::noise::HistoricThresholds::default();
        h.set("slower", Instrument::Walltime, 5.0, 20);
        h.set("same", Instrument::Walltime, 5.0, 20);
        let cmp =
            compare::compare_with(&runs[0], &runs[1], &compare::CompareOptions::default(), &h);
        let html = page(&runs, Some(&cmp), &[]);
        assert_eq!(
            html.matches("<td class=\"regression\"").count(),
            2,
            "{html}"
        );
        assert_eq!(html.matches("class=\"improvement\"").count(), 0);
        assert_eq!(
            html.matches(r#"data-chart="distribution" data-series="2""#)
                .count(),
            2
        );
        assert_eq!(html.matches("<th>Δ Ir</th>").count(), 1);
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
        let html = page(&runs, None, &[]);
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
        let mut points: Vec<SeriesPoint> = (0..12).map(|i| point(&i.to_string(), 100.0)).collect();
        points.push(point("12", 100.5));
        let h = History {
            id: "a".into(),
            metric: Metric::Icount,
            points,
        };
        // A count that never moved: the 0.01 % floor, so +0.5 % crosses it.
        assert_eq!(history_threshold(&h), (0.01, "learned from this history"));
        assert_eq!(crossings(&h.points, 0.01), [12]);
        let short = History {
            points: h.points[..3].to_vec(),
            ..h.clone()
        };
        assert_eq!(
            history_threshold(&short).0,
            compare::DEFAULT_ICOUNT_THRESHOLD_PCT
        );
        let run = record("r", vec![with_icount(scenario("a"), 100.5)]);
        let html = page(std::slice::from_ref(&run), None, &[h]);
        assert!(
            html.contains(
                r#"data-chart="history" data-series="1" data-points="13" data-crossed="1""#
            ),
            "{html}"
        );
        assert!(html.contains("band: ±0.01 % around the previous run"));
    }

    #[test]
    fn functions_behind_a_change_are_listed_with_generic_names_escaped() {
        let f = compare::functions::FunctionChanges {
            id: "a".into(),
            top: vec![compare::functions::FunctionDelta {
                name: "<alloc::vec::Vec<T> as core::ops::Drop>::drop".into(),
                base_self: 10.0,
                cand_self: 12.5,
                base_inclusive: 20.0,
                cand_inclusive: 19.0,
            }],
            unavailable: None,
            placement_note: None,
        };
        let mut page = String::new();
        function_changes(&mut page, &f);
        assert!(
            page.contains("<code>&lt;alloc::vec::Vec&lt;T&gt; as core::ops::Drop&gt;::drop</code>")
        );
        assert!(page.contains(r#"<td data-v="2.5">+2.500</td>"#), "{page}");
        assert!(page.contains(r#"<td data-v="-1">-1.000</td>"#), "{page}");
    }

    #[test]
    fn counters_and_memory_appear_where_measured() {
        use crate::model::{Allocations, CacheSim, Memory};
        let mut with = with_icount(scenario("counted"), 10.0);
        with.counters.cache = Some(CacheSim {
            simulated: true,
            totals: [("EstimatedCycles".to_string(), 40)].into(),
            per_op: [("EstimatedCycles".to_string(), 40.0)].into(),
            callgrind_out: "x".into(),
        });
        with.counters.memory = Some(Memory {
            allocator: "system".into(),
            allocations: Some(Allocations {
                allocs: 3,
                deallocs: 3,
                reallocs: 0,
                bytes_allocated: 96,
                peak_live_bytes: 64,
                allocs_per_op: 3.0,
                deallocs_per_op: 3.0,
                reallocs_per_op: 0.0,
                bytes_allocated_per_op: 96.0,
            }),
            not_counted: None,
            max_rss_kib: 2048,
        });
        let without = with_icount(scenario("plain"), 5.0);
        let run = record("r", vec![with, without]);
        let html = page(std::slice::from_ref(&run), None, &[]);
        for head in [
            "<th>est. cycles/op (sim)</th>",
            "<th>bytes alloc/op</th>",
            "<th>allocs/op</th>",
            "<th>max RSS KiB</th>",
        ] {
            assert!(html.contains(head), "{head}");
        }
        assert!(html.contains(r#"<td data-v="40">40.00</td>"#));
        assert!(html.contains(r#"<td data-v="2048">2048</td>"#));
        // Empty cells, which sort last: time and IQR of both, the four counters of "plain".
        assert_eq!(
            html.matches(r#"<td data-v="">–</td>"#).count(),
            2 * 2 + 4,
            "{html}"
        );
        assert!(html.contains("<td>EstimatedCycles</td>"));
        // Neither has wall time: no distribution chart, and no change columns without a baseline.
        assert!(!html.contains(r#"data-chart="distribution""#));
        assert!(!html.contains("<th>Δ Ir</th>"));
    }
}
