//! Sharding: which of N CI jobs measures which scenario (`--shard K/N`). A pure function of the
//! selected units (scenario names, or `VARIANT/SCENARIO` cells), their costs from history and N,
//! so that every job of one CI matrix computes the same partition without talking to the others.
//!
//! The partition is the classic longest-processing-time-first greedy (LPT): units in order of
//! decreasing cost, each onto the least-loaded shard; ties are broken by the unit's name and the
//! shard's index, never by anything that differs between jobs. Costs are the median of several
//! runs of history, rounded to a coarse geometric grid, so that a noisy run does not flip a
//! unit's shard. Units without history cost the median of those with; with no history at all
//! every unit costs the same and the shards get equal counts.
//!
//! Pure: no files, no clocks; the commands read the costs out of history.

use anyhow::Result;
use std::collections::BTreeMap;
use std::fmt;

/// `--shard K/N`: measure the `index`-th (1-based) of `count` shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// `K`, in `1..=count`.
    pub index: u32,
    /// `N`, at least 1.
    pub count: u32,
}

impl Shard {
    /// Parses `K/N` (1-based: `1/3`, `2/3`, `3/3`), with an error that says what is wrong.
    pub fn parse(text: &str) -> Result<Shard> {
        let usage = "write it K/N with 1 <= K <= N, e.g. --shard 1/3, 2/3 and 3/3 for three jobs";
        let Some((k, n)) = text.split_once('/') else {
            crate::bad_input!("--shard {text:?} is not K/N: {usage}");
        };
        let (Ok(index), Ok(count)) = (k.trim().parse::<u32>(), n.trim().parse::<u32>()) else {
            crate::bad_input!("--shard {text:?}: K and N must be whole numbers: {usage}");
        };
        if count == 0 || index == 0 || index > count {
            crate::bad_input!("--shard {text:?}: shards are numbered from 1 to N: {usage}");
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A partition of units over shards.
#[derive(Debug, Clone, PartialEq)]
pub struct Partition {
    /// The shard (1-based) of each unit, in the order the units were given.
    pub shard_of: Vec<u32>,
    /// How it was decided, ending in a fingerprint of the whole partition: every job of one
    /// sharded run writes the same text, which `merge` checks.
    pub assignment: String,
}

impl Partition {
    /// The units of `shard` (1-based), in the order they were given.
    pub fn units_of<'a>(&self, units: &[&'a str], shard: u32) -> Vec<&'a str> {
        units
            .iter()
            .zip(&self.shard_of)
            .filter(|(_, s)| **s == shard)
            .map(|(u, _)| *u)
            .collect()
    }
}

/// What the costs given to [`partition`] are, for the assignment text: e.g. "median
/// instructions per run of the body over the last 10 runs in history".
pub type CostSource<'a> = &'a str;

/// The median of `values` (the mean of the middle two for an even count); `None` when empty.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Rounds a positive cost down to a grid of 8 steps per doubling (about 9 % apart), so that
/// costs that differ by noise mostly land on the same step and sort by name instead.
fn quantize(cost: f64) -> f64 {
    if cost <= 0.0 || !cost.is_finite() {
        return 0.0;
    }
    (cost.log2() * 8.0).floor() / 8.0
}

