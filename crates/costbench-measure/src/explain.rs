//! What explains a comparison's changes, read from both sides: the checks each explained
//! scenario executed (the census, from its kept callgrind output and the binary it names) and the
//! machine code of its largest movers, for the judge's `compare::explain::attach_evidence`. Read after the
//! judge has said which rows it explains (`cmp.functions`) and before it attaches them, so that
//! the judge gets data rather than a loader, as `icount::profile::load_changed` gives it the
//! profiles.
//!
//! Reads files (callgrind outputs, binaries) and nothing else.

use crate::instrument::census::sites::SiteLoader;
use costbench_judge::compare::asm::{SideListings, ASM_TOP};
use costbench_judge::compare::explain::Evidence;
use costbench_judge::compare::{Comparison, Presence};
use costbench_record::model::RunRecord;
use std::collections::HashMap;
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
/// runs measured the census) and the listings of the movers [`AsmSelection`] asks for:
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
    let mut selection = AsmSelection::new(cmp);
    while let Some((id, function, presence)) = selection.wanted() {
        let read = listings(id, function, presence, base, cand);
        selection.give(read);
    }
    evidence.asm = selection.chosen();
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

/// Which movers' machine code to show, chosen as it is read: for every scenario
/// `cmp.functions` explains, its movers in order, until [`ASM_TOP`] of them had a listing on
/// either side (a function neither binary holds, like the C library's, in another object, is
/// passed over). The one place this rule lives; the judge shows what it chose. [`read`] asks [`wanted`](Self::wanted) what to
/// read, hands back what it read with [`give`](Self::give), and puts
/// [`chosen`](Self::chosen) into [`Evidence::asm`]. Pure.
#[derive(Debug)]
pub struct AsmSelection {
    /// Per explained scenario: its id and its movers (name, where it exists), in order.
    scenarios: Vec<(String, Vec<(String, Presence)>)>,
    /// The scenario and mover asked for next, and how many of that scenario's were shown.
    at: (usize, usize, usize),
    chosen: HashMap<(String, String), Result<SideListings, String>>,
}

impl AsmSelection {
    /// The selection for `cmp`'s explained scenarios, nothing read yet.
    pub fn new(cmp: &Comparison) -> AsmSelection {
        let scenarios = cmp
            .functions
            .iter()
            .filter(|f| f.unavailable.is_none())
            .map(|f| {
                let movers = f.top.iter().map(|d| (d.name.clone(), d.presence)).collect();
                (f.id.clone(), movers)
            })
            .collect();
        AsmSelection {
            scenarios,
            at: (0, 0, 0),
            chosen: HashMap::new(),
        }
    }

    /// The next (id, function, presence) whose listings to read, or `None` when done.
    pub fn wanted(&mut self) -> Option<(&str, &str, Presence)> {
        loop {
            let (s, m, shown) = self.at;
            let (id, movers) = self.scenarios.get(s)?;
            if shown == ASM_TOP || m == movers.len() {
                self.at = (s + 1, 0, 0);
                continue;
            }
            let (function, presence) = &movers[m];
            return Some((id, function, *presence));
        }
    }

    /// What was read for the function [`wanted`](Self::wanted) named: both sides' listings (`None`
    /// for a side whose binary holds no such function), or why they cannot be had.
    pub fn give(&mut self, read: Result<SideListings, String>) {
        let (s, m, shown) = self.at;
        self.at = (s, m + 1, shown);
        if matches!(read, Ok((None, None))) {
            return;
        }
        let (id, movers) = &self.scenarios[s];
        self.chosen.insert((id.clone(), movers[m].0.clone()), read);
        self.at.2 += 1;
    }

    /// The listings chosen, by (id, function): [`Evidence::asm`].
    pub fn chosen(self) -> HashMap<(String, String), Result<SideListings, String>> {
        self.chosen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use costbench_record::testing::asm_listing as listing;

    /// Functions neither binary holds (the C library's) are passed over: the three chosen are
    /// the largest movers the binaries have, and no more is read.
    #[test]
    fn movers_outside_the_binaries_are_passed_over() {
        let mut cmp = costbench_judge::testing::every_verdict();
        cmp.functions = vec![costbench_judge::testing::movers(
            "x",
            &["_int_malloc", "a", "memcpy", "b", "c", "d"],
        )];
        let l = listing(&[("ret", 1)]);
        let mut asked = Vec::new();
        let mut selection = AsmSelection::new(&cmp);
        while let Some((_, f, _)) = selection.wanted() {
            asked.push(f.to_string());
            let code = !f.starts_with(['_', 'm']);
            selection.give(Ok(if code {
                (Some((l.clone(), 1)), Some((l.clone(), 1)))
            } else {
                (None, None)
            }));
        }
        assert_eq!(
            asked,
            ["_int_malloc", "a", "memcpy", "b", "c"],
            "no more is read"
        );
        let mut shown: Vec<String> = selection.chosen().into_keys().map(|(_, f)| f).collect();
        shown.sort();
        assert_eq!(shown, ["a", "b", "c"]);
    }
}
