//! JUnit XML of a comparison or a check, for CI systems that read test reports (GitLab, Jenkins,
//! Azure Pipelines, CircleCI, Buildkite): one `<testsuite>` per instrument, one `<testcase>` per
//! measured id, with the figures in every message. Pure: a function of the comparison (and the
//! gate, for `check`) to text; writing the file is the runner's job.
//!
//! - a `<failure>` for what fails: with a gate, its violations (a significant regression beyond
//!   its soft limit, a figure above a hard limit); without one (`compare`), every significant
//!   regression;
//! - an `<error>` for an instrument that failed for the id (it panicked, timed out, ...);
//! - `<skipped>` for what was not judged: unresolved rows, figures measured on one side only,
//!   and (in the suite `costbench.scenarios`) ids in one run only;
//! - a passing case for the rest, with its figures and verdict in `<system-out>`: unchanged,
//!   improvements, placement rows, and regressions the gate let pass (ignored, within a soft
//!   limit), each saying so.
//!
//! The XML is written with `quick-xml`, which escapes markup in text and attributes. XML 1.0
//! cannot carry most control characters at all, not even as character references, so untrusted
//! text (names, units, messages) first has those, and the bidirectional overrides, shown
//! escaped (`\u{1b}`) by `crate::escape::clean`.

use crate::escape::clean;
use costbench_judge::check::{Gate, Violation};
use costbench_judge::compare::{Comparison, Row, Verdict};
use costbench_record::fmt::{fmt_change, fmt_ci, fmt_threshold};
use costbench_record::instrument::Figure;
use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::Writer;
use std::io;

/// What became of one test case.
enum Outcome {
    Passed(String),
    Failure {
        kind: String,
        message: String,
        text: String,
    },
    Error {
        kind: String,
        message: String,
    },
    Skipped(String),
}

struct Case {
    name: String,
    outcome: Outcome,
}

struct Suite {
    /// The compared figure's name (`Figure::name`), or `scenarios`.
    key: String,
    cases: Vec<Case>,
}

impl Suite {
    fn count(&self, f: fn(&Outcome) -> bool) -> usize {
        self.cases.iter().filter(|c| f(&c.outcome)).count()
    }
}

/// Untrusted text as XML 1.0 can carry it: control and bidirectional characters escaped, and
/// the two non-characters XML forbids too.
fn xml_safe(s: &str) -> String {
    clean(s)
        .replace('\u{fffe}', "\\u{fffe}")
        .replace('\u{ffff}', "\\u{ffff}")
}

/// `2003 Ir → 2103 Ir per op, +4.99 %, threshold 0.2 %` (with the ratio's interval where the
/// row has one).
fn figures(r: &Row) -> String {
    let mut s = format!(
        "{} → {} per op, {}, threshold {}",
        r.instrument.fmt_value(r.base),
        r.instrument.fmt_value(r.cand),
        fmt_change(r.change_pct),
        fmt_threshold(r.threshold_pct)
    );
    if let Some(ci) = &r.ci {
        s.push_str(&format!(", ratio CI {}", fmt_ci(ci.low, ci.high)));
    }
    s
}

/// The row's verdict, reason and evidence, one per line.
fn details(r: &Row) -> String {
    let mut s = format!("{}: {}\nevidence: {}", r.verdict, r.reason, r.evidence);
    if r.unit != "op" {
        s.push_str(&format!("\none op is: {}", r.unit));
    }
    if let Some(n) = &r.note {
        s.push_str(&format!("\nsetup changed: {n}"));
    }
    s
}

fn violation_failure(vs: &[&Violation], row: Option<&Row>) -> Outcome {
    let kind = vs.iter().map(|v| v.kind).collect::<Vec<_>>().join(", ");
    let what: Vec<String> = vs.iter().map(|v| v.message.clone()).collect();
    let message = match row {
        Some(r) => format!("{}: {}", figures(r), what.join("; ")),
        None => what.join("; "),
    };
    Outcome::Failure {
        kind,
        message,
        text: row.map(details).unwrap_or_default(),
    }
}

