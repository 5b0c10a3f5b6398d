//! GitHub Actions workflow commands for `costbench check`: one line per thing a reviewer must
//! see, which GitHub turns into an annotation on the run's summary page and the pull request
//! ([`annotations`]). Pure: a function of the comparison and the gate to text. Whether the job
//! runs in GitHub Actions, and printing the lines, are the runner's business.
//!
//! - `::error` for what fails the check: every violation of the gate (significant regressions,
//!   hard limits) and every failed scenario;
//! - `::warning` for what the check could not settle or let pass on purpose: unresolved rows,
//!   regressions excused by `ignore` in costbench.toml, scenarios missing in the candidate;
//! - `::notice` for placement rows (the same instructions, the time moved).
//!
//! GitHub shows at most 10 annotations of each of these levels per step, so each level is cut
//! to 9 lines and a tenth that says how many more there are (the job summary has them all).
//!
//! Names and messages come from run records and are untrusted: control characters are shown
//! escaped (`crate::escape::clean`), and the rest goes through GitHub's own escaping
//! ([`escape_data`], [`escape_property`]), so no name can end the line and start a workflow
//! command of its own (`::add-mask::`, `::stop-commands::`) or cut a property short.

use crate::escape::clean;
use costbench_judge::check::{Gate, Violation};
use costbench_judge::compare::{Comparison, Row, Verdict};
use costbench_record::fmt::fmt_change;
use costbench_record::instrument::Figure;
use std::fmt::Write as _;

/// Annotations GitHub shows per level and step; beyond it they are dropped silently.
pub const MAX_PER_LEVEL: usize = 10;

/// A workflow command's message, escaped as GitHub's toolkit does (`escapeData` in
/// `@actions/core`): `%`, carriage return and line feed.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value (`title=`, `file=`), escaped as GitHub's toolkit does
/// (`escapeProperty`): [`escape_data`]'s characters and the separators `:` and `,`.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One annotation before it is written out.
struct Annotation {
    title: String,
    file: Option<String>,
    message: String,
}

fn command(level: &str, a: &Annotation) -> String {
    let mut props = format!("title={}", escape_property(&a.title));
    if let Some(f) = &a.file {
        let _ = write!(props, ",file={}", escape_property(f));
    }
    format!("::{level} {props}::{}\n", escape_data(&a.message))
}

/// The lines of one level, cut to [`MAX_PER_LEVEL`] with a last line counting the rest.
fn level(out: &mut String, name: &str, what: &str, list: &[Annotation]) {
    let shown = if list.len() > MAX_PER_LEVEL {
        MAX_PER_LEVEL - 1
    } else {
        list.len()
    };
    for a in &list[..shown] {
        out.push_str(&command(name, a));
    }
    if shown < list.len() {
        out.push_str(&command(
            name,
            &Annotation {
                title: format!("costbench: {} more {what}", list.len() - shown),
                file: None,
                message: format!(
                    "GitHub shows {MAX_PER_LEVEL} annotations per level and step; the job \
                     summary and the report list all {} {what}.",
                    list.len()
                ),
            },
        ));
    }
}

/// `base → cand per op (+x.xx %)` of the row, when there is one.
fn figures(row: Option<&Row>) -> String {
    match row {
        Some(r) => format!(
            "{} → {} per op ({}); ",
            r.instrument.fmt_value(r.base),
            r.instrument.fmt_value(r.cand),
            fmt_change(r.change_pct)
        ),
        None => String::new(),
    }
}

fn find_row<'a>(c: &'a Comparison, id: &str, inst: Figure) -> Option<&'a Row> {
    c.rows.iter().find(|r| r.id == id && r.instrument == inst)
}

