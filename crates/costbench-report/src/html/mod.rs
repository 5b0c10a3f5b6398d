//! The HTML report: one self-contained page (inline CSS, a few lines of inline JavaScript for
//! sortable tables, charts as inline SVG; nothing fetched from anywhere) built from run records,
//! an optional comparison and history series.
//!
//! Pure: [`render`] is a function of its [`Input`]. Choosing which runs to compare, judging them
//! and the history series, reading runs, querying the history and writing the file belong to
//! the caller (`costbench_cli::core::page`); this module and its sections only render. Every string
//! that did not come from this module goes through [`escape::escape`], and none is ever put
//! inside a script.
//!
//! This file assembles the page and holds the cells every section shares. Sections, one file
//! each: `overview` (every measured id's per-op figures, changes against the baseline coloured
//! when significant), `variants` (a heat map when the runs are of several variants),
//! `contracts` (budgets, declared classes, the bench binary's size and build time, the
//! log-log plots of the complexity fits; only for runs that carry any of them), `scenario`
//! (one section per measured id: the slices' facts, the changes of its figures, the slices'
//! charts and tables, failures, history charts) and `provenance` (where every run came
//! from); `history_chart` is the history chart with its caption that the scenario and contracts
//! sections share. The instruments' sections of their own are their slices'
//! (`crate::instrument`): those drawn from the run shown, after the overview, and those drawn
//! from every build, after the contracts.

mod contracts;
pub mod escape;
pub(crate) mod explain;
mod history_chart;
mod overview;
mod provenance;
mod scenario;
pub mod svg;
mod variants;

use costbench_judge::compare::{self, Comparison, Verdict};
use costbench_record::fmt::{fmt_change, fmt_js_number};
use costbench_record::history::{Metric, SeriesPoint};
use costbench_record::instrument::Figure;
use costbench_record::model::RunRecord;
use escape::escape;
use overview::overview;
use provenance::provenance;
use scenario::{scenario, Changes};
use std::collections::HashMap;
use std::fmt::Write as _;
use variants::variants_section;

const CSS: &str = include_str!("report.css");
const JS: &str = include_str!("report.js");

/// One measured id's series of one metric over recorded runs, oldest first, judged.
#[derive(Debug, Clone)]
pub struct History {
    /// The measured id.
    pub id: String,
    /// The metric the series follows.
    pub metric: Metric,
    /// The recorded values, oldest first.
    pub points: Vec<SeriesPoint>,
    /// The band around the previous point a change must leave to count, in percent (infinite:
    /// no band, nothing crosses it).
    pub threshold_pct: f64,
    /// Where the threshold came from, in a few words for the caption.
    pub threshold_from: &'static str,
    /// Indices of the points whose change from the previous point is beyond the threshold.
    pub crossed: Vec<usize>,
}

/// One column of the variants matrix: the last run of a variant and its comparison against the
/// baseline variant's run (the first column, compared with itself).
#[derive(Debug)]
pub struct VariantRun<'a> {
    /// The variant's last run.
    pub run: &'a RunRecord,
    /// That run against the baseline variant's.
    pub comparison: Comparison,
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
    /// The variants matrix, baseline variant first; empty unless the runs are of at least two
    /// variants.
    pub variants: &'a [VariantRun<'a>],
    /// Series for the history charts, any order.
    pub history: &'a [History],
    /// When the report was made (RFC 3339), for the header.
    pub generated_at: &'a str,
}

/// The page of `runs` with `comparison`, `variants` and `history`, made at a fixed time: what
/// the tests of the page and of its parts render.
#[cfg(test)]
pub(crate) fn test_page(
    runs: &[RunRecord],
    comparison: Option<&Comparison>,
    variants: &[VariantRun],
    history: &[History],
) -> String {
    render(&Input {
        runs,
        comparison,
        variants,
        history,
        generated_at: "2026-01-01T00:00:00Z",
    })
}

/// The first ten characters of a commit hash.
pub(super) fn short_commit(c: &str) -> &str {
    &c[..c.char_indices().nth(10).map_or(c.len(), |(i, _)| i)]
}

