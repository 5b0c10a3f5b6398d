//! The HTML report's constant-time section: each measured id's verdict under `--instrument
//! constant-time` and its findings with their source lines. Nothing when the instrument did
//! not run.

use crate::html::escape::escape;
use costbench_record::instrument::consttime::CtVerdict;
use costbench_record::model::RunRecord;
use std::fmt::Write as _;

/// Appends the section to `page`.
pub(super) fn section(page: &mut String, run: &RunRecord) {
    let rows: Vec<_> = run
        .results
        .iter()
        .filter_map(|r| Some((r.id.as_str(), r.counters.constant_time.as_ref()?)))
        .collect();
    if rows.is_empty() {
        return;
    }
    page.push_str(
        "<section id=\"constant-time\"><h2>Constant time</h2>\
         <p>Memcheck on the bytes each scenario marked secret: every branch and memory address \
         that depends on them.</p><table><thead><tr><th>scenario</th><th>verdict</th>\
         <th>findings</th></tr></thead><tbody>",
    );
    for (id, c) in rows {
        let verdict = c.verdict();
        let class = match verdict {
            CtVerdict::Leaks(_) => " class=\"regression\"",
            CtVerdict::Accepted(_) => " class=\"accepted\"",
            _ => "",
        };
        let findings: Vec<String> = c.findings.iter().map(|f| escape(&f.line())).collect();
        let _ = write!(
            page,
            "<tr><td>{}</td><td{class}>{}</td><td>{}</td></tr>",
            escape(id),
            escape(&verdict.label()),
            findings.join("<br>")
        );
    }
    page.push_str("</tbody></table></section>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::instrument::consttime::{ConstantTime, CtFinding, CtKind};
    use costbench_record::instrument::consttime::testing::{finding as ct_finding, frame as ct_frame};
    use costbench_record::testing::{record, scenario};

    #[test]
    fn each_id_has_its_verdict_and_findings_escaped() {
        let mut leak = scenario("leak/<b>");
        leak.counters.constant_time = Some(ConstantTime {
            secret_marks: 1,
            secret_bytes: 1,
            findings: vec![CtFinding {
                count: 2,
                ..ct_finding(CtKind::Address, ct_frame("t::<u8>", "b.rs", 3))
            }],
            ..ConstantTime::default()
        });
        let mut page = String::new();
        section(&mut page, &record("r", vec![leak, scenario("plain")]));
        assert!(
            page.contains("<td>leak/&lt;b&gt;</td><td class=\"regression\">1 finding</td>"),
            "{page}"
        );
        assert!(
            page.contains("secret-dependent address at b.rs:3 in t::&lt;u8&gt; (body, 2×)"),
            "{page}"
        );
        assert!(
            !page.contains("plain"),
            "an id the instrument did not measure has no row"
        );
        let mut none = String::new();
        section(&mut none, &record("r", vec![scenario("x")]));
        assert_eq!(none, "");
    }
}
