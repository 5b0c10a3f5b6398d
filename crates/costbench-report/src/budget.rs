//! Budgets and binary size as text: the lines a run's table ends with (every budget checked,
//! the broken ones first, and the bench binary's size), and the broken budgets of `check`'s gate
//! for the terminal and markdown. Pure functions of the record's [`BudgetCheck`]s.

use costbench_record::model::budget::{BinarySize, BudgetCheck};
use costbench_record::model::RunRecord;
use std::fmt::Write as _;

/// The budgets section of a run's table: nothing when no budget applies; otherwise one line
/// per broken budget (id, figure, value, limit, where declared) and a count of those within.
pub fn terminal(record: &RunRecord) -> String {
    let mut out = String::new();
    if record.budgets.is_empty() {
        return out;
    }
    let broken: Vec<&BudgetCheck> = record.broken_budgets().collect();
    let within = record.budgets.len() - broken.len();
    if broken.is_empty() {
        let _ = writeln!(out, "\nbudgets: all {within} within their limits");
    } else {
        let _ = writeln!(
            out,
            "\nbudgets: {} BROKEN, {within} within their limits:",
            broken.len()
        );
        for b in broken {
            let _ = writeln!(out, "  {}", line(b));
        }
    }
    out
}

/// The complexity section of a run's table: each family's fit (best class, constant, error,
/// power-law exponent) and each declared class that the fit disagrees with.
pub fn complexity(record: &RunRecord) -> String {
    let mut out = String::new();
    if record.complexity.is_empty() && record.complexity_checks.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "\ncomplexity (instructions per op against the size n of NAME/n):"
    );
    for f in &record.complexity {
        let declared = record
            .complexity_checks
            .iter()
            .find(|c| c.family == f.family)
            .map(|c| {
                if c.passed {
                    "; as declared".to_string()
                } else {
                    format!("; BROKEN: {} ({})", c.message, c.source)
                }
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {}: O({}), {} + {} × {} Ir/op (relative error {:.1e}); power law n^{:.2}; sizes {}{declared}",
            crate::escape::clean(&f.family),
            f.class,
            trim(f.offset),
            trim(f.constant),
            f.class,
            f.rms_rel_error,
            f.exponent,
            f.sizes
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    for c in record
        .complexity_checks
        .iter()
        .filter(|c| c.fitted.is_none())
    {
        let _ = writeln!(
            out,
            "  {}: BROKEN: {} ({})",
            crate::escape::clean(&c.family),
            c.message,
            c.source
        );
    }
    out
}

/// A fitted coefficient with four significant digits, trailing zeros dropped.
pub(crate) fn trim(v: f64) -> String {
    let s = if v.abs() >= 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.4}")
    };
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// One budget check: "parse/split (allocations): 3 allocs/op, above the budget of 0 allocs/op
/// (costbench.toml)".
pub fn line(b: &BudgetCheck) -> String {
    format!(
        "{} ({}): {}",
        crate::escape::clean(&b.id),
        b.figure,
        b.message()
    )
}

/// The bench binary's size in one line: "binary: 412,360 B (text 301,024, data 111,336);
/// largest crates: std 120,400, core 80,102, ...".
pub fn size_line(s: &BinarySize) -> String {
    let crates: Vec<String> = s
        .top_crates
        .iter()
        .take(5)
        .map(|c| format!("{} {}", crate::escape::clean(&c.krate), thousands(c.bytes)))
        .collect();
    format!(
        "binary: {} B (text {}, data {}); code by crate: {}",
        thousands(s.total),
        thousands(s.text),
        thousands(s.data),
        crates.join(", ")
    )
}

pub use costbench_record::fmt::thousands;

/// The complexity findings of `check`'s gate as markdown table rows (family, kind, why).
pub fn complexity_markdown_rows(found: &[costbench_judge::check::ComplexityFinding]) -> String {
    let mut out = String::new();
    for c in found {
        let _ = writeln!(
            out,
            "| {} | complexity: {} | {} |",
            crate::escape::escape_cell(&c.family),
            c.kind,
            crate::escape::escape_cell(&c.message)
        );
    }
    out
}

/// The broken budgets of `check`'s gate as markdown table rows (scenario, figure, why).
pub fn markdown_rows(broken: &[BudgetCheck]) -> String {
    let mut out = String::new();
    for b in broken {
        let _ = writeln!(
            out,
            "| {} | budget: {} | {} |",
            crate::escape::escape_cell(&b.id),
            b.figure,
            crate::escape::escape_cell(&b.message())
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::model::budget::{BudgetFigure, BudgetStatus, CrateSize};
    use costbench_record::testing::{record, scenario};

    fn check(id: &str, figure: BudgetFigure, value: Option<f64>, limit: f64) -> BudgetCheck {
        BudgetCheck {
            id: id.into(),
            figure,
            limit,
            value,
            status: match value {
                None => BudgetStatus::Unmeasured,
                Some(v) if v > limit => BudgetStatus::Exceeded,
                Some(_) => BudgetStatus::Within,
            },
            source: "library".into(),
            scenario: "*".into(),
        }
    }

    #[test]
    fn a_run_lists_broken_budgets_and_counts_the_rest() {
        let mut r = record("r", vec![scenario("a")]);
        assert_eq!(terminal(&r), "");
        r.budgets = vec![
            check("a", BudgetFigure::Instructions, Some(2.0031), 2.05),
            check("a", BudgetFigure::Allocations, Some(3.0), 0.0),
            check("b", BudgetFigure::Checks, None, 0.0),
        ];
        assert_eq!(
            terminal(&r),
            "\nbudgets: 2 BROKEN, 1 within their limits:\n  \
             a (allocations): 3 allocs/op, above the budget of 0 allocs/op (library)\n  \
             b (checks): not measured, so the budget of 0 checks/op (library) could not be \
             checked: add --instrument census\n"
        );
        r.budgets.truncate(1);
        assert_eq!(terminal(&r), "\nbudgets: all 1 within their limits\n");
    }

    #[test]
    fn sizes_read_in_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        let s = BinarySize {
            text: 300_000,
            data: 12_345,
            bss: 8,
            total: 312_345,
            file: 4_000_000,
            top_crates: vec![
                CrateSize {
                    krate: "std".into(),
                    bytes: 120_000,
                },
                CrateSize {
                    krate: "core".into(),
                    bytes: 80_000,
                },
            ],
        };
        assert_eq!(
            size_line(&s),
            "binary: 312,345 B (text 300,000, data 12,345); code by crate: std 120,000, core 80,000"
        );
    }
}