/// The case of one row.
fn row_case(r: &Row, gate: Option<&Gate>) -> Outcome {
    if let Some(g) = gate {
        let vs: Vec<&Violation> = g
            .violations
            .iter()
            .filter(|v| v.id == r.id && v.instrument == r.instrument)
            .collect();
        if !vs.is_empty() {
            return violation_failure(&vs, Some(r));
        }
    }
    match r.verdict {
        Verdict::Unresolved => Outcome::Skipped(format!(
            "unresolved (not gated): {}: {}",
            figures(r),
            r.reason
        )),
        Verdict::Regression if gate.is_none() => Outcome::Failure {
            kind: "regression".into(),
            message: format!("{}: significant regression", figures(r)),
            text: details(r),
        },
        Verdict::Regression => {
            let why = if gate.is_some_and(|g| g.ignored.contains(&r.id)) {
                "ignored by costbench.toml"
            } else {
                "within its soft limit in costbench.toml"
            };
            Outcome::Passed(format!(
                "{}\nregression, not gated: {why}\n{}",
                figures(r),
                details(r)
            ))
        }
        _ => Outcome::Passed(format!("{}\n{}", figures(r), details(r))),
    }
}

fn suite_for<'a>(suites: &'a mut Vec<Suite>, key: &str) -> &'a mut Suite {
    match suites.iter().position(|s| s.key == key) {
        Some(i) => &mut suites[i],
        None => {
            suites.push(Suite {
                key: key.to_string(),
                cases: Vec::new(),
            });
            suites.last_mut().expect("just pushed")
        }
    }
}

fn gather(c: &Comparison, gate: Option<&Gate>) -> Vec<Suite> {
    // Suites in the instruments' order, then anything else a failure names, then the ids.
    let mut suites: Vec<Suite> = Vec::new();
    // A side that did not finish is the first failure a CI page shows, with every row it lacks.
    if !c.unfinished.is_empty() {
        suites.push(Suite {
            key: "unfinished".into(),
            cases: c
                .unfinished
                .iter()
                .map(|u| Case {
                    name: format!("{} run", u.side),
                    outcome: Outcome::Failure {
                        kind: "unfinished".into(),
                        message: u.note.clone(),
                        text: format!("not reached: {}", u.not_reached.join(", ")),
                    },
                })
                .collect(),
        });
    }
    suites.extend(Figure::ALL.iter().map(|i| Suite {
        key: i.name().to_string(),
        cases: Vec::new(),
    }));
    for r in &c.rows {
        let outcome = row_case(r, gate);
        suite_for(&mut suites, r.instrument.name())
            .cases
            .push(Case {
                name: r.id.clone(),
                outcome,
            });
    }
    // Violations without a row: hard limits of ids the baseline lacks or did not compare.
    if let Some(g) = gate {
        let mut seen: Vec<(&str, Figure)> = Vec::new();
        for v in &g.violations {
            let key = (v.id.as_str(), v.instrument);
            if seen.contains(&key) || find_row(c, key.0, key.1).is_some() {
                continue;
            }
            seen.push(key);
            let vs: Vec<&Violation> = g
                .violations
                .iter()
                .filter(|w| w.id == v.id && w.instrument == v.instrument)
                .collect();
            suite_for(&mut suites, v.instrument.name())
                .cases
                .push(Case {
                    name: v.id.clone(),
                    outcome: violation_failure(&vs, None),
                });
        }
    }
    for f in &c.failed {
        suite_for(&mut suites, &f.instrument).cases.push(Case {
            name: f.id.clone(),
            outcome: Outcome::Error {
                kind: f.kind.clone(),
                message: format!(
                    "{} failed in the {} run(s): {}: {}",
                    f.instrument, f.side, f.kind, f.message
                ),
            },
        });
    }
    for n in &c.not_compared {
        suite_for(&mut suites, n.instrument.name())
            .cases
            .push(Case {
                name: n.id.clone(),
                outcome: Outcome::Skipped(format!(
                    "measured in the {} only: nothing to compare",
                    n.measured_in
                )),
            });
    }
    let ids = suite_for(&mut suites, "scenarios");
    for id in &c.missing_in_cand {
        ids.cases.push(Case {
            name: id.clone(),
            outcome: Outcome::Skipped("in the baseline only: missing in the candidate".into()),
        });
    }
    for id in &c.new_in_cand {
        // A new id's figures are still held against hard limits, in its instrument's suite.
        ids.cases.push(Case {
            name: id.clone(),
            outcome: Outcome::Skipped("new in the candidate: no baseline to compare with".into()),
        });
    }
    // Broken budgets: a suite of their own, a failure each (budgets within their limits are
    // not in the gate).
    if let Some(g) = gate {
        for b in &g.budgets {
            suite_for(&mut suites, "budgets").cases.push(Case {
                name: format!("{} ({})", b.id, b.figure),
                outcome: Outcome::Failure {
                    kind: "budget".into(),
                    message: b.message(),
                    text: format!("declared in {} for {:?}", b.source, b.scenario),
                },
            });
        }
    }
    if let Some(g) = gate {
        for c in &g.complexity {
            suite_for(&mut suites, "complexity").cases.push(Case {
                name: c.family.clone(),
                outcome: Outcome::Failure {
                    kind: format!("complexity-{}", c.kind),
                    message: c.message.clone(),
                    text: String::new(),
                },
            });
        }
    }
    // The instruments' findings: a suite of their own per instrument (named by its label), a
    // failure each, with the frames that led there; the accepted ones reported as skipped, as
    // an ignored test is, with the entry's reason.
    if let Some(g) = gate {
        for f in &g.findings {
            suite_for(&mut suites, f.spec().label).cases.push(Case {
                name: format!("{} ({})", f.id, f.place),
                outcome: Outcome::Failure {
                    kind: f.spec().label.into(),
                    message: f.line.clone(),
                    text: f.frames.join("\n"),
                },
            });
        }
        for f in &g.findings_accepted {
            suite_for(&mut suites, f.spec().label).cases.push(Case {
                name: format!("{} ({})", f.id, f.place),
                outcome: Outcome::Skipped(f.line.clone()),
            });
        }
    }
    suites.retain(|s| !s.cases.is_empty());
    suites
}

