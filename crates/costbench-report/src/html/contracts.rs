//! The contracts section (issue 28): every budget checked with its figure against its limit,
//! the declared classes of growth, the bench binary's size and build time of each run shown
//! (the baseline's and the candidate's when comparing) with their history charts, and the fit
//! of every family of sized
//! scenarios as a log-log plot of its per-op instruction counts with the fitted curve. Absent
//! when the runs carry none of these (records of older costbench, runs that built nothing).
//! Renders only: the fits, checks and sizes come in the run records, the changes of growth
//! judged by the page.

use super::escape::escape;
use super::history_chart::history_chart;
use super::svg::{loglog, LogLogSeries};
use super::History;
use crate::budget::{thousands, trim};
use costbench_judge::complexity::Change;
use costbench_record::fmt::{fmt_change, fmt_ir_grouped};
use costbench_record::model::complexity::{Class, Fit};
use costbench_record::model::RunRecord;
use std::fmt::Write as _;

/// The runs the section shows, each with its name: the candidate last.
pub(super) type Sides<'a> = [(&'a str, &'a RunRecord)];

/// Whether any of `sides` has something for the section.
pub(super) fn any(sides: &Sides) -> bool {
    sides.iter().any(|(_, r)| {
        !r.budgets.is_empty()
            || !r.complexity.is_empty()
            || !r.complexity_checks.is_empty()
            || r.binary.is_some()
            || r.build.is_some()
    })
}

/// The section: budgets and declared classes of the shown run (the last side), the binary and
/// build of every side with the history of the shown run's (`history`: its series of the run's
/// own metrics), and each family's fit, both sides in one plot; `changes` are the families
/// whose growth changed from the first side to the last.
pub(super) fn contracts_section(
    page: &mut String,
    sides: &Sides,
    changes: &[Change],
    history: &[&History],
) {
    let Some(&(_, shown)) = sides.last() else {
        return;
    };
    page.push_str(
        "<h2 id=\"contracts\">Contracts</h2><p>What the run promises beyond speed: budgets \
         (absolute limits that fail <code>run</code> and <code>check</code> with exit code 3), \
         the size and build time of the bench binary, and how each family of sized scenarios \
         (<code>NAME/n</code>) grows with n.</p>",
    );
    budgets(page, shown);
    declared(page, shown);
    binaries(page, sides);
    if !history.is_empty() {
        page.push_str("<div class=\"charts\">");
        for h in history {
            history_chart(page, h);
        }
        page.push_str("</div>");
    }
    growth(page, sides, changes);
}

/// A state cell: red when the contract is broken.
fn state(ok: bool, text: &str) -> String {
    format!(
        "<td class=\"text{}\">{}</td>",
        if ok { "" } else { " regression" },
        escape(text)
    )
}

fn budgets(page: &mut String, run: &RunRecord) {
    if run.budgets.is_empty() {
        return;
    }
    let broken = run.budgets.iter().filter(|b| b.failed()).count();
    let _ = write!(
        page,
        "<h3>Budgets</h3><p>{} checked, {broken} broken.</p><table class=\"sortable\" \
         id=\"budgets-table\"><thead><tr><th>scenario</th><th class=\"text\">figure</th>\
         <th>value</th><th>limit</th><th class=\"text\">state</th><th class=\"text\">declared \
         in</th></tr></thead><tbody>",
        run.budgets.len()
    );
    for b in &run.budgets {
        let value = b.value.map_or("–".to_string(), |v| b.figure.fmt_value(v));
        let _ = write!(
            page,
            "<tr><td>{}</td><td class=\"text\">{}</td><td>{}</td><td>{}</td>{}<td class=\"text\">{}</td></tr>",
            escape(&b.id),
            b.figure,
            escape(&value),
            escape(&b.figure.fmt_value(b.limit)),
            state(!b.failed(), &format!("{:?}", b.status).to_lowercase()),
            escape(&b.source)
        );
    }
    page.push_str("</tbody></table>");
}