/// The workflow commands for a check's result: errors, then warnings, then notices, one line
/// each (see the module's comment). `config_file` is costbench.toml's path relative to the
/// repository root, if it exists: hard-limit violations are annotated on it (scenarios have no
/// source location in the run record, so the others carry no `file=`).
pub fn annotations(c: &Comparison, gate: &Gate, config_file: Option<&str>) -> String {
    let mut errors = Vec::new();
    // A side that did not finish comes before anything judged on it.
    for u in &c.unfinished {
        errors.push(Annotation {
            title: format!("costbench: the {} run did not finish ({})", u.side, u.why),
            file: None,
            message: clean(&u.note),
        });
    }
    if !gate.not_reached.is_empty() {
        errors.push(Annotation {
            title: "costbench: rows not reached".into(),
            file: None,
            message: format!(
                "{} rows were never measured, so the gate cannot pass them: {}",
                gate.not_reached.len(),
                clean(&gate.not_reached.join(", "))
            ),
        });
    }
    for v in &gate.violations {
        let Violation {
            id,
            instrument,
            kind,
            message,
            ..
        } = v;
        let row = find_row(c, id, *instrument);
        let evidence = row
            .filter(|_| *kind == "regression")
            .map(|r| format!("; {}", r.evidence))
            .unwrap_or_default();
        errors.push(Annotation {
            title: format!("costbench {kind}: {} ({instrument})", clean(id)),
            file: (*kind == "hard-limit")
                .then(|| config_file.map(str::to_string))
                .flatten(),
            message: format!(
                "{}: {}{}{}",
                instrument.title(),
                figures(row.filter(|_| *kind == "regression")),
                message,
                clean(&evidence)
            ),
        });
    }
    for b in &gate.budgets {
        errors.push(Annotation {
            title: format!("costbench budget: {} ({})", clean(&b.id), b.figure),
            file: (b.source == "costbench.toml")
                .then(|| config_file.map(str::to_string))
                .flatten(),
            message: clean(&b.message()),
        });
    }
    for x in &gate.complexity {
        errors.push(Annotation {
            title: format!("costbench complexity: {} ({})", clean(&x.family), x.kind),
            file: None,
            message: clean(&x.message),
        });
    }
    for f in &c.failed {
        errors.push(Annotation {
            title: format!(
                "costbench failed: {} ({}, {})",
                clean(&f.id),
                clean(&f.instrument),
                f.side
            ),
            file: None,
            message: format!(
                "{} failed in the {} run(s): {}: {}",
                clean(&f.instrument),
                f.side,
                clean(&f.kind),
                clean(&f.message)
            ),
        });
    }
    let mut warnings = Vec::new();
    let mut notices = Vec::new();
    // An instrument that could not run: an error when it fails the gate, else a warning.
    for n in &gate.missing {
        let a = Annotation {
            title: format!("costbench: {} not measured", clean(&n.instrument)),
            file: None,
            message: crate::check::missing_line(n, gate.missing_allowed),
        };
        if gate.missing_allowed {
            warnings.push(a);
        } else {
            errors.push(a);
        }
    }
    for n in &gate.notes {
        let row = find_row(c, &n.id, n.instrument);
        let a = Annotation {
            title: format!(
                "costbench {}: {} ({})",
                n.verdict,
                clean(&n.id),
                n.instrument
            ),
            file: None,
            message: format!(
                "{}: {}{} (not gated): {}",
                n.instrument.title(),
                figures(row),
                n.verdict,
                clean(&n.reason)
            ),
        };
        match n.verdict {
            Verdict::Placement => notices.push(a),
            _ => warnings.push(a),
        }
    }
    for id in &gate.ignored {
        let rows: Vec<String> = c
            .rows
            .iter()
            .filter(|r| &r.id == id && r.verdict == Verdict::Regression)
            .map(|r| format!("{} {}", r.instrument, fmt_change(r.change_pct)))
            .collect();
        warnings.push(Annotation {
            title: format!("costbench regression ignored: {}", clean(id)),
            file: config_file.map(str::to_string),
            message: format!(
                "significant regression ({}) not gated: `ignore` in costbench.toml matches this id",
                rows.join(", ")
            ),
        });
    }
    for id in &c.missing_in_cand {
        warnings.push(Annotation {
            title: format!("costbench: {} missing in the candidate", clean(id)),
            file: None,
            message: format!(
                "{} was measured in the baseline ({}) but not in the candidate: removed, renamed \
                 or filtered out?",
                clean(id),
                clean(&c.base.describe())
            ),
        });
    }
    let mut out = String::new();
    level(&mut out, "error", "errors", &errors);
    level(&mut out, "warning", "warnings", &warnings);
    level(&mut out, "notice", "notices", &notices);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_judge::check::{evaluate, CheckConfig};
    use costbench_judge::compare::{compare, CompareOptions};
    use costbench_judge::testing::*;
    use costbench_record::testing::*;

    #[test]
    fn escaping_follows_the_toolkit() {
        let cases = [
            ("plain", "plain", "plain"),
            ("100%", "100%25", "100%25"),
            ("%0A", "%250A", "%250A"),
            ("a\nb\r\nc", "a%0Ab%0D%0Ac", "a%0Ab%0D%0Ac"),
            ("x:y,z", "x:y,z", "x%3Ay%2Cz"),
            ("::error::", "::error::", "%3A%3Aerror%3A%3A"),
            ("µs ✓", "µs ✓", "µs ✓"),
        ];
        for (input, data, property) in cases {
            assert_eq!(escape_data(input), data, "{input:?}");
            assert_eq!(escape_property(input), property, "{input:?}");
        }
    }

    fn lines(s: &str) -> Vec<&str> {
        s.lines().collect()
    }

    #[test]
    fn errors_warnings_and_notices_of_a_check() {
        let c = every_verdict();
        let cand = record("c", vec![with_icount(scenario("fast"), 900.0)]);
        let cfg = CheckConfig {
            ignore: vec!["paired".into()],
            limit: vec![costbench_judge::check::Limit {
                scenario: "fast".into(),
                metric: None,
                soft: None,
                hard: Some(800.0),
            }],
        };
        let mut gate = evaluate(&c, &cand, &cfg);
        // A name with a control character, as a record can hold one.
        gate.violations.push(Violation {
            id: "new\u{1b}".into(),
            instrument: Figure::Icount,
            kind: "hard-limit",
            value: 10.0,
            limit: 8.0,
            message: "10.00 Ir per op, above the hard limit of 8.000 Ir".into(),
        });
        let text = annotations(&c, &gate, Some("costbench.toml"));
        let got = lines(&text);
        assert_eq!(
            got[..5],
            [
                // `%` is escaped as GitHub's toolkit does; GitHub shows it as `%` again.
                "::error title=costbench regression%3A slow (icount)::Instruction counts: 1000 Ir \
                 → 1234567 Ir per op (+123356.70 %25); +123356.70 %25 (significant); exact \
                 instruction counts",
                "::error title=costbench regression%3A unit (icount)::Instruction counts: 52.25 Ir \
                 → 60.50 Ir per op (+15.79 %25); +15.79 %25 (significant); exact instruction \
                 counts",
                "::error title=costbench hard-limit%3A fast (icount),file=costbench.toml::\
                 Instruction counts: 900.00 Ir per op, above the hard limit of 800.00 Ir",
                "::error title=costbench hard-limit%3A new\\u{1b} (icount),file=costbench.toml::\
                 Instruction counts: 10.00 Ir per op, above the hard limit of 8.000 Ir",
                "::error title=costbench failed%3A broken (icount%2C candidate)::icount failed \
                 in the candidate run(s): panicked: icount panicked",
            ],
            "{text}"
        );
        let warnings: Vec<&str> = got
            .iter()
            .copied()
            .filter(|l| l.starts_with("::warning "))
            .collect();
        assert!(
            warnings[0].starts_with(
                "::warning title=costbench unresolved%3A apart/1 (walltime)::Wall time: "
            ) && warnings[0].contains(" per op (+50.00 %25); ")
                && warnings[0].contains("unresolved (not gated): separate runs"),
            "{text}"
        );
        assert!(
            warnings.contains(
                &"::warning title=costbench regression ignored%3A paired,file=costbench.toml::\
                 significant regression (walltime +20.11 %25) not gated: `ignore` in costbench.toml \
                 matches this id"
            ),
            "{text}"
        );
        assert!(
            warnings
                .iter()
                .any(|w| w
                    .starts_with("::warning title=costbench%3A gone missing in the candidate::")),
            "{text}"
        );
        // Every line is one command: nothing in a name can start another.
        assert!(got.iter().all(|l| l.starts_with("::")), "{text}");
    }

    #[test]
    fn hostile_names_stay_on_their_line() {
        let evil = "x\n::add-mask::secret\r%0A::stop-commands::t,y:z";
        let base = record("b", vec![with_icount(scenario(evil), 100.0)]);
        let cand = record("c", vec![with_icount(scenario(evil), 200.0)]);
        let c = compare(&base, &cand, &CompareOptions::default());
        let gate = evaluate(&c, &cand, &CheckConfig::default());
        let text = annotations(&c, &gate, None);
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(
            text.starts_with(
                "::error title=costbench regression%3A x\\n%3A%3Aadd-mask%3A%3Asecret\\r%250A\
                 %3A%3Astop-commands%3A%3At%2Cy%3Az (icount)::"
            ),
            "{text}"
        );
        assert!(!text.trim_end().contains('\n') && !text.contains('\r'));
    }

    #[test]
    fn each_level_is_cut_to_what_github_shows() {
        let ids: Vec<String> = (0..25).map(|i| format!("s{i:02}")).collect();
        let base = record(
            "b",
            ids.iter()
                .map(|i| with_icount(scenario(i), 100.0))
                .collect(),
        );
        let cand = record(
            "c",
            ids.iter()
                .map(|i| with_icount(scenario(i), 150.0))
                .collect(),
        );
        let c = compare(&base, &cand, &CompareOptions::default());
        let gate = evaluate(&c, &cand, &CheckConfig::default());
        assert_eq!(gate.violations.len(), 25);
        let text = annotations(&c, &gate, None);
        let got = lines(&text);
        assert_eq!(got.len(), MAX_PER_LEVEL, "{text}");
        assert!(got[8].contains("s08 (icount)"), "{text}");
        assert!(
            got[9].starts_with("::error title=costbench%3A 16 more errors::GitHub shows 10 "),
            "{text}"
        );
        // A passing check without notes says nothing.
        let same = compare(&base, &base, &CompareOptions::default());
        let gate = evaluate(&same, &base, &CheckConfig::default());
        assert_eq!(annotations(&same, &gate, None), "");
    }
}
