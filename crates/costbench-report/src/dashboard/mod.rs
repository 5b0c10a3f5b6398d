//! The dashboard of a branch's history (`costbench history dashboard`): one self-contained HTML
//! page that a CI job can publish as a static site. It shows a header with the history's size,
//! filters (id, metric, machine, variant), the change points newest first with where each was
//! found and why it moved, the drift of every series since a reference against its budget, and
//! one chart per series (id × metric × machine × variant) over the branch's runs with its
//! change points marked.
//!
//! Pure: [`render`] is a function of its [`DashboardInput`]. Reading the history, detecting
//! change points, explaining them and writing the file are the caller's. Nothing on the page is
//! fetched: the CSS and the script are inline, and the charts are drawn in the browser by the
//! script from the timeline embedded as compact JSON (`data`), so that a page of a thousand runs
//! of a hundred series stays about a megabyte rather than the tens of megabytes the same charts
//! would take as SVG. Text the page shows goes through the HTML report's
//! [`crate::html::escape::escape`]; the embedded JSON goes through
//! `data::script_json`, which keeps a string from closing its `<script>` element.
//!
//! Sections, one file each: `change_list` (the change points grouped by commit, and their
//! explanations) and `drift` (the drift table); `data` is the JSON the charts are drawn from;
//! `dashboard.js` draws them and applies the filters, `dashboard.css` styles what the HTML
//! report's stylesheet (shared, so that both pages look alike) does not.

mod change_list;
mod data;
mod drift;

/// What a change point's reader needs besides the change itself: the note `history changes`
/// prints is the one the dashboard shows (the dashboard does not read `fails`: a page has no
/// `--since`; it says whether a change is acknowledged).
pub use crate::changes::ChangeNote;

use crate::html::escape::escape;
use costbench_judge::changes::{ChangePoint, Drift};
use costbench_record::fmt::fmt_ir_grouped;
use costbench_record::history::{Metric, Timeline};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The HTML report's stylesheet and sortable tables, so the two pages look and behave alike;
/// the dashboard's own rules come after and add to them.
const REPORT_CSS: &str = include_str!("../html/report.css");
const REPORT_JS: &str = include_str!("../html/report.js");
const CSS: &str = include_str!("dashboard.css");
const JS: &str = include_str!("dashboard.js");

/// What the dashboard shows.
#[derive(Debug, Clone, Copy)]
pub struct DashboardInput<'a> {
    /// The page's title (the package and branch, say).
    pub title: &'a str,
    /// When the page was made (RFC 3339), for the header.
    pub generated_at: &'a str,
    /// The runs of the branch and every series they hold.
    pub timeline: &'a Timeline,
    /// The change points found in `timeline`.
    pub changes: &'a [ChangePoint],
    /// One note per change point, in the order of `changes`.
    pub notes: &'a [ChangeNote],
    /// The drift of each series since the reference (empty without a budget).
    pub drift: &'a [Drift],
    /// What drift is measured from, e.g. "v1.0 (abc123)"; `None`: the oldest run.
    pub reference: Option<&'a str>,
}

/// The whole page.
pub fn render(input: &DashboardInput) -> String {
    let t = input.timeline;
    let facts = Facts::of(t);
    // The stylesheets and scripts, then about ten bytes of JSON a point.
    let points: usize = t.series.iter().map(|s| s.points.len()).sum();
    let mut page = String::with_capacity(64 * 1024 + 10 * points);
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"generator\" content=\"costbench {}\">\
         <title>{}</title><style>{REPORT_CSS}{CSS}</style></head>\
         <body class=\"dashboard\" data-runs=\"{}\" data-series=\"{}\" data-changes=\"{}\">",
        env!("CARGO_PKG_VERSION"),
        escape(input.title),
        t.runs.len(),
        t.series.len(),
        input.changes.len(),
    );
    header(&mut page, input, &facts);
    filters(&mut page, t, &facts);
    page.push_str("<main>");
    change_list::section(&mut page, input, &facts);
    drift::section(&mut page, input, &facts);
    change_list::explanations(&mut page, input);
    charts(&mut page, t);
    page.push_str("</main>");
    let _ = write!(
        page,
        "<script type=\"application/json\" id=\"dashboard-data\">{}</script>",
        data::script_json(&data::json(input, &facts))
    );
    let _ = writeln!(page, "<script>{REPORT_JS}{JS}</script></body></html>");
    page
}