fn declared(page: &mut String, run: &RunRecord) {
    if run.complexity_checks.is_empty() {
        return;
    }
    page.push_str(
        "<h3>Declared growth</h3><table id=\"classes-table\"><thead><tr><th>family</th>\
         <th class=\"text\">declared</th><th class=\"text\">fitted</th><th class=\"text\">state\
         </th><th class=\"text\">why</th><th class=\"text\">declared in</th></tr></thead><tbody>",
    );
    for c in &run.complexity_checks {
        let _ = write!(
            page,
            "<tr><td>{}</td><td class=\"text\">O({})</td><td class=\"text\">{}</td>{}<td class=\"text\">{}</td><td class=\"text\">{}</td></tr>",
            escape(&c.family),
            c.declared,
            c.fitted.map_or("–".to_string(), |f| format!("O({f})")),
            state(c.passed, if c.passed { "as declared" } else { "broken" }),
            escape(&c.message),
            escape(&c.source)
        );
    }
    page.push_str("</tbody></table>");
}

fn binaries(page: &mut String, sides: &Sides) {
    if !sides
        .iter()
        .any(|(_, r)| r.binary.is_some() || r.build.is_some())
    {
        return;
    }
    page.push_str(
        "<h3>Bench binary</h3><p>Bytes the binary loads (code and data; debug info and symbol \
         tables excluded), and how long costbench's build of it took (cold when nothing was \
         found up to date; on a shared machine a build time says as much about its load).</p>\
         <table id=\"binary-table\"><thead><tr><th class=\"text\">run</th><th>total</th>\
         <th>Δ total</th><th>text</th><th>data</th><th>bss</th><th>file</th><th>build</th>\
         <th class=\"text\">largest crates (code bytes)</th></tr></thead><tbody>",
    );
    let first = sides[0].1.binary.as_ref().map(|b| b.total);
    for (k, (name, run)) in sides.iter().enumerate() {
        let b = run.binary.as_ref();
        let n = |f: fn(&costbench_record::model::budget::BinarySize) -> u64| {
            b.map_or("–".to_string(), |b| thousands(f(b)))
        };
        let delta = match (k, first, b) {
            (1.., Some(f), Some(b)) if f > 0 => {
                fmt_change(100.0 * (b.total as f64 / f as f64 - 1.0))
            }
            _ => "–".to_string(),
        };
        let build = run.build.as_ref().map_or("–".to_string(), |b| {
            format!(
                "{:.1} s ({} compiled, {} fresh)",
                b.seconds, b.compiled, b.fresh
            )
        });
        let crates = b.map_or(String::new(), |b| {
            b.top_crates
                .iter()
                .take(5)
                .map(|c| format!("{} {}", c.krate, thousands(c.bytes)))
                .collect::<Vec<_>>()
                .join(", ")
        });
        let _ = write!(
            page,
            "<tr><td class=\"text\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"text\">{}</td></tr>",
            escape(name),
            n(|b| b.total),
            escape(&delta),
            n(|b| b.text),
            n(|b| b.data),
            n(|b| b.bss),
            n(|b| b.file),
            escape(&build),
            escape(&crates)
        );
    }
    page.push_str("</tbody></table>");
}

/// The per-op instruction counts of `family`'s sizes in `run`.
fn points(run: &RunRecord, fit: &Fit) -> Vec<(f64, f64)> {
    fit.sizes
        .iter()
        .filter_map(|n| {
            let id = format!("{}/{n}", fit.family);
            let r = run.results.iter().find(|r| r.id == id)?;
            Some((*n as f64, r.icount.as_ref()?.ir_per_op))
        })
        .collect()
}

/// `a + b·f(n)` of the fit.
fn fitted(fit: &Fit, n: f64) -> f64 {
    fit.offset + fit.constant * fit.class.eval(n)
}

