//! `--shard K/N` in a measuring session: which of the selected scenarios (or, for build
//! variants, which `VARIANT/SCENARIO` cells) this job measures, and the `shard` field each
//! side's record carries. The partition itself is `costbench_record::shard::partition` (pure);
//! the costs come from history, read by the commands ([`ShardPlan::costs`]), since this module
//! must not open the store.

use crate::model::ShardInfo;
use costbench_protocol::ScenarioInfo;
use costbench_record::shard::{partition, Shard};
use std::collections::BTreeMap;

/// What a command decided about sharding before measuring.
#[derive(Debug, Clone)]
pub struct ShardPlan {
    pub shard: Shard,
    /// Cost of each `VARIANT/SCENARIO` cell from history (plain runs are variant `default`).
    pub costs: BTreeMap<String, f64>,
    /// What the costs are, for the record's `assignment`.
    pub source: String,
    /// Build variants were already assigned whole to shards (each job builds only its own):
    /// the assignment text and every variant name. Scenarios are then not split further.
    pub whole_variants: Option<(String, Vec<String>)>,
}

/// The units of a session of `labels.len()` sides: scenario names when every side has the same
/// label (one run, or both sides of `check --baseline-rev`), else `LABEL/SCENARIO` cells.
fn units(labels: &[String], selections: &[Vec<&ScenarioInfo>]) -> (bool, Vec<String>) {
    let cells = labels.iter().any(|l| *l != labels[0]);
    let mut out: Vec<String> = Vec::new();
    for (label, sel) in labels.iter().zip(selections) {
        for s in sel {
            let u = if cells {
                format!("{label}/{}", s.name)
            } else {
                s.name.clone()
            };
            if !out.contains(&u) {
                out.push(u);
            }
        }
    }
    (cells, out)
}

/// Keeps in each side's selection only this shard's units and returns each side's `shard`
/// field. Every job of one CI matrix computes the same partition from the same listing and
/// history.
pub fn apply(
    plan: &ShardPlan,
    labels: &[String],
    selections: &mut [Vec<&ScenarioInfo>],
) -> Vec<ShardInfo> {
    let info = |assignment: String, selected: Vec<String>| ShardInfo {
        index: plan.shard.index,
        count: plan.shard.count,
        assignment,
        selected,
    };
    if let Some((assignment, _)) = &plan.whole_variants {
        return selections
            .iter()
            .map(|sel| {
                info(
                    assignment.clone(),
                    sel.iter().map(|s| s.name.clone()).collect(),
                )
            })
            .collect();
    }
    let (cells, all) = units(labels, selections);
    let costs: BTreeMap<String, f64> = if cells {
        plan.costs.clone()
    } else {
        // Plain runs are recorded as variant `default`.
        plan.costs
            .iter()
            .filter_map(|(k, v)| k.strip_prefix("default/").map(|s| (s.to_string(), *v)))
            .collect()
    };
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let p = partition(&refs, &costs, &plan.source, plan.shard.count);
    let mine: std::collections::HashSet<&str> =
        p.units_of(&refs, plan.shard.index).into_iter().collect();
    for (label, sel) in labels.iter().zip(selections.iter_mut()) {
        sel.retain(|s| {
            let u = if cells {
                format!("{label}/{}", s.name)
            } else {
                s.name.clone()
            };
            mine.contains(u.as_str())
        });
    }
    labels
        .iter()
        .map(|label| {
            // Each side's record lists the units of its own kind, so that merging that side's
            // shards restores its order: the scenarios, or this variant's cells.
            let selected = if cells {
                all.iter()
                    .filter(|u| {
                        u.strip_prefix(label.as_str())
                            .is_some_and(|r| r.starts_with('/'))
                    })
                    .cloned()
                    .collect()
            } else {
                all.clone()
            };
            info(p.assignment.clone(), selected)
        })
        .collect()
}
