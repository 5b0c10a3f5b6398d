//! Budgets: absolute limits declared by a suite (`Suite::budget`) or by `[[budget]]` in
//! `costbench.toml`, checked against one run's figures. Pure: a function of the run record and
//! the declared budgets.
//!
//! Every measured id that a budget's glob matches gets one [`BudgetCheck`] per figure the
//! budget limits; where several budgets limit the same figure of an id, the last declared wins
//! (the library's first, then costbench.toml's in file order), as `[[check.limit]]` entries do.
//! A figure the run did not measure fails its budget (`unmeasured`): a budget that cannot be
//! checked must not pass. Failed ids (a scenario that crashed) are failures of their own and
//! get no budget check. The binary size is the bench target's, checked once, as `bench:NAME`.
//! A budget's `complexity` is a family's, checked by [`crate::complexity::check_declared`].

use crate::glob::glob_match;
pub use costbench_record::model::budget::Budget;
use costbench_record::model::budget::{BudgetCheck, BudgetFigure, BudgetStatus};
use costbench_record::model::{RunRecord, ScenarioResult};

/// Where a budget was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `Suite::budget` in the bench binary.
    Library,
    /// A `[[budget]]` table of costbench.toml.
    Config,
}

impl Source {
    /// As the record and reports name it.
    pub fn name(self) -> &'static str {
        match self {
            Source::Library => "library",
            Source::Config => "costbench.toml",
        }
    }
}

/// The limit `b` sets on `figure`, if any.
fn limit_of(b: &Budget, figure: BudgetFigure) -> Option<f64> {
    match figure {
        BudgetFigure::Instructions => b.instructions,
        BudgetFigure::Allocations => b.allocations,
        BudgetFigure::Bytes => b.bytes,
        BudgetFigure::PeakHeap => b.peak_heap.map(|v| v as f64),
        BudgetFigure::Checks => b.checks,
        BudgetFigure::BinarySize => b.binary_size.map(|v| v as f64),
    }
}

/// The figure of one measured id, if the run measured it: as the judge's slice of the
/// instrument that measures it reads it ([`crate::instrument`]).
pub fn figure_of(r: &ScenarioResult, figure: BudgetFigure) -> Option<f64> {
    crate::instrument::budget_value(r, figure)
}

fn check(
    id: &str,
    figure: BudgetFigure,
    limit: f64,
    value: Option<f64>,
    by: (&Budget, Source),
) -> BudgetCheck {
    BudgetCheck {
        id: id.to_string(),
        figure,
        limit,
        value,
        status: match value {
            None => BudgetStatus::Unmeasured,
            Some(v) if v > limit => BudgetStatus::Exceeded,
            Some(_) => BudgetStatus::Within,
        },
        source: by.1.name().to_string(),
        scenario: by.0.scenario.clone(),
    }
}

