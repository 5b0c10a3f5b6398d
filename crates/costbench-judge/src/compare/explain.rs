//! Explaining a comparison: fills its census diffs and machine-code diffs from what the caller
//! read of the two sides (the callgrind profiles and binaries that were measured), with the pure
//! diffs of [`census`] and [`asm`]. The data types live there; this
//! file only walks the comparison. The reading is the measuring crate's (`explain::read`), done
//! before [`attach_evidence`] is called: the judge is handed plain data, never a loader.

use super::asm::{self, SideListings};
use super::types::{Comparison, Presence};
use crate::instrument::census::{self, SideSites};
use std::collections::HashMap;

/// What was read of both sides to explain a comparison's changes, for [`attach_evidence`].
///
/// The rows explained are those `cmp.functions` lists (significant or placement-labelled
/// instruction-count changes); a reader fills, for each of them:
#[derive(Debug, Default)]
pub struct Evidence {
    /// By id: both sides' executed checks with the ops each run counted, or why they cannot be
    /// had. An id with no census on either side has no entry: the census is an instrument the
    /// run may not have measured.
    pub census: HashMap<String, Result<(SideSites, SideSites), String>>,
    /// By (id, function), for the movers whose machine code is shown (in `cmp.functions` order,
    /// until [`ASM_TOP`](super::asm::ASM_TOP) of an id's had a listing on either side, as the measuring crate's
    /// `explain::AsmSelection` chooses them): both sides' listings (`None` for
    /// a side whose binary holds no function of that name), or why they cannot be had.
    pub asm: HashMap<(String, String), Result<SideListings, String>>,
}

/// Fills `cmp.census` and `cmp.asm` from `evidence`: the census diff of every explained id
/// whose runs both carry a census, and the machine-code diffs of its largest movers.
pub fn attach_evidence(cmp: &mut Comparison, evidence: Evidence) {
    let Evidence { mut census, asm } = evidence;
    attach_census(cmp, |id| census.remove(id));
    attach_asm(cmp, asm);
}

/// Fills `cmp.census` for every id whose functions `cmp.functions` lists (significant or
/// placement-labelled instruction-count changes) and whose runs both carry a census, from the
/// sites `sites(id)` gives: (baseline, candidate), or why they cannot be had. Ids with no
/// census on either side are skipped: the census is an instrument the run may not have measured.
fn attach_census(
    cmp: &mut Comparison,
    mut sites: impl FnMut(&str) -> Option<Result<(SideSites, SideSites), String>>,
) {
    for id in crate::instrument::explained(cmp) {
        let entry = match sites(&id) {
            None => continue,
            Some(Ok(((b, bo), (c, co)))) => census::diff(id, &b, bo, &c, co),
            Some(Err(e)) => census::CensusDiff {
                id,
                appeared: Vec::new(),
                disappeared: Vec::new(),
                changed: Vec::new(),
                unavailable: Some(e),
            },
        };
        cmp.census.push(entry);
    }
}

/// Fills `cmp.asm` with the diffs of the movers `asm` holds listings for (those
/// the measuring crate's reader chose: `explain::AsmSelection`), in the order `cmp.functions`
/// lists them.
fn attach_asm(
    cmp: &mut Comparison,
    mut asm: HashMap<(String, String), Result<SideListings, String>>,
) {
    let movers: Vec<(String, String, Presence)> = cmp
        .functions
        .iter()
        .flat_map(|f| {
            f.top
                .iter()
                .map(|d| (f.id.clone(), d.name.clone(), d.presence))
        })
        .collect();
    for (id, function, presence) in movers {
        let Some(read) = asm.remove(&(id.clone(), function.clone())) else {
            continue;
        };
        let entry = match read {
            Ok((b, c)) => asm::diff(
                id,
                function,
                b.as_ref().map(|(l, o)| (l, *o)),
                c.as_ref().map(|(l, o)| (l, *o)),
            ),
            Err(e) => asm::AsmDiff {
                id,
                function,
                presence,
                lines: Vec::new(),
                unavailable: Some(e),
            },
        };
        cmp.asm.push(entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use costbench_record::testing::asm_listing as listing;

    /// What the evidence holds is shown in the order the movers are listed, and nothing else.
    #[test]
    fn the_evidence_is_shown_in_mover_order() {
        let mut cmp = crate::testing::every_verdict();
        cmp.functions = vec![crate::testing::movers(
            "x",
            &["_int_malloc", "a", "memcpy", "b", "c", "d"],
        )];
        let l = listing(&[("ret", 1)]);
        let mut asm = HashMap::new();
        for f in ["c", "a", "b"] {
            asm.insert(
                ("x".to_string(), f.to_string()),
                Ok((Some((l.clone(), 1)), Some((l.clone(), 1)))),
            );
        }
        asm.insert(("x".to_string(), "d".to_string()), Err("gone".to_string()));
        attach_asm(&mut cmp, asm);
        let shown: Vec<(&str, bool)> = cmp
            .asm
            .iter()
            .map(|d| (d.function.as_str(), d.unavailable.is_some()))
            .collect();
        assert_eq!(
            shown,
            [("a", false), ("b", false), ("c", false), ("d", true)]
        );
    }
}
