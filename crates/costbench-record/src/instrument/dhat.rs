//! DHAT's slice of the run record: its figure ([`Dhat`], the key `dhat` of a result), whether a
//! result has it, and its columns of `memory.csv` (the whole process's heap totals). It has no
//! compared figure and no history metric (its registry entry lists none): DHAT measures the
//! whole process, setup included, which no per-op judgement can use.

use super::slice::{Column, Slice};
use crate::model::ScenarioResult;
use serde::{Deserialize, Serialize};

/// DHAT's heap figures for the scenario's whole process (DHAT cannot be limited to the body).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Dhat {
    /// Bytes allocated over the whole process.
    pub total_bytes: u64,
    /// Blocks allocated over the whole process.
    pub total_blocks: u64,
    /// Bytes live at the global heap peak (t-gmax).
    pub peak_bytes: u64,
    /// Blocks live at the global heap peak.
    pub peak_blocks: u64,
    /// DHAT's JSON output for this id, relative to the output directory.
    pub dhat_out: String,
}

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| r.counters.dhat.is_some()),
    memory_csv: &[
        Column {
            header: "dhat_total_bytes",
            cell: |r| Some(figure(r)?.total_bytes.to_string()),
        },
        Column {
            header: "dhat_total_blocks",
            cell: |r| Some(figure(r)?.total_blocks.to_string()),
        },
        Column {
            header: "dhat_peak_bytes",
            cell: |r| Some(figure(r)?.peak_bytes.to_string()),
        },
        Column {
            header: "dhat_peak_blocks",
            cell: |r| Some(figure(r)?.peak_blocks.to_string()),
        },
    ],
    #[cfg(any(test, feature = "testing"))]
    sample: Some(sample),
    ..Slice::NONE
};

/// The figure of a result, if it has one.
pub fn figure(r: &ScenarioResult) -> Option<&Dhat> {
    r.counters.dhat.as_ref()
}

/// Its figures in the fixtures' run of every figure: the heap totals, on the second row.
#[cfg(any(test, feature = "testing"))]
fn sample(run: &mut crate::model::RunRecord) {
    run.results[1].counters.dhat = Some(Dhat {
        total_bytes: 4096,
        total_blocks: 3,
        peak_bytes: 2048,
        peak_blocks: 2,
        dhat_out: "dhat/index%2Fsum%2Funchecked.json".into(),
    });
}