/// "commit 0123456789+ on main" for a run, unescaped.
pub(super) fn git_label(run: &RunRecord) -> String {
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
    let rows: HashMap<(&str, Figure), &compare::Row> = input
        .comparison
        .map(|c| {
            c.rows
                .iter()
                .map(|r| ((r.id.as_str(), r.instrument), r))
                .collect()
        })
        .unwrap_or_default();
    let variants = input.variants;
    // The builds the slices' sections of every build draw, and which of them is `main`: every
    // variant of a matrix, else the baseline and candidate of a comparison, else the run shown.
    let builds: Vec<crate::instrument::Build> = if !variants.is_empty() {
        variants
            .iter()
            .map(|v| (v.run.variant.clone(), v.run))
            .collect()
    } else if let Some(b) = base.filter(|b| !std::ptr::eq(*b, main)) {
        vec![("baseline".into(), b), ("candidate".into(), main)]
    } else {
        vec![(main.variant.clone(), main)]
    };
    let shown = builds
        .iter()
        .position(|(_, r)| std::ptr::eq(*r, main))
        .unwrap_or(builds.len() - 1);
    let build_sections = crate::instrument::builds_html(&builds);
    // The contracts section's runs: every variant, else the baseline and the candidate, else
    // the run shown; the changes of growth judged between the first and the last of a
    // comparison, as `check` judges them.
    let sides: Vec<(&str, &RunRecord)> = if !variants.is_empty() {
        variants
            .iter()
            .map(|v| (v.run.variant.as_str(), v.run))
            .collect()
    } else if let Some(b) = base.filter(|b| !std::ptr::eq(*b, main)) {
        vec![("baseline", b), ("candidate", main)]
    } else {
        vec![(main.variant.as_str(), main)]
    };
    // The history of the shown run's own metrics (binary size, build time), under `bench:NAME`.
    let run_history: Vec<&History> = input
        .history
        .iter()
        .filter(|h| Metric::RUN.contains(&h.metric) && h.id == Metric::run_id(main))
        .collect();
    let contracts = contracts::any(&sides) || !run_history.is_empty();
    let growth_changes = match base.filter(|b| !std::ptr::eq(*b, main)) {
        Some(b) if contracts && variants.is_empty() => costbench_judge::complexity::changes(
            b,
            main,
            costbench_judge::complexity::DEFAULT_EXPONENT_TOLERANCE,
        ),
        _ => Vec::new(),
    };
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
    // A run that did not finish is said before anything drawn from it.
    for r in input.runs {
        if let Some(note) = r.unfinished_note() {
            let _ = write!(
                page,
                "<p class=\"unfinished\" role=\"alert\"><strong>Unfinished:</strong> {}</p>",
                escape(&note)
            );
        }
    }
    page.push_str("<nav><a href=\"#overview\">Overview</a>");
    if !variants.is_empty() {
        page.push_str("<a href=\"#variants\">Variants</a>");
    }
    if contracts {
        page.push_str("<a href=\"#contracts\">Contracts</a>");
    }
    for s in &build_sections {
        let _ = write!(page, "<a href=\"#{}\">{}</a>", s.anchor, s.title);
    }
    let sections = crate::instrument::run_html(main);
    for (s, _) in sections.iter().filter(|(_, linked)| *linked) {
        let _ = write!(page, "<a href=\"#{}\">{}</a>", s.anchor, s.title);
    }
    page.push_str(
        "<a href=\"#scenarios\">Scenarios</a><a href=\"#provenance\">Provenance</a></nav><main>",
    );
    overview(&mut page, main, input.comparison, &rows);
    for (s, _) in &sections {
        (s.section)(&mut page, main);
    }
    if !variants.is_empty() {
        variants_section(&mut page, variants);
    }
    if contracts {
        contracts::contracts_section(&mut page, &sides, &growth_changes, &run_history);
    }
    for s in &build_sections {
        (s.section)(&mut page, &builds, shown, &rows);
    }
    page.push_str("<h2 id=\"scenarios\">Scenarios</h2>");
    let mut history: HashMap<&str, Vec<&History>> = HashMap::new();
    for h in input.history {
        history.entry(h.id.as_str()).or_default().push(h);
    }
    // Rows of a slice's own have none of a scenario section's figures: its sections show them.
    for (k, r) in main.results.iter().enumerate() {
        if crate::instrument::own_row(r) {
            continue;
        }
        let base_result = base.and_then(|b| b.results.iter().find(|x| x.id == r.id));
        let functions = input
            .comparison
            .and_then(|c| c.functions.iter().find(|f| f.id == r.id));
        let asm = input
            .comparison
            .map(|c| c.asm.iter().filter(|d| d.id == r.id).collect())
            .unwrap_or_default();
        let flame = input
            .comparison
            .and_then(|c| c.flames.iter().find(|d| d.id == r.id));
        scenario(
            &mut page,
            k,
            main,
            r,
            base.zip(base_result),
            Changes {
                rows: &rows,
                functions,
                comparison: input.comparison,
                asm,
                flame,
            },
            history.get(r.id.as_str()).map_or(&[][..], |v| &v[..]),
        );
    }
    provenance(&mut page, input.runs);
    let _ = writeln!(page, "</main><script>{JS}</script></body></html>");
    page
}

