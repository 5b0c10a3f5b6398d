//! The HTML page's throughput section: one part per service scenario measured under load (the
//! rows `SCENARIO@Nc` of `--instrument throughput`), with a latency percentile chart (one line
//! per number of clients and build) and a table of ops per second and latency per number of
//! clients. Renders only: which runs are the builds (the baseline and candidate of a comparison,
//! the variants of a matrix, or the one run shown) is decided by the page (`html/mod.rs`).

use super::{fmt_rate, is_load_row, load_label};
use crate::html::escape::escape;
use crate::html::{cell, svg};
use crate::instrument::{Build, ChangeRows};
use costbench_record::fmt::{fmt_change, fmt_confidence, fmt_ns};
use costbench_record::instrument::Figure;
use costbench_record::model::ScenarioResult;
use std::fmt::Write as _;

/// Whether any of `builds` has a throughput row: the page then has the section.
pub(super) fn any(builds: &[Build]) -> bool {
    builds
        .iter()
        .any(|(_, run)| run.results.iter().any(is_load_row))
}

/// "1 client", "4 clients".
fn clients_label(n: u32) -> String {
    format!("{n} client{}", if n == 1 { "" } else { "s" })
}

/// The section of `builds`, of which `builds[shown]` is the run the page shows: service
/// scenarios in the order the shown run lists them, then those only other builds measured.
/// `changes`: the comparison's rows by id and instrument; whatever it judged of a load is listed
/// under the scenario's table, as a scenario section lists its changes.
pub(super) fn section(page: &mut String, builds: &[Build], shown: usize, changes: &ChangeRows) {
    let mut scenarios: Vec<&str> = Vec::new();
    let order = std::iter::once(shown).chain((0..builds.len()).filter(|b| *b != shown));
    for (_, run) in order.filter_map(|b| builds.get(b)) {
        for r in run.results.iter().filter(|r| is_load_row(r)) {
            if !scenarios.contains(&r.scenario.as_str()) {
                scenarios.push(&r.scenario);
            }
        }
    }
    page.push_str(
        "<h2 id=\"throughput\">Throughput</h2><p>Service scenarios under load: a server and its \
         clients over loopback TCP, each client sending its next request when the last reply \
         arrived (closed loop) or when it is due at the rate asked for (open loop; latency then \
         counts from when the request was due). Operations per second of all clients together; \
         latency per request. The interval after a figure is where a repeat run of that build on \
         this machine is expected to land, from the spread of its rounds.</p>",
    );
    let many = builds.len() > 1;
    for (j, name) in scenarios.iter().enumerate() {
        // (build index, row), by number of clients, then build.
        let mut rows: Vec<(usize, &ScenarioResult)> = builds
            .iter()
            .enumerate()
            .flat_map(|(b, (_, run))| {
                run.results
                    .iter()
                    .filter(|r| is_load_row(r) && r.scenario == *name)
                    .map(move |r| (b, r))
            })
            .collect();
        rows.sort_by_key(|(b, r)| (r.clients, *b));
        let mut clients: Vec<u32> = rows.iter().filter_map(|(_, r)| r.clients).collect();
        clients.dedup();
        let label = |b: usize, r: &ScenarioResult| {
            let c = clients_label(r.clients.unwrap_or(0));
            if many {
                format!("{c} · {}", builds[b].0)
            } else {
                c
            }
        };
        let labels: Vec<String> = rows.iter().map(|(b, r)| label(*b, r)).collect();
        let lines: Vec<svg::PercentileLine> = rows
            .iter()
            .zip(&labels)
            .filter_map(|((b, r), l)| {
                let t = r.throughput.as_ref()?;
                Some(svg::PercentileLine {
                    label: l,
                    points: &t.percentiles,
                    colour: clients.iter().position(|c| Some(*c) == r.clients)?,
                    // The shown run solid, the others dashed or dotted, in build order.
                    dash: match (*b).cmp(&shown) {
                        std::cmp::Ordering::Equal => 0,
                        std::cmp::Ordering::Less => b + 1,
                        std::cmp::Ordering::Greater => *b,
                    },
                })
            })
            .collect();
        let unit = rows.first().map_or("", |(_, r)| r.unit.as_str());
        let _ = write!(
            page,
            "<section class=\"scenario throughput\" id=\"t-{j}\" data-scenario=\"{}\"><h3>{}</h3>\
             <p class=\"note\">op: {} · {}</p>",
            escape(name),
            escape(name),
            escape(unit),
            escape(&settings(&rows)),
        );
        if !lines.is_empty() {
            let _ = write!(
                page,
                "<figure><figcaption>Latency by percentile, one line per number of clients{}: \
                 each further nine of the percentile (90 %, 99 %, 99.9 %) equally wide, so that \
                 the tail gets most of the chart; the maximum at the right edge</figcaption>{}</figure>",
                if many { " and build (the shown run solid)" } else { "" },
                svg::percentiles(&lines)
            );
        }
        page.push_str("<table class=\"sortable load\"><thead><tr>");
        if many {
            page.push_str("<th class=\"text\">build</th>");
        }
        page.push_str(
            "<th>clients</th><th>ops/s</th><th>ops/s interval</th><th>p50</th><th>p99</th>\
             <th>p99 interval</th><th>p99.9</th><th>max</th><th class=\"text\">load</th></tr></thead><tbody>",
        );
        for (b, r) in &rows {
            page.push_str("<tr>");
            if many {
                let _ = write!(page, "<td class=\"text\">{}</td>", escape(&builds[*b].0));
            }
            page.push_str(&cell(r.clients.map(f64::from), |v| format!("{v:.0}")));
            match &r.throughput {
                Some(t) if r.failures.is_empty() => {
                    let interval = |i: Option<costbench_record::model::Interval>,
                                    f: fn(f64) -> String| {
                        i.map_or("<td data-v=\"\">–</td>".to_string(), |i| {
                            format!(
                                "<td data-v=\"{}\">{}</td>",
                                costbench_record::fmt::fmt_js_number(i.low),
                                escape(&format!("{} – {}", f(i.low), f(i.high)))
                            )
                        })
                    };
                    let l = &t.latency;
                    page.push_str(&cell(Some(t.ops_per_sec), fmt_rate));
                    page.push_str(&interval(t.ops_per_sec_repeat, fmt_rate));
                    page.push_str(&cell(Some(l.p50_ns), fmt_ns));
                    page.push_str(&cell(Some(l.p99_ns), fmt_ns));
                    page.push_str(&interval(t.p99_repeat, fmt_ns));
                    page.push_str(&cell(Some(l.p999_ns), fmt_ns));
                    page.push_str(&cell(Some(l.max_ns), fmt_ns));
                    let _ = write!(page, "<td class=\"text\">{}</td>", escape(&load_label(t)));
                }
                _ => {
                    let what: Vec<String> = r
                        .failures
                        .iter()
                        .map(|f| format!("{} {}: {}", f.instrument, f.kind, f.message))
                        .collect();
                    let text = if what.is_empty() {
                        "not measured".to_string()
                    } else {
                        format!("failed: {}", what.join("; "))
                    };
                    let _ = write!(
                        page,
                        "<td class=\"text failed\" colspan=\"8\">{}</td>",
                        escape(&text)
                    );
                }
            }
            page.push_str("</tr>");
        }
        page.push_str("</tbody></table>");
        for (_, r) in rows.iter().filter(|(b, _)| *b == shown) {
            for inst in Figure::ALL {
                if let Some(row) = changes.get(&(r.id.as_str(), inst)) {
                    let _ = write!(
                        page,
                        "<p class=\"note\">{}</p>",
                        escape(&format!(
                            "{}: {} change {} ({}, {}; evidence: {})",
                            r.id,
                            inst.name(),
                            fmt_change(row.change_pct),
                            row.verdict.name(),
                            row.reason,
                            row.evidence
                        ))
                    );
                }
            }
        }
        for (b, r) in &rows {
            for f in r.failures.iter().filter(|f| !f.stderr_tail.is_empty()) {
                let _ = write!(
                    page,
                    "<p class=\"failed\">{} failed ({}):</p><pre>{}</pre>",
                    escape(&label(*b, r)),
                    escape(&f.kind),
                    escape(&f.stderr_tail)
                );
            }
        }
        page.push_str("</section>");
    }
}

