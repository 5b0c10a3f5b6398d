//! The dashboard's drift table: each series' change since the reference, against its budget,
//! the series over budget first and then by the size of the change, sortable by any column
//! (the HTML report's sortable tables). Small steps that each pass stay visible here as the
//! sum they add up to.

use super::change_list::{direction, series_cell};
use super::{short, value, DashboardInput, Facts};
use crate::html::escape::escape;
use costbench_record::fmt::{fmt_change, fmt_js_number, fmt_threshold};
use std::fmt::Write as _;

/// Rows shown before the table is unfolded (all those over budget when there are more): a
/// page of a hundred series would otherwise open on a hundred rows of "+0.00 %".
const SHOWN: usize = 10;

/// The drift section.
pub(super) fn section(page: &mut String, input: &DashboardInput, facts: &Facts) {
    let t = input.timeline;
    let _ = write!(
        page,
        "<h2 id=\"drift\">Drift since {}</h2>",
        escape(input.reference.unwrap_or("the oldest run"))
    );
    if input.drift.is_empty() {
        page.push_str(
            "<p class=\"note\">No drift budget: set one in costbench.toml (<code>[history] \
             drift-budget</code>) or with <code>--drift-budget</code>.</p>",
        );
        return;
    }
    let over = input.drift.iter().filter(|d| d.over_budget).count();
    let _ = write!(
        page,
        "<p class=\"note\">{over} of {} series changed by more than their budget since the \
         reference (wall time: the medians of a few runs at each end).</p>\
         <table class=\"sortable drift\"><thead><tr><th class=\"text\">series</th>\
         <th class=\"text\">metric</th><th>reference</th><th>latest</th><th>change</th>\
         <th>budget</th><th class=\"text\">commits</th></tr></thead><tbody>",
        input.drift.len()
    );
    let mut rows: Vec<_> = input.drift.iter().collect();
    rows.sort_by(|a, b| {
        b.over_budget
            .cmp(&a.over_budget)
            .then(b.change_pct.abs().total_cmp(&a.change_pct.abs()))
    });
    let commit = |run: usize| {
        t.runs[run]
            .commit
            .as_deref()
            .map_or_else(|| "-".to_string(), |c| escape(short(c)))
    };
    let shown = over.max(SHOWN);
    for (k, d) in rows.iter().enumerate() {
        let s = &t.series[d.series];
        let _ = write!(
            page,
            "<tr data-s=\"{}\"{}>{}<td class=\"text\">{}</td><td data-v=\"{}\">{}</td>\
             <td data-v=\"{}\">{}</td><td class=\"{}\" data-v=\"{}\">{}</td>\
             <td data-v=\"{}\">{}</td><td class=\"text\"><code>{}</code> → <code>{}</code></td></tr>",
            d.series,
            if d.over_budget {
                " class=\"over\""
            } else if k >= shown {
                " class=\"more\""
            } else {
                ""
            },
            series_cell(input, facts, d.series),
            s.metric.as_str(),
            fmt_js_number(d.reference),
            value(s.metric, d.reference),
            fmt_js_number(d.latest),
            value(s.metric, d.latest),
            if d.over_budget {
                direction(d.change_pct)
            } else {
                ""
            },
            fmt_js_number(d.change_pct),
            fmt_change(d.change_pct),
            fmt_js_number(d.budget_pct),
            fmt_threshold(d.budget_pct),
            commit(d.reference_run),
            commit(d.latest_run),
        );
    }
    page.push_str("</tbody></table>");
    if rows.len() > shown {
        let _ = write!(
            page,
            "<button type=\"button\" id=\"drift-more\" class=\"more-toggle\">show all {} \
             series ({} more, each within its budget)</button>",
            rows.len(),
            rows.len() - shown
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::branch;
    use super::super::{render, DashboardInput};

    #[test]
    fn over_budget_first_and_highlighted() {
        let (t, c, n, d) = branch(30, 10);
        let over: Vec<_> = d.iter().filter(|d| d.over_budget).collect();
        // Every fifth id's instruction count stepped by 10 %, the fourth id's wall time by 8 %:
        // over the 5 % budget.
        assert_eq!(over.len(), 3, "{d:?}");
        let html = render(&DashboardInput {
            title: "t",
            generated_at: "now",
            timeline: &t,
            changes: &c,
            notes: &n,
            drift: &d,
            reference: Some("<v1>"),
        });
        assert!(html.contains("<h2 id=\"drift\">Drift since &lt;v1&gt;</h2>"));
        assert!(html.contains("3 of 20 series changed by more than their budget"));
        let table = &html[html.find("<table class=\"sortable drift\">").unwrap()..];
        let first_row = &table[table.find("<tbody>").unwrap()..];
        assert!(
            first_row.starts_with("<tbody><tr data-s=\"0\" class=\"over\">"),
            "{first_row}"
        );
        assert_eq!(table.matches("<tr data-s=").count(), 20);
        assert_eq!(table.matches("class=\"over\"").count(), 3);
        // Ten rows show; the other ten unfold on the button.
        assert_eq!(table.matches("class=\"more\"").count(), 10);
        assert!(table.contains("show all 20 series (10 more, each within its budget)"));
        // Sort keys in full, text rounded.
        assert!(
            table.contains(
                "<td data-v=\"1000\">1,000 Ir/op</td><td data-v=\"1100\">1,100 Ir/op</td>\
                 <td class=\"regression\" data-v=\"10.000000000000009\">+10.00 %</td>\
                 <td data-v=\"5\">5 %</td>"
            ),
            "{table}"
        );
    }
}