/// A figure cell with its sort key.
pub(crate) fn cell(v: Option<f64>, fmt: impl Fn(f64) -> String) -> String {
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
pub(super) fn change_cell(row: Option<&&compare::Row>) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_judge::testing::{noisy, one_slower};
    use costbench_record::model::{Census, CensusKind, CensusSite};
    use costbench_record::testing::{
        record, scenario, series_point, with_failure, with_icount, with_walltime,
    };

    const INJECTED: &str = "<script>alert(1)</script>";

    fn page(runs: &[RunRecord], cmp: Option<&Comparison>, history: &[History]) -> String {
        test_page(runs, cmp, &[], history)
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
        // Judged as `costbench_cli::core::page::judged_history` judges two points: too short to learn a
        // threshold, so the default one, which the +20 % change crosses.
        let h = [History {
            id: INJECTED.into(),
            metric: Metric::Icount,
            points: vec![series_point("1", 5.0), series_point("2", 6.0)],
            threshold_pct: compare::DEFAULT_ICOUNT_THRESHOLD_PCT,
            threshold_from: "default; history too short to learn one",
            crossed: vec![1],
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

    /// Issue 27: the flame graph of a flagged scenario sits in its own section, collapsed; a
    /// scenario whose profiles had no tree says why; the others have none.
    #[test]
    fn flagged_scenarios_get_their_differential_flame_graph() {
        use compare::flame::{FlameDiff, FlameFrame};
        let runs = [
            record(
                "base",
                vec![
                    with_icount(scenario("slower"), 1000.0),
                    with_icount(scenario("gone"), 5.0),
                    with_icount(scenario("same"), 500.0),
                ],
            ),
            record(
                "cand",
                vec![
                    with_icount(scenario("slower"), 1200.0),
                    with_icount(scenario("gone"), 6.0),
                    with_icount(scenario("same"), 500.0),
                ],
            ),
        ];
        let mut cmp = compare::compare_with(
            &runs[0],
            &runs[1],
            &compare::CompareOptions::default(),
            &compare::noise::HistoricThresholds::default(),
        );
        let frame = |name: &str, depth, base: f64, cand: f64| FlameFrame {
            name: name.into(),
            depth,
            base,
            cand,
            base_self: if depth == 0 { 0.0 } else { base },
            cand_self: if depth == 0 { 0.0 } else { cand },
        };
        cmp.flames = vec![
            FlameDiff {
                id: "slower".into(),
                frames: vec![
                    frame(compare::flame::ROOT, 0, 1000.0, 1200.0),
                    frame("<T as work>::run", 1, 1000.0, 1200.0),
                ],
                unavailable: None,
            },
            FlameDiff {
                id: "gone".into(),
                frames: Vec::new(),
                unavailable: Some(
                    "the baseline's callgrind profile has no costbench_measured_region".into(),
                ),
            },
        ];
        let html = page(&runs, Some(&cmp), &[]);
        assert_eq!(
            html.matches("<details class=\"flame\">").count(),
            1,
            "{html}"
        );
        assert_eq!(html.matches(r#"data-chart="flame""#).count(), 1);
        let section = |id: &str| {
            let start = html.find(&format!("data-scenario=\"{id}\"")).unwrap();
            let end = start + html[start..].find("</section>").unwrap();
            &html[start..end]
        };
        let slower = section("slower");
        assert!(
            slower.contains(r#"data-chart="flame" data-series="2" data-frames="2""#),
            "{slower}"
        );
        assert!(
            slower.contains(
                "&lt;T as work&gt;::run\ninclusive per op: 1000 → 1200 (+200.00, +20.00 %)"
            ),
            "{slower}"
        );
        assert!(section("gone")
            .contains("differential flame graph: the baseline&#39;s callgrind profile has no"));
        assert!(!section("same").contains("flame"));
    }

    #[test]
    fn significant_changes_are_highlighted_and_both_distributions_drawn() {
        let runs = [one_slower("base", 1.0, 1), one_slower("cand", 1.2, 3)];
        // `costbench_cli::core::page::comparison_pair` picks these two (tested there).
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
        h.set("slower", Figure::Walltime, 5.0, 20);
        h.set("same", Figure::Walltime, 5.0, 20);
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

    /// The overview and the scenario sections of the run of every figure (the hardware
    /// counters among them, which no end-to-end run on a machine without them shows), one tag a
    /// line.
    #[test]
    fn every_figure_in_the_overview_and_the_scenario_sections() {
        let run = costbench_record::testing::every_figure();
        let html = page(std::slice::from_ref(&run), None, &[]);
        let start = html
            .find("<table class=\"sortable\" id=\"overview-table\">")
            .unwrap();
        let end = start + html[start..].find("</table>").unwrap();
        let mut shown = html[start..end].to_string();
        let mut rest = &html[end..];
        while let Some(start) = rest.find("<section class=\"scenario\"") {
            let end = start + rest[start..].find("</section>").unwrap();
            shown.push_str(&rest[start..end]);
            rest = &rest[end..];
        }
        costbench_record::testing::assert_snapshot!(
            "html_every_figure",
            &shown.replace("><", ">\n<")
        );
    }
}