/// What the header counts, and the machines and variants the filters offer.
#[derive(Debug)]
struct Facts {
    commits: usize,
    /// The machines of the series, sorted.
    machines: Vec<String>,
    /// The variants of the series, sorted.
    variants: Vec<String>,
    /// The metrics of the series, in [`Metric::ALL`]'s order.
    metrics: Vec<Metric>,
}

impl Facts {
    fn of(t: &Timeline) -> Facts {
        let commits = t
            .runs
            .iter()
            .filter_map(|r| r.commit.as_deref())
            .collect::<BTreeSet<_>>()
            .len();
        let machines = t.series.iter().map(|s| s.machine.as_str());
        let variants = t.series.iter().map(|s| s.variant.as_str());
        Facts {
            commits,
            machines: machines
                .collect::<BTreeSet<_>>()
                .into_iter()
                .map(String::from)
                .collect(),
            variants: variants
                .collect::<BTreeSet<_>>()
                .into_iter()
                .map(String::from)
                .collect(),
            metrics: Metric::ALL
                .into_iter()
                .filter(|m| t.series.iter().any(|s| s.metric == *m))
                .collect(),
        }
    }

    /// Whether a series' machine must be named to tell it from another's.
    fn several_machines(&self) -> bool {
        self.machines.len() > 1
    }

    fn several_variants(&self) -> bool {
        self.variants.len() > 1
    }
}

/// What a figure of `metric` is counted in, per op unless the figure is of the whole run or
/// process.
fn unit(metric: Metric) -> &'static str {
    metric.spec().unit
}

/// A value of `metric` with its unit, in the digits the script's tooltips use too ("1,204 Ir/op",
/// "12.50 ns/op").
fn value(metric: Metric, v: f64) -> String {
    format!("{} {}", fmt_ir_grouped(v), unit(metric))
}

/// The first ten characters of a commit id, as the HTML report shortens them.
fn short(commit: &str) -> &str {
    &commit[..commit
        .char_indices()
        .nth(10)
        .map_or(commit.len(), |(i, _)| i)]
}

/// The date of an RFC 3339 time stamp ("2026-01-05").
fn day(stamp: &str) -> &str {
    &stamp[..stamp.char_indices().nth(10).map_or(stamp.len(), |(i, _)| i)]
}

fn header(page: &mut String, input: &DashboardInput, facts: &Facts) {
    let t = input.timeline;
    let over = input.drift.iter().filter(|d| d.over_budget).count();
    let _ = write!(
        page,
        "<header class=\"top\"><h1>{}</h1><p>generated {} · runs in branch order (first-parent position)</p><dl class=\"stats\">",
        escape(input.title),
        escape(input.generated_at)
    );
    let mut stat = |n: usize, what: &str, id: &str| {
        let _ = write!(
            page,
            "<div data-stat=\"{id}\"><dt>{what}</dt><dd>{}</dd></div>",
            crate::budget::thousands(n as u64)
        );
    };
    stat(t.runs.len(), "runs", "runs");
    stat(facts.commits, "commits", "commits");
    stat(t.series.len(), "series", "series");
    stat(facts.machines.len(), "machines", "machines");
    stat(input.changes.len(), "change points", "changes");
    if !input.drift.is_empty() {
        stat(over, "over drift budget", "over-budget");
    }
    page.push_str("</dl></header>");
}