fn find_row<'a>(c: &'a Comparison, id: &str, inst: Figure) -> Option<&'a Row> {
    c.rows.iter().find(|r| r.id == id && r.instrument == inst)
}

fn is_failure(o: &Outcome) -> bool {
    matches!(o, Outcome::Failure { .. })
}
fn is_error(o: &Outcome) -> bool {
    matches!(o, Outcome::Error { .. })
}
fn is_skipped(o: &Outcome) -> bool {
    matches!(o, Outcome::Skipped(_))
}

/// The comparison as JUnit XML; with `gate` (`costbench check`), failures are the gate's
/// violations, without it (`costbench compare`) the significant regressions.
pub fn junit(c: &Comparison, gate: Option<&Gate>) -> String {
    let suites = gather(c, gate);
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    write(&mut w, c, gate, &suites).expect("writing XML to memory cannot fail");
    let mut out = String::from_utf8(w.into_inner()).expect("the XML writer writes UTF-8");
    out.push('\n');
    out
}

fn write(
    w: &mut Writer<Vec<u8>>,
    c: &Comparison,
    gate: Option<&Gate>,
    suites: &[Suite],
) -> io::Result<()> {
    let total = |f: fn(&Outcome) -> bool| -> String {
        suites.iter().map(|s| s.count(f)).sum::<usize>().to_string()
    };
    let tests: usize = suites.iter().map(|s| s.cases.len()).sum();
    let name = if gate.is_some() {
        "costbench check"
    } else {
        "costbench compare"
    };
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    w.create_element("testsuites")
        .with_attributes([
            ("name", name),
            ("tests", tests.to_string().as_str()),
            ("failures", total(is_failure).as_str()),
            ("errors", total(is_error).as_str()),
            ("skipped", total(is_skipped).as_str()),
        ])
        .write_inner_content(|w| {
            for s in suites {
                suite(w, c, s)?;
            }
            Ok(())
        })?;
    Ok(())
}

