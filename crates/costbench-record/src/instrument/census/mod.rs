//! The census's slice of the run record. It rides on icount's run: its rows hold the checks
//! that ran, none for a scenario without checks, so every result counts as having its figure.
//! Its figure's type is [`figure`]'s ([`Census`]); the static census of a binary, which the
//! measuring crate finds and `costbench census` prints, is [`guards`]'s ([`StaticCensus`], with
//! the kinds of check in [`classify`]).

pub mod classify;
pub mod figure;
pub mod guards;

pub use figure::{Census, CensusFrame, CensusKind, CensusSite};
pub use guards::{Frame, Guard, StaticCensus, SCHEMA, SCHEMA_VERSION, TOP_SITES};

use super::slice::Slice;

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|_| true),
    #[cfg(any(test, feature = "testing"))]
    sample: Some(sample),
    ..Slice::NONE
};

/// Its figures in the fixtures' run of every figure: one kind of checks, on the first row.
#[cfg(any(test, feature = "testing"))]
fn sample(run: &mut crate::model::RunRecord) {
    use crate::model::{Census, CensusKind};
    run.results[0].census = Some(Census {
        checks: 2000,
        checks_per_op: 2.0,
        sites: 3,
        by_kind: vec![CensusKind {
            kind: "bounds".into(),
            checks: 2000,
            checks_per_op: 2.0,
            sites: 3,
        }],
        top_sites: vec![],
    });
}