/// The fit's coefficient of determination over `points` (1: every point on the curve).
fn r_squared(fit: &Fit, points: &[(f64, f64)]) -> f64 {
    let mean = points.iter().map(|p| p.1).sum::<f64>() / points.len().max(1) as f64;
    let total: f64 = points.iter().map(|p| (p.1 - mean).powi(2)).sum();
    let residual: f64 = points
        .iter()
        .map(|p| (p.1 - fitted(fit, p.0)).powi(2))
        .sum();
    if total > 0.0 {
        1.0 - residual / total
    } else if residual == 0.0 {
        1.0
    } else {
        0.0
    }
}

/// "f(n)" as the caption writes it.
fn term(class: Class) -> &'static str {
    match class {
        Class::Constant => "1",
        Class::Log => "log₂ n",
        Class::Linear => "n",
        Class::NLogN => "n log₂ n",
        Class::Quadratic => "n²",
    }
}

/// 40 points of the fitted curve from the smallest size to the largest, evenly spaced on a
/// logarithmic axis.
fn curve(fit: &Fit) -> Vec<(f64, f64)> {
    let (Some(&lo), Some(&hi)) = (fit.sizes.first(), fit.sizes.last()) else {
        return Vec::new();
    };
    let (l0, l1) = ((lo as f64).ln(), (hi as f64).ln());
    (0..40)
        .map(|i| {
            let n = (l0 + (l1 - l0) * f64::from(i) / 39.0).exp();
            (n, fitted(fit, n))
        })
        .collect()
}