fn suite(w: &mut Writer<Vec<u8>>, c: &Comparison, s: &Suite) -> io::Result<()> {
    let classname = format!("costbench.{}", xml_safe(&s.key));
    w.create_element("testsuite")
        .with_attributes([
            ("name", classname.as_str()),
            ("tests", s.cases.len().to_string().as_str()),
            ("failures", s.count(is_failure).to_string().as_str()),
            ("errors", s.count(is_error).to_string().as_str()),
            ("skipped", s.count(is_skipped).to_string().as_str()),
        ])
        .write_inner_content(|w| {
            w.create_element("properties").write_inner_content(|w| {
                for (k, v) in [("baseline", &c.base), ("candidate", &c.cand)] {
                    w.create_element("property")
                        .with_attributes([("name", k), ("value", xml_safe(&v.describe()).as_str())])
                        .write_empty()?;
                }
                Ok(())
            })?;
            for case in &s.cases {
                let el = w.create_element("testcase").with_attributes([
                    ("classname", classname.as_str()),
                    ("name", xml_safe(&case.name).as_str()),
                ]);
                match &case.outcome {
                    Outcome::Passed(out) => {
                        el.write_inner_content(|w| {
                            w.create_element("system-out")
                                .write_text_content(BytesText::new(&xml_safe_lines(out)))?;
                            Ok(())
                        })?;
                    }
                    Outcome::Failure {
                        kind,
                        message,
                        text,
                    } => {
                        el.write_inner_content(|w| {
                            let f = w.create_element("failure").with_attributes([
                                ("type", kind.as_str()),
                                ("message", xml_safe(message).as_str()),
                            ]);
                            if text.is_empty() {
                                f.write_empty()?;
                            } else {
                                f.write_text_content(BytesText::new(&xml_safe_lines(text)))?;
                            }
                            Ok(())
                        })?;
                    }
                    Outcome::Error { kind, message } => {
                        el.write_inner_content(|w| {
                            w.create_element("error")
                                .with_attributes([
                                    ("type", xml_safe(kind).as_str()),
                                    ("message", xml_safe(message).as_str()),
                                ])
                                .write_empty()?;
                            Ok(())
                        })?;
                    }
                    Outcome::Skipped(message) => {
                        el.write_inner_content(|w| {
                            w.create_element("skipped")
                                .with_attribute(("message", xml_safe(message).as_str()))
                                .write_empty()?;
                            Ok(())
                        })?;
                    }
                }
            }
            Ok(())
        })?;
    Ok(())
}

