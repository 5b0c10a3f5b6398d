//! `variants --shard K/N`: with at least as many variants as shards, whole variants go to
//! shards (each job builds only its own variants: the builds are the dearest part of a variants
//! session), balanced by their cells' history cost, by count otherwise. Where an instrument that
//! is judged only on one machine runs (its descriptor's `machine_bound`: its figures are paired
//! round by round, or differ between CPUs), every shard also builds and measures the baseline
//! variant, so that each variant is compared with a baseline measured beside it; otherwise the
//! baseline is one variant among the others and one shard measures it (exact figures are the
//! same on every machine). `costbench merge` joins the
//! shards' matrices. With fewer variants than shards every job builds every variant and the
//! `VARIANT/SCENARIO` cells are split by scenario, a scenario's cells together so that its
//! ratios stay paired (`run::sharding`).

use crate::run::sharding::ShardPlan;
use costbench_record::instrument::InstrumentSet;
use costbench_record::model::{VariantSplit, VariantsShard};
use costbench_record::shard::partition;
use costbench_record::variant::Variant;
use std::collections::BTreeMap;

/// Whether `instruments` include one whose figures are judged only against a baseline
/// measured on the same machine: every shard then measures the baseline too.
pub(super) fn machine_bound(instruments: &InstrumentSet) -> bool {
    instruments
        .running()
        .into_iter()
        .any(|i| i.descriptor().machine_bound)
}