fn growth(page: &mut String, sides: &Sides, changes: &[Change]) {
    let mut families: Vec<&str> = Vec::new();
    for (_, r) in sides.iter().rev() {
        for f in &r.complexity {
            if !families.contains(&f.family.as_str()) {
                families.push(&f.family);
            }
        }
    }
    if families.is_empty() {
        return;
    }
    page.push_str(
        "<h3>Growth</h3><p>Instructions per op of each family at every size, both axes \
         logarithmic, with the best-fitting class's curve <code>a + b·f(n)</code> (a more \
         complex class wins only when it at least halves the simpler one's error). R² is that \
         curve's over the sizes; the power law is fitted freely.</p><div class=\"charts\">",
    );
    for family in families {
        let mut series = Vec::new();
        let mut caption = String::new();
        for (name, run) in sides {
            let Some(fit) = run.complexity.iter().find(|f| f.family == family) else {
                continue;
            };
            let pts = points(run, fit);
            let _ = write!(
                caption,
                "<br>{}O({}): {} + {} × {} Ir/op; R² {:.6}; relative error {}; power law n^{:.2}",
                if sides.len() > 1 {
                    format!("{}: ", escape(name))
                } else {
                    String::new()
                },
                fit.class,
                escape(&trim(fit.offset)),
                escape(&trim(fit.constant)),
                term(fit.class),
                r_squared(fit, &pts),
                escape(&format!("{:.2} %", 100.0 * fit.rms_rel_error)),
                fit.exponent
            );
            series.push(LogLogSeries {
                label: (*name).to_string(),
                points: pts,
                curve: curve(fit),
            });
        }
        let change = changes
            .iter()
            .find(|c| c.family == family)
            .map(|c| {
                format!(
                    "<br><strong class=\"regression\">Growth changed:</strong> {}",
                    escape(&c.message)
                )
            })
            .unwrap_or_default();
        let _ = write!(
            page,
            "<figure class=\"growth\">{}<figcaption><b>{}</b>{caption}{change}</figcaption></figure>",
            loglog(&series, "Ir/op", fmt_ir_grouped),
            escape(family)
        );
    }
    page.push_str("</div>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::testing::{record, scenario, with_icount};

    fn fit(family: &str, sizes: &[u64], class: Class, offset: f64, constant: f64) -> Fit {
        Fit {
            family: family.into(),
            sizes: sizes.to_vec(),
            class,
            constant,
            offset,
            rms_rel_error: 0.0,
            exponent: 1.0,
            power_constant: constant,
            errors: Vec::new(),
        }
    }

    #[test]
    fn r_squared_is_one_on_the_curve_and_lower_off_it() {
        let f = fit("s", &[10, 100, 1000], Class::Linear, 5.0, 2.0);
        let on: Vec<(f64, f64)> = [10.0, 100.0, 1000.0]
            .iter()
            .map(|&n| (n, 5.0 + 2.0 * n))
            .collect();
        assert_eq!(r_squared(&f, &on), 1.0);
        let off = [(10.0, 100.0), (100.0, 205.0), (1000.0, 2005.0)];
        assert!(r_squared(&f, &off) < 1.0);
        let c = curve(&f);
        assert_eq!(c.len(), 40);
        assert!((c[0].0 - 10.0).abs() < 1e-9 && (c[39].0 - 1000.0).abs() < 1e-6);
    }

    #[test]
    fn nothing_for_runs_without_contracts() {
        let run = record("r", vec![with_icount(scenario("a"), 5.0)]);
        assert!(!any(&[("run", &run)]));
        let mut page = String::new();
        contracts_section(&mut page, &[("run", &run)], &[], &[]);
        assert!(!page.contains("<h3>"), "{page}");
    }

    /// A comparison of two runs with every contract: the page shows the budgets, the declared
    /// class, both binaries with the change, the candidate's build and both fits in one plot,
    /// with the change of growth `check` flags.
    #[test]
    fn a_comparison_shows_every_contract_of_both_sides() {
        use costbench_record::model::budget::{
            BinarySize, BudgetCheck, BudgetFigure, BudgetStatus, CrateSize,
        };
        use costbench_record::model::complexity::ComplexityCheck;
        use costbench_record::model::BuildInfo;
        let sized = |id: &str, extra: f64| {
            let results = [100u64, 1000, 3000, 10_000]
                .iter()
                .map(|&n| {
                    let n = n as f64;
                    with_icount(
                        scenario(&format!("scan/{n}")),
                        5000.0 + 20.0 * n + (extra * n * n).round(),
                    )
                })
                .collect();
            let mut r = record(id, results);
            r.complexity = costbench_judge::complexity::fits(&r);
            r.binary = Some(BinarySize {
                text: 1000,
                data: 500,
                bss: 8,
                total: 1500 + (extra * 1e8) as u64,
                file: 9000,
                top_crates: vec![CrateSize {
                    krate: "<core>".into(),
                    bytes: 700,
                }],
            });
            r
        };
        let base = sized("base", 0.0);
        let mut cand = sized("cand", 0.000004);
        cand.build = Some(BuildInfo {
            seconds: 12.25,
            compiled: 3,
            fresh: 40,
        });
        let check = |figure, limit, value, status| BudgetCheck {
            id: "scan/100".into(),
            figure,
            limit,
            value,
            status,
            source: "library".into(),
            scenario: "scan/*".into(),
        };
        cand.budgets = vec![
            check(
                BudgetFigure::Instructions,
                8000.0,
                Some(7000.0),
                BudgetStatus::Within,
            ),
            check(
                BudgetFigure::Allocations,
                0.0,
                None,
                BudgetStatus::Unmeasured,
            ),
        ];
        cand.complexity_checks = vec![ComplexityCheck {
            family: "scan".into(),
            declared: Class::Linear,
            fitted: Some(Class::Linear),
            passed: true,
            message: "fits O(n) as declared".into(),
            source: "library".into(),
        }];
        let runs = [base, cand];
        let cmp = costbench_judge::compare::compare_with(
            &runs[0],
            &runs[1],
            &costbench_judge::compare::CompareOptions::default(),
            &costbench_judge::compare::noise::HistoricThresholds::default(),
        );
        let html = crate::html::test_page(&runs, Some(&cmp), &[], &[]);
        assert!(html.contains("<a href=\"#contracts\">Contracts</a>"));
        assert!(html.contains("<p>2 checked, 1 broken.</p>"), "{html}");
        assert!(
            html.contains("<td>7000 Ir/op</td><td>8000 Ir/op</td><td class=\"text\">within</td>")
        );
        assert!(html.contains(
            "<td>–</td><td>0 allocs/op</td><td class=\"text regression\">unmeasured</td>"
        ));
        assert!(html.contains("<td class=\"text\">O(n)</td><td class=\"text\">O(n)</td><td class=\"text\">as declared</td>"));
        // Both binaries, the candidate's change and build, the crate's name escaped.
        assert!(
            html.contains("<tr><td class=\"text\">baseline</td><td>1,500</td><td>–</td>"),
            "{html}"
        );
        assert!(
            html.contains("<tr><td class=\"text\">candidate</td><td>1,900</td><td>+26.67 %</td>"),
            "{html}"
        );
        assert!(html.contains("12.2 s (3 compiled, 40 fresh)"));
        assert!(html.contains("&lt;core&gt; 700") && !html.contains("<core>"));
        // One plot, two series with four points each, and the change of growth under it.
        assert_eq!(
            html.matches(r#"data-chart="loglog" data-series="2""#)
                .count(),
            1
        );
        assert_eq!(html.matches(r#"<circle class="point""#).count(), 8);
        assert!(
            html.contains("baseline: O(n): 5000 + 20 × n Ir/op; R² 1.000000"),
            "{html}"
        );
        assert!(
            html.contains("Growth changed:</strong> the added cost grows as n^2.00"),
            "{html}"
        );
        assert!(html.find("id=\"contracts\"") < html.find("id=\"scenarios\""));
    }

    /// The bench binary's size and build time over past runs are charted in this section, not
    /// in a scenario's.
    #[test]
    fn the_binarys_history_is_charted_here() {
        use costbench_record::history::Metric;
        use costbench_record::testing::series_point;
        let run = record("r", vec![with_icount(scenario("a"), 5.0)]);
        let h = [
            History {
                id: Metric::run_id(&run),
                metric: Metric::BinarySize,
                points: vec![series_point("1", 1000.0), series_point("2", 1300.0)],
                threshold_pct: 0.2,
                threshold_from: "default; history too short to learn one",
                crossed: vec![1],
            },
            // Another id's series of the same metric is not this run's binary.
            History {
                id: "bench:other".into(),
                metric: Metric::BinarySize,
                points: vec![series_point("1", 1.0), series_point("2", 2.0)],
                threshold_pct: 0.2,
                threshold_from: "",
                crossed: vec![],
            },
        ];
        let html = crate::html::test_page(std::slice::from_ref(&run), None, &[], &h);
        let section = &html[html.find("id=\"contracts\"").expect("a contracts section")..];
        assert_eq!(
            html.matches("History of bench binary bytes (text + data) over 2 runs")
                .count(),
            1,
            "{html}"
        );
        assert!(section
            .contains(r#"data-chart="history" data-series="1" data-points="2" data-crossed="1""#));
        assert!(section.contains("1,300"), "{section}");
    }

    /// A variants page lists every variant's binary, each against the baseline variant's.
    #[test]
    fn every_variant_has_its_binary_row() {
        use costbench_record::model::budget::BinarySize;
        let run = |variant: &str, total: u64| {
            let mut r = record(variant, vec![with_icount(scenario("a"), 5.0)]);
            r.variant = variant.into();
            r.binary = Some(BinarySize {
                text: total,
                data: 0,
                bss: 0,
                total,
                file: total,
                top_crates: Vec::new(),
            });
            r
        };
        let runs = [run("release", 2000), run("lto-fat", 1500)];
        let opts = costbench_judge::compare::CompareOptions::default();
        let none = costbench_judge::compare::noise::HistoricThresholds::default();
        let variants: Vec<crate::html::VariantRun> = runs
            .iter()
            .map(|r| crate::html::VariantRun {
                run: r,
                comparison: costbench_judge::compare::compare_with(&runs[0], r, &opts, &none),
            })
            .collect();
        let html = crate::html::test_page(&runs, None, &variants, &[]);
        assert!(
            html.contains("<tr><td class=\"text\">release</td><td>2,000</td><td>–</td>"),
            "{html}"
        );
        assert!(
            html.contains("<tr><td class=\"text\">lto-fat</td><td>1,500</td><td>-25.00 %</td>"),
            "{html}"
        );
    }
}
