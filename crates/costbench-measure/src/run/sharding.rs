//! `--shard K/N` in a measuring session: which of the selected scenarios (for build variants:
//! which `VARIANT/SCENARIO` cells, a scenario's cells together) this job measures, and the `shard` field each
//! side's record carries. The partition itself is `costbench_record::shard::partition` (pure);
//! the costs come from history, read by the commands ([`ShardPlan::costs`]), since this module
//! must not open the store.

use costbench_protocol::ScenarioInfo;
use costbench_record::model::ShardInfo;
use costbench_record::shard::{partition, Shard};
use std::collections::BTreeMap;

/// What a command decided about sharding before measuring.
#[derive(Debug, Clone)]
pub struct ShardPlan {
    /// Which shard this is, of how many.
    pub shard: Shard,
    /// Cost of each `VARIANT/SCENARIO` cell from history (plain runs are variant `default`).
    pub costs: BTreeMap<String, f64>,
    /// What the costs are, for the record's `assignment`.
    pub source: String,
    /// Build variants were already assigned whole to shards (each job builds only its own):
    /// the assignment text and this shard's share of the session's variants. Scenarios are then
    /// not split further.
    pub whole_variants: Option<(String, f64)>,
}

impl ShardPlan {
    /// This shard's share of the work of the whole session, from the number of scenarios
    /// selected before (`all`) and after (`mine`) [`apply`]: its share of the variants times its
    /// share of the scenarios. The wall-time rounds' budget for extra rounds is the whole
    /// session's, so each shard gets this share of it: a sharded session gives each scenario as
    /// many extra rounds as the unsharded one would, rather than N times the budget over all.
    pub fn work_share(&self, mine: usize, all: usize) -> f64 {
        let variants = self
            .whole_variants
            .as_ref()
            .map_or(1.0, |(_, share)| *share);
        variants * mine as f64 / all.max(1) as f64
    }
}

/// The scenarios of a session in first-seen order over its sides, and whether its sides are
/// build variants (their labels differ: the record's units are then `LABEL/SCENARIO` cells).
fn scenarios(labels: &[String], selections: &[Vec<&ScenarioInfo>]) -> (bool, Vec<String>) {
    let cells = labels.iter().any(|l| *l != labels[0]);
    let mut out: Vec<String> = Vec::new();
    for sel in selections {
        for s in sel {
            if !out.contains(&s.name) {
                out.push(s.name.clone());
            }
        }
    }
    (cells, out)
}

/// Keeps in each side's selection only this shard's scenarios and returns each side's `shard`
/// field. Every job of one CI matrix computes the same partition from the same listing and
/// history.
///
/// With build variants, the cells of one scenario stay together: every job that splits cells
/// (fewer variants than shards) builds every variant anyway, and a scenario's cells measured in
/// one job are paired on one machine, so every ratio to the baseline stays judgeable. A
/// scenario's cost is then the sum of its cells' costs.
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
    let (cells, all) = scenarios(labels, selections);
    let mut distinct: Vec<&String> = labels.iter().collect();
    distinct.sort();
    distinct.dedup();
    let mut costs: BTreeMap<String, f64> = BTreeMap::new();
    for name in &all {
        let known: Vec<f64> = distinct
            .iter()
            .filter_map(|l| plan.costs.get(&format!("{l}/{name}")).copied())
            .collect();
        if !known.is_empty() {
            costs.insert(name.clone(), known.iter().sum());
        }
    }
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let p = partition(&refs, &costs, &plan.source, plan.shard.count);
    let mine: std::collections::HashSet<&str> =
        p.units_of(&refs, plan.shard.index).into_iter().collect();
    let before: Vec<Vec<String>> = selections
        .iter()
        .map(|sel| sel.iter().map(|s| s.name.clone()).collect())
        .collect();
    for sel in selections.iter_mut() {
        sel.retain(|s| mine.contains(s.name.as_str()));
    }
    labels
        .iter()
        .zip(before)
        .map(|(label, names)| {
            // Each side's record lists its whole selection in its own kind of unit, so that
            // merging that side's shards restores its order: the scenarios, or its cells.
            let selected = if cells {
                names.iter().map(|n| format!("{label}/{n}")).collect()
            } else {
                all.clone()
            };
            info(p.assignment.clone(), selected)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(name: &str) -> ScenarioInfo {
        ScenarioInfo {
            name: name.into(),
            ops: 1,
            unit: "op".into(),
            parties: vec![],
            internal: false,
            service: None,
        }
    }

    fn plan(k: u32, n: u32, costs: &[(&str, f64)]) -> ShardPlan {
        ShardPlan {
            shard: Shard { index: k, count: n },
            costs: costs.iter().map(|(c, v)| (c.to_string(), *v)).collect(),
            source: "test".into(),
            whole_variants: None,
        }
    }

    #[test]
    fn variant_cells_of_one_scenario_stay_together_and_costs_add_up() {
        let all: Vec<ScenarioInfo> = ["a", "b", "c"].map(info).to_vec();
        let labels = vec!["release".to_string(), "lto".to_string()];
        // b is dear in both variants: alone on one shard; a and c together on the other.
        let costs = [
            ("release/b", 500.0),
            ("lto/b", 500.0),
            ("release/a", 400.0),
            ("lto/c", 400.0),
        ];
        let mut mine = Vec::new();
        for k in 1..=2 {
            let mut sel: Vec<Vec<&ScenarioInfo>> = vec![all.iter().collect(), all.iter().collect()];
            let infos = apply(&plan(k, 2, &costs), &labels, &mut sel);
            assert_eq!(sel[0].len(), sel[1].len(), "a scenario's cells together");
            assert_eq!(infos[1].selected, ["lto/a", "lto/b", "lto/c"]);
            assert_eq!(infos[0].assignment, infos[1].assignment);
            mine.push(sel[0].iter().map(|s| s.name.clone()).collect::<Vec<_>>());
        }
        assert_eq!(mine, [vec!["b"], vec!["a", "c"]]);
    }

    #[test]
    fn a_shard_gets_its_share_of_the_wall_time_budget() {
        let mut p = plan(1, 4, &[]);
        assert_eq!(p.work_share(8, 32), 0.25, "a quarter of the scenarios");
        assert_eq!(p.work_share(0, 0), 0.0, "an empty shard");
        p.whole_variants = Some(("t".into(), 3.0 / 8.0));
        assert_eq!(p.work_share(33, 33), 3.0 / 8.0, "3 of 8 variants");
    }

    #[test]
    fn plain_runs_use_the_default_variants_costs_and_list_scenarios() {
        let all: Vec<ScenarioInfo> = ["a", "b", "c"].map(info).to_vec();
        let labels = vec!["default".to_string(), "default".to_string()];
        let costs = [("default/c", 900.0), ("other/a", 5000.0)];
        let mut sel: Vec<Vec<&ScenarioInfo>> = vec![all.iter().collect(), all.iter().collect()];
        let infos = apply(&plan(1, 2, &costs), &labels, &mut sel);
        assert_eq!(infos[0].selected, ["a", "b", "c"]);
        assert!(
            infos[0].assignment.contains("1 of 3 units known"),
            "{}",
            infos[0].assignment
        );
        let names: Vec<&str> = sel[0].iter().map(|s| s.name.as_str()).collect();
        // Unknown a and b cost the known median (c's 900): all equal, dealt by name. Had
        // another variant's cost of a (5000) counted, a would sit alone on shard 1.
        assert_eq!(names, ["a", "c"]);
    }
}