/// This shard's variants (its share of them, and the baseline where this shard measures it:
/// in every shard when `everywhere`), recording the assignment in `plan`, and the shard's
/// description for `matrix.json`. Unchanged, and split by scenario later, without `--shard`
/// or with fewer variants to share than shards.
pub(super) fn whole_variants(
    plan: Option<&mut ShardPlan>,
    everywhere: bool,
    variants: Vec<Variant>,
    base: usize,
) -> (Vec<Variant>, Option<VariantsShard>) {
    let Some(plan) = plan else {
        return (variants, None);
    };
    let base_name = variants[base].name.clone();
    let all: Vec<String> = variants.iter().map(|v| v.name.clone()).collect();
    let describe = |assignment: String, split: VariantSplit| VariantsShard {
        index: plan.shard.index,
        count: plan.shard.count,
        assignment,
        variants: all.clone(),
        baseline: base_name.clone(),
        split,
    };
    let shared = variants.len() - usize::from(everywhere);
    if (shared as u32) < plan.shard.count {
        // The assignment text is the scenario partition's, known once the suite is listed.
        return (
            variants,
            Some(describe(String::new(), VariantSplit::Scenarios)),
        );
    }
    // A variant costs the sum of its cells' costs, when history knows any of them.
    let mut costs: BTreeMap<String, f64> = BTreeMap::new();
    for (cell, c) in &plan.costs {
        if let Some((v, _)) = cell.split_once('/') {
            *costs.entry(v.to_string()).or_default() += c;
        }
    }
    let owned: Vec<String> = all
        .iter()
        .filter(|n| !everywhere || **n != base_name)
        .cloned()
        .collect();
    let names: Vec<&str> = owned.iter().map(String::as_str).collect();
    let p = partition(
        &names,
        &costs,
        &format!(
            "whole variants, each the sum of its scenarios' {}",
            plan.source
        ),
        plan.shard.count,
    );
    let mine = p.units_of(&names, plan.shard.index);
    let assignment = if everywhere {
        format!(
            "baseline {base_name} in every shard (an instrument judged on one machine runs); {}",
            p.assignment
        )
    } else {
        format!("baseline {base_name} in one shard; {}", p.assignment)
    };
    let kept = mine.len() + usize::from(everywhere);
    plan.whole_variants = Some((assignment.clone(), kept as f64 / all.len() as f64));
    let shard = describe(
        assignment,
        VariantSplit::WholeVariants {
            baseline_everywhere: everywhere,
        },
    );
    let kept: Vec<Variant> = variants
        .into_iter()
        .filter(|v| (everywhere && v.name == base_name) || mine.contains(&v.name.as_str()))
        .collect();
    (kept, Some(shard))
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::instrument::Instrument;
    use costbench_record::shard::Shard;

    fn plan(k: u32, n: u32) -> ShardPlan {
        ShardPlan {
            shard: Shard { index: k, count: n },
            costs: BTreeMap::new(),
            source: "test".into(),
            whole_variants: None,
        }
    }

    fn names(vs: &[Variant]) -> Vec<&str> {
        vs.iter().map(|v| v.name.as_str()).collect()
    }

    /// The variants each of `n` shards keeps, and their descriptions.
    fn deal(n: u32, everywhere: bool, all: &[&str]) -> Vec<(Vec<String>, VariantsShard)> {
        (1..=n)
            .map(|k| {
                let mut p = plan(k, n);
                let vs = all.iter().map(|n| Variant::plain(n)).collect();
                let (kept, shard) = whole_variants(Some(&mut p), everywhere, vs, 0);
                let shard = shard.expect("sharded");
                if let VariantSplit::WholeVariants { .. } = shard.split {
                    let (text, share) = p.whole_variants.clone().unwrap();
                    assert_eq!(text, shard.assignment);
                    // Its share of the wall-time budget: its share of the variants.
                    assert_eq!(share, kept.len() as f64 / all.len() as f64);
                    assert_eq!(p.work_share(5, 5), share);
                }
                (names(&kept).iter().map(|s| s.to_string()).collect(), shard)
            })
            .collect()
    }

    #[test]
    fn issue_15_baseline_in_one_shard_unless_an_instrument_is_judged_on_one_machine() {
        let all = ["base", "a", "b", "c", "d", "e", "f", "g"];
        // Instruction counts only: 8 variants, 2 per shard, the baseline among them once.
        let shards = deal(4, false, &all);
        assert!(shards.iter().all(|(kept, _)| kept.len() == 2), "{shards:?}");
        let with_base = shards
            .iter()
            .filter(|(kept, _)| kept.contains(&"base".to_string()))
            .count();
        assert_eq!(with_base, 1);
        let mut every: Vec<String> = shards.iter().flat_map(|(k, _)| k.clone()).collect();
        every.sort();
        assert_eq!(every, ["a", "b", "base", "c", "d", "e", "f", "g"]);
        let s = &shards[0].1;
        assert_eq!(s.variants, all);
        assert_eq!(s.baseline, "base");
        assert_eq!(
            s.split,
            VariantSplit::WholeVariants {
                baseline_everywhere: false
            }
        );
        assert!(
            s.assignment.starts_with("baseline base in one shard"),
            "{}",
            s.assignment
        );
        // Wall time: the baseline in every shard beside 7 others over 4 shards.
        let shards = deal(4, true, &all);
        let sizes: Vec<usize> = shards.iter().map(|(k, _)| k.len()).collect();
        assert_eq!(sizes.iter().sum::<usize>(), 7 + 4);
        assert!(shards.iter().all(|(k, _)| k.contains(&"base".to_string())));
        assert!(shards[0].1.assignment.contains("in every shard"));
        // Fewer variants to share than shards: every shard keeps them all, split by scenario.
        for (kept, s) in deal(3, true, &["base", "a", "b"]) {
            assert_eq!(kept, ["base", "a", "b"]);
            assert_eq!(s.split, VariantSplit::Scenarios);
        }
        // Without wall time the baseline counts: 3 variants on 3 shards go whole.
        let shards = deal(3, false, &["base", "a", "b"]);
        assert!(shards.iter().all(|(k, _)| k.len() == 1), "{shards:?}");
    }

    #[test]
    fn a_variant_whose_cold_build_is_dearest_goes_alone() {
        // History: lto's cold build (its `lto/` cell) costs as much as the other three variants'
        // builds and measurement together; every variant's scenario costs the same.
        let mut costs = BTreeMap::new();
        for v in ["base", "a", "b", "lto"] {
            costs.insert(format!("{v}/s"), 10.0);
        }
        for v in ["base", "a", "b"] {
            costs.insert(format!("{v}/"), 90.0);
        }
        costs.insert("lto/".into(), 300.0);
        let kept: Vec<Vec<String>> = (1..=2)
            .map(|k| {
                let mut p = plan(k, 2);
                p.costs = costs.clone();
                let vs = ["base", "a", "b", "lto"].map(Variant::plain).to_vec();
                let (kept, _) = whole_variants(Some(&mut p), false, vs, 0);
                names(&kept).iter().map(|s| s.to_string()).collect()
            })
            .collect();
        assert!(kept.contains(&vec!["lto".to_string()]), "{kept:?}");
    }

    #[test]
    fn instruments_judged_on_one_machine() {
        let none = InstrumentSet::of(Instrument::Census);
        assert!(!machine_bound(&none));
        for i in [
            Instrument::Walltime,
            Instrument::Throughput,
            Instrument::Perf,
        ] {
            let i = none.with(i);
            assert!(machine_bound(&i));
        }
    }
}
