//! The cache simulation's slice of the reports: its section of the counters table (every
//! simulated event per op), its column of the HTML overview (the estimated cycles per op), its
//! table of every simulated counter in its scenario's section of the page and its name in the
//! page's provenance line.

use super::{OverviewColumn, Section, Slice};
use crate::html::escape::escape;
use costbench_record::fmt::{fmt_count, fmt_ir};
use costbench_record::instrument::cache::{figure, ROWS};
use costbench_record::instrument::Figure;
use costbench_record::model::ScenarioResult;
use std::fmt::Write as _;

/// Its slice.
pub(super) const SLICE: Slice = Slice {
    counters: Some(counters),
    rank: 10,
    overview: &[OverviewColumn {
        header: "est. cycles/op (sim)",
        value: |r| Figure::Cache.per_op(r),
        fmt: fmt_ir,
        always: false,
        change: None,
    }],
    tables: Some(tables),
    measured_by: Some("callgrind cache-sim"),
    ..Slice::NONE
};

/// Its section of a group's counters table.
fn counters(cols: &[&ScenarioResult]) -> Section {
    let rows = ROWS
        .iter()
        .map(|(key, label)| {
            let cells = cols
                .iter()
                .map(|r| figure(r).map_or("-".into(), |c| fmt_count(c.per_op[*key])))
                .collect();
            (label.to_string(), cells)
        })
        .collect();
    (
        "simulated (valgrind's cache and branch model, not this CPU's), per op".into(),
        rows,
    )
}

/// Its table in a result's section of the HTML page: every simulated counter, per op and per
/// run.
fn tables(page: &mut String, r: &ScenarioResult) {
    let Some(c) = figure(r) else {
        return;
    };
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

#[cfg(test)]
mod tests {
    use costbench_record::testing::{record, scenario, with_icount};

    #[test]
    fn its_column_and_table_appear_where_measured() {
        let mut with = with_icount(scenario("counted"), 10.0);
        with.counters.cache = Some(costbench_record::instrument::cache::CacheSim {
            simulated: true,
            totals: [("EstimatedCycles".to_string(), 40)].into(),
            per_op: [("EstimatedCycles".to_string(), 40.0)].into(),
            callgrind_out: "x".into(),
        });
        let without = with_icount(scenario("plain"), 5.0);
        let runs = [record("r", vec![with, without])];
        let html = crate::html::test_page(&runs, None, &[], &[]);
        assert!(html.contains("<th>est. cycles/op (sim)</th>"), "{html}");
        assert!(html.contains(r#"<td data-v="40">40.00</td>"#));
        // Empty cells, which sort last: time and IQR of both, the estimated cycles of "plain".
        assert_eq!(
            html.matches(r#"<td data-v="">–</td>"#).count(),
            2 * 2 + 1,
            "{html}"
        );
        assert!(html.contains("<td>EstimatedCycles</td>"));
        assert_eq!(html.matches("measured by callgrind, callgrind cache-sim ").count(), 1);
    }
}
