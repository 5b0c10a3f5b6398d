//! One section per measured id: its facts (the facts of the instruments' slices, and the changes
//! of its compared figures with their evidence), the slices' charts against the baseline's, the
//! functions behind an instruction-count change, the slices' tables, failures and the history
//! charts. Renders only: changes and history bands come in judged.

use super::escape::escape;
use super::history_chart::history_chart;
use super::{cell, git_label, History};
use crate::instrument::Place;
use costbench_judge::compare::{self};
use costbench_record::fmt::{fmt_change, fmt_count, fmt_delta, fmt_ir};
use costbench_record::instrument::Figure;
use costbench_record::model::{RunRecord, ScenarioResult};
use std::collections::HashMap;
use std::fmt::Write as _;

/// One fact of a scenario section: a name and its value.
fn fact(page: &mut String, name: &str, value: &str) {
    let _ = write!(
        page,
        "<div><span>{}</span><span>{}</span></div>",
        escape(name),
        escape(value)
    );
}

/// What the comparison says about one scenario.
pub(super) struct Changes<'a> {
    pub(super) rows: &'a HashMap<(&'a str, Figure), &'a compare::Row>,
    pub(super) functions: Option<&'a compare::FunctionChanges>,
    /// The comparison, whose explanations of the scenario the instruments' slices show.
    pub(super) comparison: Option<&'a compare::Comparison>,
    /// The machine code of its largest movers.
    pub(super) asm: Vec<&'a compare::asm::AsmDiff>,
    /// Its differential flame graph.
    pub(super) flame: Option<&'a compare::flame::FlameDiff>,
}

/// The section of measured id `r` (the `k`th of `run`), with its baseline `base`.
pub(super) fn scenario(
    page: &mut String,
    k: usize,
    run: &RunRecord,
    r: &ScenarioResult,
    base: Option<(&RunRecord, &ScenarioResult)>,
    changes: Changes,
    history: &[&History],
) {
    let Changes {
        rows,
        functions,
        comparison,
        asm,
        flame,
    } = changes;
    let _ = write!(
        page,
        "<section class=\"scenario\" id=\"s-{k}\" data-scenario=\"{}\"><h3>{}</h3>\
         <p class=\"note\">op: {} · {} per run of the body</p><div class=\"facts\">",
        escape(&r.id),
        escape(&r.id),
        escape(&r.unit),
        r.ops
    );
    // The facts of the slices that stand first, the changes of the compared figures, then the
    // other slices' facts.
    for (name, value) in crate::instrument::facts(r, Place::First) {
        fact(page, name, &value);
    }
    for inst in Figure::ALL {
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
    for place in [Place::Early, Place::Late] {
        for (name, value) in crate::instrument::facts(r, place) {
            fact(page, name, &value);
        }
    }
    page.push_str("</div>");
    crate::instrument::charts(page, r, base);
    if let Some(f) = functions {
        function_changes(page, f);
    }
    if let Some(c) = comparison {
        for e in crate::instrument::explains() {
            (e.html)(page, c, &r.id);
        }
    }
    for d in asm {
        super::explain::asm(page, d);
    }
    if let Some(d) = flame {
        super::explain::flame(page, d);
    }
    crate::instrument::tables(page, r);
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
    let measured_by = crate::instrument::measured_by(r);
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
fn function_changes(page: &mut String, f: &compare::FunctionChanges) {
    if let Some(why) = &f.unavailable {
        let _ = write!(
            page,
            "<p class=\"note\">functions behind the change: {}</p>",
            escape(why)
        );
        return;
    }
    for note in [&f.placement_note, &f.codegen_note, &f.inlining_note]
        .into_iter()
        .flatten()
    {
        let _ = write!(page, "<p class=\"note\">{}</p>", escape(note));
    }
    let _ = write!(
        page,
        "<p>Functions whose own cost changed: the scenario {} Ir/op.</p>",
        escape(&fmt_delta(f.change))
    );
    if f.top.is_empty() {
        page.push_str("<p class=\"note\">No function's own cost changed.</p>");
        return;
    }
    page.push_str(
        "<table class=\"sortable functions\"><thead><tr><th>function</th>\
         <th>self Ir/op (baseline)</th><th>self Ir/op (candidate)</th><th>Δ self</th>\
         <th>share</th><th>calls per op (baseline)</th><th>calls per op (candidate)</th>\
         <th>inclusive Ir/op</th><th>Δ inclusive</th></tr></thead><tbody>",
    );
    for d in &f.top {
        let _ = write!(
            page,
            "<tr><td><code>{}</code>{}</td>{}{}{}{}{}{}{}{}</tr>",
            escape(&d.name),
            d.presence
                .label()
                .map(|side| format!(" <span class=\"note\">({side})</span>"))
                .unwrap_or_default(),
            cell(Some(d.base_self), fmt_ir),
            cell(Some(d.cand_self), fmt_ir),
            cell(Some(d.self_change()), |v| format!("{v:+.3}")),
            cell(d.share, |_| crate::movers::share(d)),
            cell(Some(d.base_calls), fmt_count),
            cell(Some(d.cand_calls), fmt_count),
            cell(Some(d.cand_inclusive), fmt_ir),
            cell(Some(d.inclusive_change()), |v| format!("{v:+.3}")),
        );
    }
    page.push_str("</tbody></table>");
    if let Some(o) = f.omitted {
        let _ = write!(
            page,
            "<p class=\"note\">and {} more functions whose own cost changed, {} Ir/op together</p>",
            o.functions,
            escape(&fmt_delta(o.change))
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_behind_a_change_are_listed_with_generic_names_escaped() {
        let f = compare::FunctionChanges {
            id: "a".into(),
            top: vec![compare::FunctionDelta {
                name: "<alloc::vec::Vec<T> as core::ops::Drop>::drop".into(),
                base_self: 10.0,
                cand_self: 12.5,
                base_inclusive: 20.0,
                cand_inclusive: 19.0,
                base_calls: 1.0,
                cand_calls: 1.0,
                share: Some(1.0),
                presence: compare::Presence::Both,
            }],
            change: 2.5,
            omitted: None,
            unavailable: None,
            placement_note: None,
            inlining_note: None,
            codegen_note: None,
        };
        let mut page = String::new();
        function_changes(&mut page, &f);
        assert!(
            page.contains("<code>&lt;alloc::vec::Vec&lt;T&gt; as core::ops::Drop&gt;::drop</code>")
        );
        assert!(page.contains(r#"<td data-v="2.5">+2.500</td>"#), "{page}");
        assert!(page.contains(r#"<td data-v="-1">-1.000</td>"#), "{page}");
    }
}