/// How the loads were measured, from the first measured row: "closed loop · 3 rounds of 3
/// slices of 100 ms after 300 ms of warm-up · the builds took turns slice by slice".
fn settings(rows: &[(usize, &ScenarioResult)]) -> String {
    let Some(t) = rows.iter().find_map(|(_, r)| r.throughput.as_ref()) else {
        return "no load measured".into();
    };
    let mut s = format!(
        "{} · {} round{} of {} slices of {} ms after {} ms of warm-up",
        load_label(t),
        t.rounds,
        if t.rounds == 1 { "" } else { "s" },
        t.slices_per_round,
        t.slice_ms,
        t.warmup_ms
    );
    if t.ops_per_request != 1 {
        let _ = write!(s, " · {} ops per request", t.ops_per_request);
    }
    if let Some(i) = &t.ops_per_sec_repeat {
        let _ = write!(s, " · intervals at {}", fmt_confidence(i.level));
    }
    if t.paired.as_ref().is_some_and(|p| p.lockstep) {
        s.push_str(" · the builds took turns slice by slice, each server up all the time");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::VariantRun;
    use costbench_judge::compare;
    use costbench_record::instrument::throughput::testing::{load_row, service_run};
    use costbench_record::model::RunRecord;
    use costbench_record::testing::{record, scenario, with_icount};
    use std::collections::HashMap;

    fn section(builds: &[Build]) -> String {
        let mut page = String::new();
        super::section(&mut page, builds, builds.len() - 1, &HashMap::new());
        page
    }

    fn page(runs: &[RunRecord], cmp: Option<&compare::Comparison>) -> String {
        crate::html::test_page(runs, cmp, &[], &[])
    }

    #[test]
    fn a_part_per_service_scenario_with_a_line_per_client_count() {
        let run = service_run();
        let html = section(&[(run.variant.clone(), &run)]);
        assert_eq!(
            html.matches("<section class=\"scenario throughput\"")
                .count(),
            2
        );
        assert!(html.contains(r#"data-scenario="echo/plain"><h3>echo/plain</h3>"#));
        // echo/plain: 1 and 4 clients; echo/loop: 1 client (its 4-client load failed).
        assert_eq!(
            html.matches(r#"data-chart="percentiles" data-series="2""#)
                .count(),
            1,
            "{html}"
        );
        assert_eq!(
            html.matches(r#"data-chart="percentiles" data-series="1""#)
                .count(),
            1
        );
        assert!(html.contains(r#"data-label="4 clients""#));
        // One build: no build column, labels without one.
        assert!(!html.contains("<th class=\"text\">build</th>"));
        assert!(
            html.contains(r#"<td data-v="99091.4">99,091</td>"#),
            "{html}"
        );
        assert!(html.contains("95,128 – 103,055"));
        assert!(
            html.contains(r#"<td data-v="121533">121.5 µs</td>"#),
            "{html}"
        );
        assert!(html.contains("open loop at 20,000 ops/s"));
        assert!(html.contains(
            "closed loop · 3 rounds of 3 slices of 100 ms after 300 ms of warm-up · intervals at 95 %"
        ));
        // The failed load: a row saying why.
        assert!(
            html.contains(
                "<td class=\"text failed\" colspan=\"8\">failed: throughput no-measurement: \
                 throughput no-measurement\nsecond line</td>"
            ),
            "{html}"
        );
    }

    #[test]
    fn builds_get_a_line_each_and_a_column() {
        let base = record("b", vec![load_row("svc", 1, 1000.0, 50_000.0)]);
        let cand = record(
            "c",
            vec![
                load_row("svc", 1, 1100.0, 45_000.0),
                load_row("svc", 8, 3000.0, 90_000.0),
            ],
        );
        let html = section(&[("baseline".into(), &base), ("candidate".into(), &cand)]);
        assert!(html.contains(r#"data-chart="percentiles" data-series="3""#));
        assert_eq!(html.matches("<path class=\"series").count(), 3);
        // Colour by clients, dash by build: the candidate solid.
        assert!(html.contains(r#"class="series s0 pline c0 d1" data-label="1 client · baseline""#));
        assert!(html.contains(r#"class="series s1 pline c0 d0" data-label="1 client · candidate""#));
        assert!(
            html.contains(r#"class="series s2 pline c1 d0" data-label="8 clients · candidate""#)
        );
        assert!(html.contains("<th class=\"text\">build</th>"));
        assert_eq!(html.matches("<td class=\"text\">baseline</td>").count(), 1);
    }

    #[test]
    fn scenario_names_are_escaped() {
        let evil = "<script>alert(1)</script>";
        let run = record("r", vec![load_row(evil, 2, 10.0, 1000.0)]);
        let html = section(&[("<b>v</b>".into(), &run)]);
        assert!(!html.contains("<script") && !html.contains("<b>"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(any(&[("v".into(), &run)]));
        assert!(!any(&[("v".into(), &record("r", vec![]))]));
    }

    #[test]
    fn loads_get_the_throughput_section_not_rows_of_their_own() {
        let run = service_run();
        let html = page(std::slice::from_ref(&run), None);
        assert!(html.contains("<a href=\"#throughput\">Throughput</a>"));
        assert_eq!(html.matches("<h2 id=\"throughput\">").count(), 1);
        // Overview rows and scenario sections: the four party rows only; the loads are linked.
        assert_eq!(
            html.matches("<section class=\"scenario\" id=\"s-").count(),
            4
        );
        assert!(!html.contains("echo/plain@1c"), "{html}");
        assert!(html.contains("Service scenarios under load (4 rows,"));
        assert_eq!(
            html.matches(r#"data-chart="percentiles""#).count(),
            2,
            "{html}"
        );
        // The failed load shows where the loads are, with its message.
        assert!(html.contains("failed: throughput no-measurement"));
        // The throughput section comes before the scenarios.
        assert!(html.find("id=\"throughput\"") < html.find("id=\"scenarios\""));

        // Two runs of one variant: a line per build and number of clients.
        let mut cand = service_run();
        cand.run_id = "cand".into();
        cand.results[2] = load_row("echo/plain", 1, 50_000.0, 20_000.0);
        // Whatever the comparison judges of a load is listed under its table (an instruction
        // count stands in here for the figures a comparison of loads would judge).
        let mut base = run.clone();
        base.results[2] = with_icount(base.results[2].clone(), 100.0);
        cand.results[2] = with_icount(cand.results[2].clone(), 150.0);
        let runs = [base, cand];
        let cmp = compare::compare_with(
            &runs[0],
            &runs[1],
            &compare::CompareOptions::default(),
            &compare::noise::HistoricThresholds::default(),
        );
        let html = page(&runs, Some(&cmp));
        assert!(
            html.contains(r#"data-chart="percentiles" data-series="4""#),
            "{html}"
        );
        assert!(html.contains(r#"data-label="1 client · baseline""#));
        assert!(html.contains(r#"data-label="4 clients · candidate""#));
        assert!(
            html.contains("<p class=\"note\">echo/plain@1c: icount change +50.00 % (regression"),
            "{html}"
        );

        // Runs of two variants: a line per variant, and no heat-map rows of loads.
        let mut other = run.clone();
        other.variant = "<i>lto</i>".into();
        other.run_id = "other".into();
        // An id only this variant measured keeps its row (of dashes but one).
        other.results.push(with_icount(scenario("only/lto"), 3.0));
        let cmps = [
            compare::compare_with(
                &run,
                &run,
                &compare::CompareOptions::default(),
                &compare::noise::HistoricThresholds::default(),
            ),
            compare::compare_with(
                &run,
                &other,
                &compare::CompareOptions::default(),
                &compare::noise::HistoricThresholds::default(),
            ),
        ];
        let variants = [
            VariantRun {
                run: &run,
                comparison: cmps[0].clone(),
            },
            VariantRun {
                run: &other,
                comparison: cmps[1].clone(),
            },
        ];
        let runs = [run.clone(), other.clone()];
        let html = crate::html::test_page(&runs, None, &variants, &[]);
        assert!(
            html.contains(r#"data-label="4 clients · &lt;i&gt;lto&lt;/i&gt;""#),
            "{html}"
        );
        assert!(html.contains(r#"data-label="4 clients · release""#));
        assert!(!html.contains("<i>lto"));
        // The instruction-count map: the four party rows and the new id, none of the loads;
        // the throughput and p99 maps: the three loads that measured, nothing else.
        let rows: Vec<&str> = html
            .split(r#"<text class="row""#)
            .skip(1)
            .map(|t| &t[t.find('>').unwrap() + 1..t.find('<').unwrap()])
            .collect();
        assert_eq!(rows.len(), 11, "{rows:?}");
        assert_eq!(
            rows.iter().filter(|r| r.contains('@')).count(),
            6,
            "{rows:?}"
        );
    }
}