/// The filter bar: the script hides the charts, change points and drift rows of the series
/// that do not match. Option values are indices into the embedded data's lists.
fn filters(page: &mut String, t: &Timeline, facts: &Facts) {
    page.push_str(
        "<nav class=\"filters\"><a href=\"#changes\">Changes</a><a href=\"#drift\">Drift</a>\
         <a href=\"#charts\">Charts</a>\
         <label>id <input id=\"f-id\" type=\"search\" placeholder=\"part of a scenario id\" autocomplete=\"off\"></label>\
         <label>metric <select id=\"f-metric\"><option value=\"\">all</option>",
    );
    for (i, m) in facts.metrics.iter().enumerate() {
        let _ = write!(page, "<option value=\"{i}\">{}</option>", m.as_str());
    }
    page.push_str(
        "</select></label><label>machine <select id=\"f-machine\"><option value=\"\">all</option>",
    );
    for (i, m) in facts.machines.iter().enumerate() {
        let _ = write!(page, "<option value=\"{i}\">{}</option>", escape(m));
    }
    page.push_str("</select></label>");
    if facts.several_variants() {
        page.push_str("<label>variant <select id=\"f-variant\"><option value=\"\">all</option>");
        for (i, v) in facts.variants.iter().enumerate() {
            let _ = write!(page, "<option value=\"{i}\">{}</option>", escape(v));
        }
        page.push_str("</select></label>");
    }
    let _ = write!(
        page,
        "<label><input id=\"f-changed\" type=\"checkbox\"> only series with change points</label>\
         <span id=\"f-count\" class=\"note\">{n} of {n} series</span></nav>",
        n = t.series.len()
    );
}