/// FNV-1a, 64 bits: a fingerprint that is the same on every machine and Rust version (std's
/// hashers promise neither).
fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Assigns `units` to `count` shards, balanced by `costs` (keyed by unit; see the module
/// comment) where any are known, by count otherwise. `source` says what the costs are.
pub fn partition(
    units: &[&str],
    costs: &BTreeMap<String, f64>,
    source: CostSource<'_>,
    count: u32,
) -> Partition {
    let count = count.max(1);
    let known: Vec<f64> = units
        .iter()
        .filter_map(|u| costs.get(*u).copied())
        .filter(|c| c.is_finite() && *c > 0.0)
        .collect();
    let fill = median(&known);
    // (grid step of the cost, unit index): sorted by decreasing cost, then by name.
    let mut order: Vec<(f64, usize)> = units
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let c = costs
                .get(*u)
                .copied()
                .filter(|c| c.is_finite() && *c > 0.0)
                .or(fill)
                .unwrap_or(1.0);
            (quantize(c), i)
        })
        .collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| units[a.1].cmp(units[b.1])));
    let mut load = vec![0.0f64; count as usize];
    let mut shard_of = vec![0u32; units.len()];
    for (step, i) in order {
        // The least-loaded shard, the lowest index among equals.
        let k = (0..load.len())
            .min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b)))
            .expect("at least one shard");
        // Load in grid units (2^step), so that the sums are those of the rounded costs.
        load[k] += step.exp2();
        shard_of[i] = k as u32 + 1;
    }
    let fingerprint = fnv1a(
        units
            .iter()
            .zip(&shard_of)
            .flat_map(|(u, s)| format!("{u}\t{s}\n").into_bytes()),
    );
    let how = match fill {
        Some(_) => format!(
            "balanced by cost ({source}; {} of {} units known, the rest at the median)",
            known.len(),
            units.len()
        ),
        None => format!(
            "balanced by count (no history for any of {} units)",
            units.len()
        ),
    };
    Partition {
        shard_of,
        assignment: format!(
            "{how}, longest first onto the least-loaded of {count} shards; partition {fingerprint:016x}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_as_k_of_n() {
        assert_eq!(Shard::parse("2/3").unwrap(), Shard { index: 2, count: 3 });
        assert_eq!(Shard::parse("1/1").unwrap().to_string(), "1/1");
        for (bad, says) in [
            ("3", "is not K/N"),
            ("a/3", "whole numbers"),
            ("0/3", "numbered from 1 to N"),
            ("4/3", "numbered from 1 to N"),
            ("1/0", "numbered from 1 to N"),
            ("-1/3", "whole numbers"),
        ] {
            let e = Shard::parse(bad).unwrap_err();
            assert!(crate::error::is_bad_input(&e), "{bad}: a usage error");
            let e = e.to_string();
            assert!(e.contains(says) && e.contains("--shard 1/3"), "{bad}: {e}");
        }
    }

    fn costs(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn without_history_the_shards_get_equal_counts_in_name_order() {
        let units = ["e", "a", "d", "b", "c"];
        let p = partition(&units, &BTreeMap::new(), "x", 2);
        // Sorted by name (a b c d e), dealt to the least-loaded shard: a→1 b→2 c→1 d→2 e→1.
        assert_eq!(p.units_of(&units, 1), ["e", "a", "c"]);
        assert_eq!(p.units_of(&units, 2), ["d", "b"]);
        assert!(
            p.assignment.starts_with("balanced by count"),
            "{}",
            p.assignment
        );
    }

    #[test]
    fn costs_balance_the_load_longest_first() {
        let units = ["big", "m1", "m2", "s1", "s2", "s3", "s4"];
        let c = costs(&[
            ("big", 800.0),
            ("m1", 400.0),
            ("m2", 400.0),
            ("s1", 100.0),
            ("s2", 100.0),
            ("s3", 100.0),
            ("s4", 100.0),
        ]);
        let p = partition(&units, &c, "test costs", 2);
        // big alone on one shard (800); m1 + m2 (800) on the other; the four small ones split.
        assert_eq!(p.shard_of[0], 1);
        assert_eq!(p.units_of(&units, 2)[..2], ["m1", "m2"]);
        let load = |k| -> f64 { p.units_of(&units, k).iter().map(|u| c[*u]).sum() };
        assert_eq!(load(1), load(2), "{p:?}");
        assert!(
            p.assignment.contains("test costs; 7 of 7 units known"),
            "{}",
            p.assignment
        );
    }

    #[test]
    fn every_unit_lands_in_exactly_one_shard_and_empty_shards_are_allowed() {
        let units = ["a", "b"];
        let p = partition(&units, &BTreeMap::new(), "x", 4);
        assert_eq!(p.shard_of, [1, 2]);
        assert!(p.units_of(&units, 3).is_empty() && p.units_of(&units, 4).is_empty());
        let none = partition(&[], &BTreeMap::new(), "x", 3);
        assert!(none.shard_of.is_empty());
    }

    #[test]
    fn same_inputs_same_partition_and_noise_does_not_move_units() {
        let units: Vec<String> = (0..40).map(|i| format!("s{i:02}")).collect();
        let refs: Vec<&str> = units.iter().map(String::as_str).collect();
        let base: BTreeMap<String, f64> = units
            .iter()
            .enumerate()
            .map(|(i, u)| (u.clone(), (20.0 + (i % 7) as f64 / 3.0 + 1.0 / 16.0).exp2()))
            .collect();
        let p = partition(&refs, &base, "x", 3);
        assert_eq!(p, partition(&refs, &base, "x", 3));
        // The same costs in another order of insertion: a BTreeMap, but also the units' order
        // only decides the output order, never the assignment of a name.
        let mut rev = refs.clone();
        rev.reverse();
        let q = partition(&rev, &base, "x", 3);
        for (i, u) in refs.iter().enumerate() {
            let j = rev.iter().position(|r| r == u).unwrap();
            assert_eq!(p.shard_of[i], q.shard_of[j], "{u}");
        }
        // Noise of 0.5 % on every cost (these costs sit at least 1 % from either edge of their
        // step on the grid): nothing moves. Noise that crosses a step's edge can still move a unit.
        let noisy: BTreeMap<String, f64> = base
            .iter()
            .enumerate()
            .map(|(i, (u, c))| (u.clone(), c * if i % 2 == 0 { 1.005 } else { 0.995 }))
            .collect();
        let n = partition(&refs, &noisy, "x", 3);
        assert_eq!(p.shard_of, n.shard_of);
        assert_eq!(p.assignment, n.assignment);
    }

    #[test]
    fn units_without_history_cost_the_median_of_the_known() {
        let units = ["a", "b", "c", "new"];
        let c = costs(&[("a", 10.0), ("b", 1000.0), ("c", 10.0)]);
        let p = partition(&units, &c, "x", 2);
        // b (1000) alone; a, c and new (at the median, 10) together.
        assert_eq!(p.units_of(&units, 1), ["b"]);
        assert_eq!(p.units_of(&units, 2), ["a", "c", "new"]);
        assert!(
            p.assignment.contains("3 of 4 units known"),
            "{}",
            p.assignment
        );
    }

    #[test]
    fn median_of_even_and_odd_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
