//! What explains a comparison's changes, read from both sides: the checks each explained
//! scenario executed (the census, from its kept callgrind output and the binary it names) and the
//! machine code of its largest movers, for the judge's `compare::explain::attach_evidence`. Read after the
//! judge has said which rows it explains (`cmp.functions`) and before it attaches them, so that
//! the judge gets data rather than a loader, as `icount::profile::load_changed` gives it the
//! profiles.
//!
//! Reads files (callgrind outputs, binaries) and nothing else.

use crate::instrument::census::sites::SiteLoader;
use costbench_judge::compare::explain::{select_asm, Evidence};
use costbench_judge::compare::{Comparison, Presence};
use costbench_record::model::RunRecord;
use std::path::Path;

/// One side of a comparison as the reader needs it: its run, its output directory (`None` for
/// a run loaded from history, which keeps no callgrind output) and, when known, the checkout its
/// binary was built from (source files under it are named relative to it, so that the two
/// sides' checkouts name the same file alike).
#[derive(Debug, Clone, Copy)]
pub struct Side<'a> {
    /// The run.
    pub run: &'a RunRecord,
    /// Its output directory.
    pub dir: Option<&'a Path>,
    /// Its checkout.
    pub root: Option<&'a Path>,
}

/// Reads, for every scenario `cmp.functions` explains, both sides' executed checks (when both
/// runs measured the census) and the listings of the movers the judge's [`select_asm`] asks for:
/// what `compare::explain::attach_evidence` shows, and no more.
pub fn read(cmp: &Comparison, base: Side<'_>, cand: Side<'_>) -> Evidence {
    let mut evidence = Evidence::default();
    let mut loader = SiteLoader::default();
    for f in &cmp.functions {
        let Some(b) = loader.load(base.run, base.dir, &f.id, base.root) else {
            continue;
        };
        let Some(c) = loader.load(cand.run, cand.dir, &f.id, cand.root) else {
            continue;
        };
        let both = b.and_then(|b| c.map(|c| (b, c)));
        evidence.census.insert(f.id.clone(), both);
    }
    evidence.asm = select_asm(cmp, |id, function, presence| {
        listings(id, function, presence, base, cand)
    });
    evidence
}

/// Both sides' listings of `function` as scenario `id` ran it: a side where it is absent
/// (`presence`) is not read.
fn listings(
    id: &str,
    function: &str,
    presence: Presence,
    base: Side<'_>,
    cand: Side<'_>,
) -> Result<costbench_judge::compare::asm::SideListings, String> {
    let side = |s: Side<'_>, present: bool| {
        present
            .then(|| crate::asm::measured_listing(s.run, s.dir, id, function, s.root, true))
            .transpose()
            .map(Option::flatten)
            .map_err(|e| format!("{e:#}"))
    };
    Ok((
        side(base, presence != Presence::CandidateOnly)?,
        side(cand, presence != Presence::BaselineOnly)?,
    ))
}
