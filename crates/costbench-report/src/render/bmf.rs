//! Bencher Metric Format: a run exported for `bencher run --adapter json`.

use super::{Hook, Renderer, RunExport};

/// BMF, a JSON document.
pub(super) struct Bmf;

impl Renderer for Bmf {
    fn export<'a>(&self) -> Option<Hook<RunExport<'a>>> {
        Hook::offered(
            "Bencher Metric Format (`bencher run --adapter json`)",
            |v| {
                serde_json::to_string_pretty(&crate::bmf::bmf(v.0)).expect("JSON values serialise")
            },
        )
    }

    fn closes_line(&self) -> bool {
        false
    }
}
