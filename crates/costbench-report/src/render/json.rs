//! JSON, schema-versioned: the run record, the comparison (with the gate's verdict for
//! `check`), the variant matrix, Miri's report and the census.

use super::{
    CensusView, ComparisonView, Hook, MatrixView, MiriView, Renderer, RunExport, RunView,
};

/// JSON documents, pretty-printed, without a closing line break (a file holds exactly the
/// document).
pub(super) struct Json;

impl Renderer for Json {
    fn run<'a>(&self) -> Option<Hook<RunView<'a>>> {
        Hook::offered(
            "The run record (the same as run.json) on stdout; with variants, the matrix",
            |v| serde_json::to_string_pretty(v.record).expect("a run record always serialises"),
        )
    }

    fn export<'a>(&self) -> Option<Hook<RunExport<'a>>> {
        Hook::offered("The run record (run.json), schema-versioned", |v| {
            // Through a JSON value, as BMF is: keys in order.
            let value = serde_json::to_value(v.0).expect("a run record always serialises");
            serde_json::to_string_pretty(&value).expect("JSON values serialise")
        })
    }

    fn comparison<'a>(&self) -> Option<Hook<ComparisonView<'a>>> {
        Hook::offered("The comparison as JSON", |v| match v.gate {
            Some(gate) => {
                let mut doc = serde_json::json!({
                    // 2: the gate's `notes` (unresolved and placement rows, never gated) and the
                    // comparison's schema 2 (see compare::COMPARISON_SCHEMA_VERSION).
                    "schema": "costbench-check",
                    "schema_version": 2,
                    "passed": gate.passed(),
                    "gate": gate,
                    "comparison": v.comparison,
                });
                // A side that did not finish, at the top as well (absent when both did).
                if !v.comparison.unfinished.is_empty() {
                    doc["unfinished"] = serde_json::json!(v.comparison.unfinished);
                }
                serde_json::to_string_pretty(&doc).expect("a check always serialises")
            }
            None => serde_json::to_string_pretty(v.comparison)
                .expect("a comparison always serialises"),
        })
    }

    fn matrix<'a>(&self) -> Option<Hook<MatrixView<'a>>> {
        Hook::offered("The matrix as JSON", |v| {
            serde_json::to_string_pretty(v.matrix).expect("the matrix serialises")
        })
    }

    fn miri<'a>(&self) -> Option<Hook<MiriView<'a>>> {
        Hook::offered(
            "The report as JSON (`\"schema\": \"costbench-miri\"`)",
            |v| serde_json::to_string_pretty(v.0).expect("a Miri report always serialises"),
        )
    }

    fn census<'a>(&self) -> Option<Hook<CensusView<'a>>> {
        Hook::offered("Every guard as JSON (`\"schema\": \"costbench-census\"`)", |v| {
            serde_json::to_string_pretty(&crate::instrument::census::document::json(v.census, v.guards))
                .expect("JSON values serialise")
        })
    }

    fn changes<'a>(&self) -> Option<Hook<super::ChangesView<'a>>> {
        Hook::offered(
            "Change points and drift as JSON (`\"schema\": \"costbench-changes\"`)",
            |v| {
                serde_json::to_string_pretty(&crate::changes::json(v))
                    .expect("JSON values serialise")
            },
        )
    }

    fn backfill<'a>(&self) -> Option<Hook<super::BackfillView<'a>>> {
        Hook::offered(
            "Every commit taken and what became of it (`\"schema\": \"costbench-backfill\"`)",
            |v| serde_json::to_string_pretty(v.0).expect("the summary serialises"),
        )
    }

    fn advice<'a>(&self) -> Option<Hook<super::AdviceView<'a>>> {
        Hook::offered(
            "Every candidate with its diff, effects and verdict (`\"schema\": \"costbench-advice\"`)",
            |v| serde_json::to_string_pretty(v.0).expect("the advice serialises"),
        )
    }

    fn closes_line(&self) -> bool {
        false
    }
}
