//! The census's summary after `run`'s terminal table: one line per measured id with the checks
//! it executed per op, and its most executed sites with their source lines. Pure.

use super::document::short_path;
use costbench_record::fmt::fmt_ir_exact_zero;
use costbench_record::model::{Census, RunRecord};
use std::fmt::Write as _;

/// One line per measured id with a census: "N bounds checks per op at M sites, K overflow
/// checks per op", other kinds when present, and the top sites with their source lines.
pub fn dynamic_summary(run: &RunRecord, base: Option<&std::path::Path>) -> String {
    let mut out = String::new();
    let with: Vec<_> = run
        .results
        .iter()
        .filter_map(|r| r.census.as_ref().map(|c| (r, c)))
        .collect();
    if with.is_empty() {
        return out;
    }
    let _ = writeln!(out, "\nchecks executed per op (census):");
    for (r, c) in with {
        let _ = writeln!(out, "  {}: {}", r.id, census_sentence(c, &r.unit));
        for s in c.top_sites.iter().take(3) {
            let at = |file: &Option<String>, line: Option<u32>| match (file, line) {
                (Some(f), Some(l)) => format!("{}:{l}", short_path(f, base)),
                (Some(f), None) => short_path(f, base),
                _ => "?".into(),
            };
            // A check inlined from elsewhere (std's slicing code, a helper) also names the
            // line in the function it ended up in.
            let via = match s.inline_chain.last() {
                Some(outer) if s.inline_chain.len() > 1 => {
                    format!(" via {}", at(&outer.file, outer.line))
                }
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "      {:>10}/op  {:<12} {}{via}  ({})",
                fmt_ir_exact_zero(s.per_op),
                s.kind,
                at(&s.file, s.line),
                s.function
            );
        }
    }
    out
}

/// "2.000 bounds checks per op at 1 site, 0 overflow checks per op (+ 1.000 unwrap)".
pub fn census_sentence(c: &Census, unit: &str) -> String {
    let (bounds, bsites) =
        c.per_op_where(|k| matches!(k, "slice-index" | "slice-range" | "str-boundary"));
    let (ovf, osites) = c.per_op_where(|k| k == "overflow");
    let plural = |n: usize| if n == 1 { "site" } else { "sites" };
    let mut s = format!(
        "{} bounds checks per op at {bsites} {}, {} overflow checks per op",
        fmt_ir_exact_zero(bounds),
        plural(bsites),
        fmt_ir_exact_zero(ovf)
    );
    if osites > 0 {
        let _ = write!(s, " at {osites} {}", plural(osites));
    }
    let others: Vec<String> = c
        .by_kind
        .iter()
        .filter(|k| {
            k.checks > 0
                && !matches!(
                    k.kind.as_str(),
                    "slice-index" | "slice-range" | "str-boundary" | "overflow"
                )
        })
        .map(|k| format!("{} {}", fmt_ir_exact_zero(k.checks_per_op), k.kind))
        .collect();
    if !others.is_empty() {
        let _ = write!(s, "; also per op: {}", others.join(", "));
    }
    let _ = write!(s, " (op = {unit})");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::model::{CensusKind, CensusSite};

    #[test]
    fn sentence_names_bounds_overflow_and_the_rest() {
        let kind = |k: &str, checks: u64, sites: usize| CensusKind {
            kind: k.into(),
            checks,
            checks_per_op: checks as f64 / 10.0,
            sites,
        };
        let c = Census {
            checks: 45,
            checks_per_op: 4.5,
            sites: 4,
            by_kind: vec![
                kind("slice-index", 20, 1),
                kind("slice-range", 10, 2),
                kind("overflow", 0, 0),
                kind("unwrap", 15, 1),
            ],
            top_sites: vec![CensusSite {
                address: "0x1".into(),
                kind: "slice-index".into(),
                function: "f".into(),
                file: None,
                line: None,
                inline_chain: vec![],
                executions: 20,
                per_op: 2.0,
            }],
        };
        assert_eq!(
            census_sentence(&c, "lookups"),
            "3.000 bounds checks per op at 3 sites, 0 overflow checks per op; also per op: 1.500 unwrap (op = lookups)"
        );
    }

    #[test]
    fn dynamic_summary_snapshot() {
        use costbench_record::testing::{assert_snapshot, every_figure};
        assert_snapshot!(
            "census_dynamic_summary",
            &dynamic_summary(&every_figure(), None),
        );
    }
}