fn charts(page: &mut String, t: &Timeline) {
    let _ = write!(
        page,
        "<h2 id=\"charts\">Series</h2><p class=\"note legend\">One chart per id, metric, machine \
         and variant; x: the branch's runs, oldest left, labelled by commit and author date \
         (hover a chart for each run's commit and value); y: the metric per op. \
         <span class=\"key measured\"></span> measured \
         <span class=\"key carried\"></span> carried over from an earlier commit whose build was \
         the same (not measured again) \
         <span class=\"key up\"></span> change point up \
         <span class=\"key down\"></span> change point down \
         <span class=\"key ack\"></span> acknowledged; a shaded span: not narrowed to one \
         commit. A marker links to its change point.</p>\
         <div class=\"charts\" id=\"charts-grid\" data-total=\"{}\"></div>\
         <noscript><p class=\"note\">The charts are drawn by the page's script, which is \
         off.</p></noscript><div id=\"tooltip\" role=\"tooltip\" hidden></div>",
        t.series.len()
    );
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use costbench_judge::changes::{self, Method};
    use costbench_record::history::TimelineRun;

    const INJECTED: &str = "a<b>&\"c'</script><script>alert(1)</script>";

    /// A date for the `days`-th run: one a day, in months of 28 days (a real calendar is not
    /// what these tests are about).
    fn date(days: usize) -> String {
        let (y, m, d) = (2023 + days / 336, 1 + days / 28 % 12, 1 + days % 28);
        format!("{y:04}-{m:02}-{d:02}")
    }

    /// A branch of `commits` commits, each measured once on one machine (every seventh carried
    /// over from the commit before), with `ids` scenarios' instruction counts and wall times
    /// (±0.5 % noise); at two thirds of the way the instruction count of every fifth scenario
    /// steps up by 10 % and the wall time of every seventh from the fourth on by 8 %. The change
    /// points and drift are found by `costbench_judge::changes` itself.
    pub(crate) fn branch(
        commits: usize,
        ids: usize,
    ) -> (Timeline, Vec<ChangePoint>, Vec<ChangeNote>, Vec<Drift>) {
        // Commit ids that differ in their first characters, as real ones do.
        let sha = |i: usize| {
            let h = (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            format!("{h:016x}{:016x}{:08x}", h.rotate_left(17), i)
        };
        let runs: Vec<TimelineRun> = (0..commits)
            .map(|i| TimelineRun {
                run_id: format!("run-{i:05}"),
                started_at: format!("{}T12:00:00Z", date(i)),
                commit: Some(sha(i)),
                parent: (i > 0).then(|| sha(i - 1)),
                position: Some(i as u64 + 1),
                author_date: Some(format!("{}T10:00:00+01:00", date(i))),
                subject: Some(format!("Change number {i}")),
                machine: "Example CPU (2 cores, x86_64, Linux)".into(),
                variant: "release".into(),
                carried_from: (i % 7 == 3).then(|| sha(i - 1)),
            })
            .collect();
        let step_at = commits * 2 / 3;
        let mut values = Vec::new();
        for (i, r) in runs.iter().enumerate() {
            for k in 0..ids {
                let id = format!("group/scenario-{k:02}");
                let base = 1000.0 * (k + 1) as f64;
                // A carried-over run repeats the figures of the commit it was carried from.
                let measured = if r.carried_from.is_some() { i - 1 } else { i };
                let ir = if k % 5 == 0 && measured >= step_at {
                    base * 1.1
                } else {
                    base
                };
                let noise = ((measured * 7919 + k * 104_729) % 97) as f64 / 97.0 - 0.5;
                let slower = if k % 7 == 3 && measured >= step_at {
                    1.08
                } else {
                    1.0
                };
                let ns = base / 3.0 * slower * (1.0 + 0.01 * noise);
                values.push((r.run_id.clone(), id.clone(), Metric::Icount, ir, 1000));
                values.push((r.run_id.clone(), id, Metric::Walltime, ns, 1000));
            }
        }
        let timeline = Timeline::assemble(runs, values);
        let opts = changes::Options {
            exact_tolerance: |_| 2.0,
            alpha: 0.001,
            min_segment: 5,
            min_change_pct: 2.0,
        };
        let found = changes::detect(&timeline, &opts);
        let notes = found
            .iter()
            .enumerate()
            .map(|(i, _)| ChangeNote {
                exact_commit: i % 2 == 0,
                acknowledged: (i == 1).then(|| "expected: new hashing".to_string()),
                explanation: Some(format!("own cost moved:\n  hash::mix +{i}00 Ir/op")),
                ..Default::default()
            })
            .collect();
        let drift = changes::drift(&timeline, 0, 5.0, 5);
        (timeline, found, notes, drift)
    }

    fn page_of(
        t: &Timeline,
        c: &[ChangePoint],
        n: &[ChangeNote],
        d: &[Drift],
        reference: Option<&str>,
    ) -> String {
        render(&DashboardInput {
            title: "costbench: suite / main",
            generated_at: "2026-02-01T00:00:00Z",
            timeline: t,
            changes: c,
            notes: n,
            drift: d,
            reference,
        })
    }

    /// The embedded data of a page, parsed as the script parses it.
    pub(crate) fn embedded(page: &str) -> serde_json::Value {
        let open = "<script type=\"application/json\" id=\"dashboard-data\">";
        let start = page.find(open).expect("data element") + open.len();
        let end = start + page[start..].find("</script>").expect("closed");
        serde_json::from_str(&page[start..end]).expect("the embedded data is JSON")
    }

    #[test]
    fn the_page_holds_every_run_series_and_change() {
        let (t, c, n, d) = branch(50, 35);
        assert!(c.len() >= 7, "a step in every fifth scenario: {c:?}");
        let page = page_of(&t, &c, &n, &d, Some("v1.0 (abc123)"));
        let body = format!(
            "<body class=\"dashboard\" data-runs=\"50\" data-series=\"70\" data-changes=\"{}\">",
            c.len()
        );
        assert!(page.contains(&body), "{}", &page[..2000.min(page.len())]);
        let data = embedded(&page);
        assert_eq!(data["schema"], "costbench-dashboard");
        assert_eq!(data["runs"].as_array().unwrap().len(), 50);
        let series = data["series"].as_array().unwrap();
        assert_eq!(series.len(), 70);
        for (s, want) in series.iter().zip(&t.series) {
            assert_eq!(s[0], want.id.as_str());
            assert_eq!(s[5].as_array().unwrap().len(), want.points.len());
        }
        assert_eq!(data["changes"].as_array().unwrap().len(), c.len());
        // Every change point has its row, and every explained one its block.
        for i in 0..c.len() {
            assert!(page.contains(&format!("id=\"change-{i}\"")), "change {i}");
            assert!(page.contains(&format!("id=\"explain-{i}\"")), "explain {i}");
        }
        assert!(page.contains("Drift since v1.0 (abc123)"));
        // Nothing from elsewhere: no external script, style, font or image.
        for external in ["src=", "<link", "@import", "url(", "http://", "https://"] {
            let shown = page.replace("http://www.w3.org/2000/svg", "");
            assert!(!shown.contains(external), "{external}");
        }
    }

    #[test]
    fn untrusted_strings_cannot_break_the_page() {
        let (mut t, c, mut n, d) = branch(12, 5);
        for s in &mut t.series {
            s.id = format!("{INJECTED}{}", s.id);
        }
        for r in &mut t.runs {
            r.subject = Some(INJECTED.into());
            r.machine = INJECTED.into();
            r.commit = r.commit.take().map(|c| format!("</script>{c}"));
        }
        t.series[0].machine = INJECTED.into();
        for note in &mut n {
            note.explanation = Some(format!("{INJECTED}\nline two <img src=x onerror=alert(2)>"));
            note.acknowledged = Some(INJECTED.into());
        }
        assert!(!c.is_empty());
        let page = page_of(&t, &c, &n, &d, Some(INJECTED));
        // The two scripts of the page are the only ones, and the data element closes where the
        // page closes it.
        assert_eq!(page.matches("<script").count(), 2, "{page}");
        assert_eq!(page.matches("</script>").count(), 2);
        for tag in ["<b>", "<img", "alert(1)</script>"] {
            assert!(!page.contains(tag), "{tag} got through");
        }
        assert!(page.contains("a&lt;b&gt;&amp;&quot;c&#39;&lt;/script&gt;"));
        assert!(page.contains("line two &lt;img src=x onerror=alert(2)&gt;"));
        // The data gives the strings back exactly.
        let data = embedded(&page);
        assert_eq!(
            data["series"][0][0].as_str().unwrap(),
            t.series[0].id.as_str()
        );
        assert_eq!(data["runs"][0][1].as_str().unwrap(), INJECTED);
        assert!(data["machines"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m == INJECTED));
    }

    #[test]
    fn an_empty_history_is_a_page_that_says_so() {
        let t = Timeline::default();
        let page = page_of(&t, &[], &[], &[], None);
        assert!(page.contains("data-series=\"0\" data-changes=\"0\""));
        assert!(page.contains("No change points"));
        assert_eq!(embedded(&page)["series"].as_array().unwrap().len(), 0);
    }

    #[test]
    fn units_and_values() {
        assert_eq!(date(0), "2023-01-01");
        assert_eq!(date(59), "2023-03-04");
        assert_eq!(date(336 + 27), "2024-01-28");
        assert_eq!(value(Metric::Icount, 12345.4), "12,345 Ir/op");
        assert_eq!(value(Metric::Walltime, 12.5), "12.50 ns/op");
        assert_eq!(short("0123456789abcdef"), "0123456789");
        assert_eq!(short("abc"), "abc");
        assert_eq!(day("2026-01-05T10:00:00+01:00"), "2026-01-05");
        assert_eq!(Method::of(Metric::Walltime), Method::TTest);
    }

    /// Not a check: writes a page of `COSTBENCH_DASHBOARD_RUNS` runs (default 50) of
    /// `COSTBENCH_DASHBOARD_IDS` scenarios (default 35) to the file `COSTBENCH_DASHBOARD_SAMPLE`
    /// names, and says how big it is and how long rendering took, to look at in a browser:
    /// `COSTBENCH_DASHBOARD_SAMPLE=/tmp/d.html cargo test -p costbench-report sample_page --
    /// --ignored --nocapture`.
    #[test]
    #[ignore = "writes a sample page for a person to look at"]
    fn sample_page() {
        let Some(path) = std::env::var_os("COSTBENCH_DASHBOARD_SAMPLE") else {
            return;
        };
        let num = |k: &str, default: usize| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        };
        let runs = num("COSTBENCH_DASHBOARD_RUNS", 50);
        let ids = num("COSTBENCH_DASHBOARD_IDS", 35);
        let (t, c, n, d) = branch(runs, ids);
        let started = std::time::Instant::now();
        let page = page_of(&t, &c, &n, &d, Some("v1.0 (c0ffee1234)"));
        let took = started.elapsed();
        std::fs::write(&path, &page).unwrap();
        println!(
            "{runs} runs × {ids} ids ({} series, {} change points): {} bytes, rendered in {took:?}",
            t.series.len(),
            c.len(),
            page.len()
        );
    }
}