/// Every budget of `budgets` (in declaration order) checked against `record`: per measured id,
/// then the binary size.
pub fn evaluate(record: &RunRecord, budgets: &[(Budget, Source)]) -> Vec<BudgetCheck> {
    let mut out = Vec::new();
    for r in record.results.iter().filter(|r| r.failures.is_empty()) {
        // Load rows (a service under a number of clients) carry only their figures under load.
        if r.clients.is_some() {
            continue;
        }
        for figure in BudgetFigure::ALL {
            if figure == BudgetFigure::BinarySize {
                continue;
            }
            let last = budgets.iter().rev().find_map(|(b, s)| {
                limit_of(b, figure)
                    .filter(|_| glob_match(&b.scenario, &r.id))
                    .map(|l| (l, (b, *s)))
            });
            if let Some((limit, by)) = last {
                out.push(check(&r.id, figure, limit, figure_of(r, figure), by));
            }
        }
    }
    let last = budgets
        .iter()
        .rev()
        .find_map(|(b, s)| limit_of(b, BudgetFigure::BinarySize).map(|l| (l, (b, *s))));
    if let Some((limit, by)) = last {
        let id = format!("bench:{}", record.suite.bench);
        let value = record.binary.as_ref().map(|b| b.total as f64);
        out.push(check(&id, BudgetFigure::BinarySize, limit, value, by));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::instrument::memory::{Allocations, Memory};
    use costbench_record::model::budget::BinarySize;
    use costbench_record::testing::{record, scenario, with_icount};

    fn with_allocs(mut r: ScenarioResult, allocs_per_op: f64) -> ScenarioResult {
        r.counters.memory = Some(Memory {
            allocator: "system".into(),
            allocations: Some(Allocations {
                allocs: 0,
                deallocs: 0,
                reallocs: 0,
                bytes_allocated: 0,
                peak_live_bytes: 64,
                allocs_per_op,
                deallocs_per_op: 0.0,
                reallocs_per_op: 0.0,
                bytes_allocated_per_op: 8.0 * allocs_per_op,
            }),
            not_counted: None,
            max_rss_kib: 1000,
        });
        r
    }

    fn budget(scenario: &str) -> Budget {
        Budget::new(scenario)
    }

    #[test]
    fn limits_apply_by_glob_and_the_last_declared_wins() {
        let run = record(
            "r",
            vec![
                with_allocs(with_icount(scenario("parse/a"), 900.0), 0.0),
                with_allocs(with_icount(scenario("parse/b"), 901.0), 2.0),
                with_icount(scenario("other"), 5000.0),
            ],
        );
        let budgets = [
            (
                Budget {
                    instructions: Some(900.0),
                    allocations: Some(0.0),
                    ..budget("parse/*")
                },
                Source::Library,
            ),
            (
                Budget {
                    allocations: Some(1.0),
                    ..budget("parse/b")
                },
                Source::Config,
            ),
        ];
        let got: Vec<(String, BudgetFigure, BudgetStatus, &str)> = evaluate(&run, &budgets)
            .into_iter()
            .map(|c| {
                (
                    c.id,
                    c.figure,
                    c.status,
                    if c.source == "library" { "lib" } else { "toml" },
                )
            })
            .collect();
        use BudgetFigure::*;
        use BudgetStatus::*;
        assert_eq!(
            got,
            [
                ("parse/a".into(), Instructions, Within, "lib"),
                ("parse/a".into(), Allocations, Within, "lib"),
                ("parse/b".into(), Instructions, Exceeded, "lib"),
                // costbench.toml's later entry loosens the library's limit, and it still fails.
                ("parse/b".into(), Allocations, Exceeded, "toml"),
            ]
        );
        let c = &evaluate(&run, &budgets)[2];
        assert_eq!(
            c.message(),
            "901 Ir/op, above the budget of 900 Ir/op (library)"
        );
    }

    #[test]
    fn unmeasured_figures_and_the_binary_size_fail_or_pass() {
        let mut run = record("r", vec![with_icount(scenario("a"), 10.0)]);
        let budgets = [(
            Budget {
                checks: Some(0.0),
                binary_size: Some(1000),
                ..budget("*")
            },
            Source::Config,
        )];
        let checks = evaluate(&run, &budgets);
        assert_eq!(checks.len(), 2);
        assert_eq!(checks[0].status, BudgetStatus::Unmeasured);
        assert!(
            checks[0].message().contains("add --instrument census"),
            "{}",
            checks[0].message()
        );
        assert_eq!(checks[1].id, "bench:bench");
        assert_eq!(checks[1].status, BudgetStatus::Unmeasured);
        run.binary = Some(BinarySize {
            text: 600,
            data: 300,
            bss: 8,
            total: 900,
            file: 5000,
            top_crates: vec![],
        });
        assert_eq!(evaluate(&run, &budgets)[1].status, BudgetStatus::Within);
        run.binary.as_mut().unwrap().total = 1001;
        let c = &evaluate(&run, &budgets)[1];
        assert_eq!(c.status, BudgetStatus::Exceeded);
        assert_eq!(
            c.message(),
            "1001 B, above the budget of 1000 B (costbench.toml)"
        );
    }
}