/// [`xml_safe`] line by line: the line breaks this module put between lines stay.
fn xml_safe_lines(s: &str) -> String {
    s.split('\n').map(xml_safe).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_judge::check::{evaluate, CheckConfig, Limit};
    use costbench_judge::compare::{compare, CompareOptions};
    use costbench_judge::testing::*;
    use costbench_record::testing::*;

    /// Parses `xml` with a strict XML 1.0 parser and returns, per suite, its name, counts and
    /// cases (name and outcome element), checking every count attribute against the cases.
    fn parse(xml: &str) -> Vec<(String, Vec<(String, String)>)> {
        let doc = roxmltree::Document::parse(xml).unwrap_or_else(|e| panic!("{e}:\n{xml}"));
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "testsuites");
        let mut out = Vec::new();
        let mut totals = [0usize; 4];
        for s in root.children().filter(|n| n.has_tag_name("testsuite")) {
            let cases: Vec<(String, String)> = s
                .children()
                .filter(|n| n.has_tag_name("testcase"))
                .map(|c| {
                    assert_eq!(c.attribute("classname"), s.attribute("name"));
                    let outcome = c
                        .children()
                        .find(|n| n.is_element())
                        .map_or("", |n| n.tag_name().name());
                    (
                        c.attribute("name").unwrap().to_string(),
                        outcome.to_string(),
                    )
                })
                .collect();
            let n = |what: &str| cases.iter().filter(|(_, o)| o == what).count();
            let counts = [cases.len(), n("failure"), n("error"), n("skipped")];
            for (i, attr) in ["tests", "failures", "errors", "skipped"]
                .iter()
                .enumerate()
            {
                assert_eq!(
                    s.attribute(*attr).unwrap().parse::<usize>().unwrap(),
                    counts[i],
                    "{attr} of {:?}",
                    s.attribute("name")
                );
                totals[i] += counts[i];
            }
            out.push((s.attribute("name").unwrap().to_string(), cases));
        }
        for (i, attr) in ["tests", "failures", "errors", "skipped"]
            .iter()
            .enumerate()
        {
            assert_eq!(root.attribute(*attr).unwrap(), totals[i].to_string());
        }
        out
    }

    fn gate_of(
        c: &Comparison,
        cand: &costbench_record::model::RunRecord,
        cfg: CheckConfig,
    ) -> Gate {
        evaluate(c, cand, &cfg)
    }

    #[test]
    fn check_snapshot() {
        let c = every_verdict();
        // "paired" is excused by ignore; a hard limit fails the new scenario.
        let cand = record("c", vec![with_icount(scenario("new\u{1b}"), 10.0)]);
        let cfg = CheckConfig {
            ignore: vec!["paired".into()],
            limit: vec![Limit {
                scenario: "new*".into(),
                metric: None,
                soft: None,
                hard: Some(8.0),
            }],
        };
        let gate = gate_of(&c, &cand, cfg);
        let xml = junit(&c, Some(&gate));
        assert_snapshot!("check_junit", &xml);
        let suites = parse(&xml);
        let names: Vec<&str> = suites.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "costbench.icount",
                "costbench.walltime",
                "costbench.scenarios"
            ]
        );
        let outcome = |suite: usize, id: &str| -> &str {
            &suites[suite]
                .1
                .iter()
                .find(|(n, _)| n == id)
                .unwrap_or_else(|| panic!("{id}"))
                .1
        };
        assert_eq!(outcome(0, "slow"), "failure");
        assert_eq!(outcome(0, "fast"), "system-out");
        assert_eq!(outcome(0, "new\\u{1b}"), "failure");
        assert_eq!(outcome(0, "broken"), "error");
        assert_eq!(outcome(1, "paired"), "system-out");
        assert_eq!(outcome(1, "apart/1"), "skipped");
        assert_eq!(outcome(2, "gone"), "skipped");
        // Without a gate (compare), the regression excused above fails.
        let xml = junit(&c, None);
        let suites = parse(&xml);
        assert_eq!(
            suites[1].1.iter().find(|(n, _)| n == "paired").unwrap().1,
            "failure"
        );
        assert!(
            xml.contains("<testsuites name=\"costbench compare\""),
            "{xml}"
        );
    }

    #[test]
    fn the_figures_are_in_the_message() {
        let base = record("b", vec![with_icount(scenario("parse"), 2003.0)]);
        let cand = record("c", vec![with_icount(scenario("parse"), 2103.0)]);
        let c = compare(&base, &cand, &CompareOptions::default());
        let gate = gate_of(&c, &cand, CheckConfig::default());
        let xml = junit(&c, Some(&gate));
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let f = doc
            .descendants()
            .find(|n| n.has_tag_name("failure"))
            .expect("a failure");
        assert_eq!(f.attribute("type"), Some("regression"));
        assert_eq!(
            f.attribute("message"),
            Some("2003 Ir → 2103 Ir per op, +4.99 %, threshold 0.2 %: +4.99 % (significant)")
        );
        assert_eq!(
            f.text(),
            Some("regression: beyond 0.2 % threshold\nevidence: exact instruction counts")
        );
    }

    #[test]
    fn hostile_names_parse_back_as_themselves() {
        let names = [
            "quote\"s and 'apostrophes'",
            "<tag attr=\"x\">&amp;</tag>",
            "cdata ]]> end",
            "amp & lt < gt >",
            "ctrl \u{1} \u{8} \u{b} \u{c} \u{1b}[31m \u{7f}",
            "lines\nand\rtabs\t",
            "nonchar \u{fffe}\u{ffff}",
            "rtl\u{202e}gnp.exe",
            "µs ✓ 日本",
        ];
        let base = record(
            "b\"<&",
            names
                .iter()
                .map(|n| with_icount(scenario(n), 100.0))
                .collect(),
        );
        let cand = record(
            "c]]>",
            names
                .iter()
                .map(|n| {
                    with_failure(
                        with_icount(scenario(n), 150.0),
                        "walltime",
                        "panicked <b>\u{0}</b> ]]>",
                    )
                })
                .collect(),
        );
        let c = compare(&base, &cand, &CompareOptions::default());
        let gate = gate_of(&c, &cand, CheckConfig::default());
        for g in [Some(&gate), None] {
            let xml = junit(&c, g);
            let suites = parse(&xml);
            let got: Vec<&str> = suites[0].1.iter().map(|(n, _)| n.as_str()).collect();
            let want: Vec<String> = names.iter().map(|n| xml_safe(n)).collect();
            assert_eq!(got, want, "{xml}");
            // Printable names come back exactly.
            for n in [names[0], names[1], names[2], names[3], names[8]] {
                assert!(got.contains(&n), "{n:?} in {got:?}");
            }
            assert!(got.contains(&"ctrl \\u{1} \\u{8} \\u{b} \\u{c} \\u{1b}[31m \\u{7f}"));
            assert!(got.contains(&"nonchar \\u{fffe}\\u{ffff}"));
            // The walltime failures are errors with the message intact.
            let doc = roxmltree::Document::parse(&xml).unwrap();
            let e = doc.descendants().find(|n| n.has_tag_name("error")).unwrap();
            assert_eq!(
                e.attribute("message"),
                Some(
                    "walltime failed in the candidate run(s): panicked <b>\\u{0}</b> ]]>: \
                     walltime panicked <b>\\u{0}</b> ]]>"
                )
            );
        }
    }
}
