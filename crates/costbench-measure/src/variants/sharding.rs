//! `variants --shard K/N`: with at least as many variants besides the baseline as shards, whole
//! variants go to shards (each job builds only its own variants: the builds are the dearest part
//! of a variants session), balanced by their cells' history cost, by count otherwise, and every
//! shard also builds and measures the baseline variant, so that each variant's wall time is
//! paired with the baseline's on one machine. With fewer variants than shards every job builds
//! every variant and the `VARIANT/SCENARIO` cells are split by
//! scenario, a scenario's cells together so that its ratios stay paired (`run::sharding`).

use super::spec::Variant;
use crate::run::RunOptions;
use costbench_record::shard::partition;
use std::collections::BTreeMap;

/// This shard's variants (the baseline and its share of the others) and the index of the
/// baseline among them, recording the assignment in `opts.shard`. Unchanged without `--shard`
/// or with fewer variants besides the baseline than shards.
pub(super) fn whole_variants(
    opts: &mut RunOptions,
    variants: Vec<Variant>,
    base: usize,
) -> (Vec<Variant>, usize) {
    let Some(plan) = opts.shard.as_mut() else {
        return (variants, base);
    };
    let base_name = variants[base].name.clone();
    if ((variants.len() - 1) as u32) < plan.shard.count {
        return (variants, base);
    }
    // A variant costs the sum of its cells' costs, when history knows any of them.
    let mut costs: BTreeMap<String, f64> = BTreeMap::new();
    for (cell, c) in &plan.costs {
        if let Some((v, _)) = cell.split_once('/') {
            *costs.entry(v.to_string()).or_default() += c;
        }
    }
    let owned: Vec<String> = variants
        .iter()
        .map(|v| v.name.clone())
        .filter(|n| *n != base_name)
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
    plan.whole_variants = Some((
        format!("baseline {base_name} in every shard; {}", p.assignment),
        owned.clone(),
    ));
    let kept: Vec<Variant> = variants
        .into_iter()
        .filter(|v| v.name == base_name || mine.contains(&v.name.as_str()))
        .collect();
    let base = kept.iter().position(|v| v.name == base_name).unwrap_or(0);
    (kept, base)
}
