//! The variant matrix: one row per measured id, one column per variant, each cell the per-op
//! figure and its ratio to the baseline variant, with significance judged by
//! [`compare::compare`] for each (baseline, variant) pair; and the price of each variant
//! (geometric mean of its ratios). Serialised as versioned JSON (`matrix.json`); the terminal
//! table and markdown are `costbench-report`'s `variants`'.
//!
//! Two variants are two binaries, with the same code-placement effects as two commits: a ratio
//! whose row `compare` judged unresolved (`?`) or a placement effect (`≈`: same instructions,
//! time moved) is marked in the matrix and left out of the variant's price, whose text says how
//! many were left out.
//!
//! Pure: a function of the run records and the build outcomes. Renders nothing.

use crate::compare::{self, CompareOptions, Instrument, RatioCi, Verdict};
use costbench_record::model::RunRecord;
use costbench_record::model::VariantsShard;
use costbench_record::variant::Variant;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// `schema` of `matrix.json`.
pub const SCHEMA: &str = "costbench-variants";
/// Bump on any incompatible change. 2: verdicts `unresolved` and `placement`; prices leave those
/// rows out and count them (`unresolved`, `placement`).
pub const SCHEMA_VERSION: u32 = 2;

/// How a variant's build went (the run record's type, in the matrix's columns too).
pub use costbench_record::model::BuildInfo;

/// One column: a variant, its settings and what became of it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Column {
    /// The variant's name.
    pub name: String,
    /// The settings in words (`overflow-checks=true`).
    pub settings: String,
    /// The variant itself.
    pub spec: Variant,
    /// How its build went, when it was built.
    pub build: Option<BuildInfo>,
    /// Set when the variant did not build: the compiler's error.
    pub build_error: Option<String>,
    /// The id of the run that measured it.
    pub run_id: Option<String>,
    /// The output directory of that run.
    pub output_dir: Option<String>,
}

/// A per-op figure of one variant under one instrument.
#[derive(Debug, Clone, Serialize)]
pub struct Figure {
    /// Instructions, or median nanoseconds, per op.
    pub per_op: f64,
    /// `per_op / baseline per_op` (absent for the baseline and where it has no figure).
    pub ratio: Option<f64>,
    /// The change from the baseline, in percent.
    pub change_pct: Option<f64>,
    /// `compare`'s verdict on the change (absent for the baseline).
    pub verdict: Option<Verdict>,
    /// Wall time: the bootstrap interval of the ratio of medians.
    pub ci: Option<RatioCi>,
}

/// One variant's figures for one measured id.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// The variant (the column's name).
    pub variant: String,
    /// Per instrument name (`icount`, `walltime`, `cache`, `memory`, `rss`): its figure.
    #[serde(flatten)]
    pub figures: BTreeMap<String, Figure>,
    /// Instruments that failed for this id in this variant: `icount (panicked)`.
    pub failed: Vec<String>,
}

impl Cell {
    /// The cell's figure under `inst`, if it has one.
    pub fn figure(&self, inst: Instrument) -> Option<&Figure> {
        self.figures.get(inst.name())
    }
}

/// One measured id across the variants.
#[derive(Debug, Clone, Serialize)]
pub struct MatrixRow {
    /// The measured id.
    pub id: String,
    /// Ops per run of its body.
    pub ops: u64,
    /// What one op is.
    pub unit: String,
    /// One cell per measured variant, in column order.
    pub cells: Vec<Cell>,
}

/// What a variant costs over all ids, per instrument.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Price {
    /// Geometric mean of the per-op ratios to the baseline, over the rows `compare` resolved
    /// (unresolved and placement rows left out: their ratio is not the variant's price).
    pub geomean_ratio: Option<f64>,
    /// Rows with a ratio to the baseline.
    pub compared: usize,
    /// Rows judged significantly slower (or larger) than the baseline.
    pub regressions: usize,
    /// Rows judged significantly faster (or smaller) than the baseline.
    pub improvements: usize,
    /// Rows left out of the price: the measurement could not resolve them.
    pub unresolved: usize,
    /// Rows left out of the price: the same instructions, the time moved with placement.
    pub placement: usize,
}

/// The verdicts whose ratio is not a price.
fn not_priced(v: Verdict) -> bool {
    matches!(v, Verdict::Unresolved | Verdict::Placement)
}

/// One variant's prices, per instrument.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// The variant.
    pub variant: String,
    /// Its settings in words.
    pub settings: String,
    /// Per instrument name: the variant's price.
    #[serde(flatten)]
    pub prices: BTreeMap<String, Price>,
}

/// The whole matrix, as written to `matrix.json`.
#[derive(Debug, Clone, Serialize)]
pub struct Matrix {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// Always [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The column ratios are taken against.
    pub baseline: String,
    /// The options every (baseline, variant) pair was compared with.
    pub compare_options: CompareOptions,
    /// One column per variant, in the order asked for.
    pub columns: Vec<Column>,
    /// One row per measured id.
    pub rows: Vec<MatrixRow>,
    /// One entry per measured variant other than the baseline.
    pub summary: Vec<Summary>,
    /// Present in a shard's matrix (`variants --shard K/N`): which shard, and what the whole
    /// session holds, for `costbench merge`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<VariantsShard>,
}

/// What `costbench merge` reads back from a shard's `matrix.json`: its baseline, its columns
/// and its shard (the rows are recomputed from the runs).
#[derive(Debug, Clone, Deserialize)]
pub struct MatrixHead {
    /// [`SCHEMA`] in a matrix.
    pub schema: String,
    /// The version it was written with.
    pub schema_version: u32,
    /// The column ratios were taken against.
    pub baseline: String,
    /// Every column of the shard.
    pub columns: Vec<Column>,
    /// Which shard, and what the whole session holds.
    #[serde(default)]
    pub shard: Option<VariantsShard>,
}

impl Matrix {
    /// The columns whose variant did not build.
    pub fn build_failures(&self) -> impl Iterator<Item = &Column> {
        self.columns.iter().filter(|c| c.build_error.is_some())
    }
}

fn geomean(ratios: &[f64]) -> Option<f64> {
    let ok: Vec<f64> = ratios
        .iter()
        .copied()
        .filter(|r| r.is_finite() && *r > 0.0)
        .collect();
    (!ok.is_empty()).then(|| (ok.iter().map(|r| r.ln()).sum::<f64>() / ok.len() as f64).exp())
}

/// Builds the matrix. `records` are the measured variants' records (their `variant` names a
/// column); `baseline` names the column ratios are taken against.
pub fn matrix(
    baseline: &str,
    columns: Vec<Column>,
    records: &[RunRecord],
    opts: &CompareOptions,
) -> Matrix {
    // Merged shards may hold several runs of the baseline, one per shard: each variant is
    // compared with its own shard's (measured on the same machine), the first stands for the
    // column.
    let bases: Vec<&RunRecord> = records.iter().filter(|r| r.variant == baseline).collect();
    let base = bases.first().copied();
    let shard_of = |r: &RunRecord| r.shard.as_ref().map(|s| s.index);
    // (variant, id, instrument) -> the compare row of the pair (baseline, variant).
    let mut judged: HashMap<(String, String, Instrument), compare::Row> = HashMap::new();
    let mut summary = Vec::new();
    if let Some(first) = base {
        for rec in records.iter().filter(|r| r.variant != baseline) {
            let base = bases
                .iter()
                .copied()
                .find(|b| shard_of(b) == shard_of(rec))
                .unwrap_or(first);
            let cmp = compare::compare(base, rec, opts);
            let mut prices = BTreeMap::new();
            for inst in Instrument::ALL {
                let rows: Vec<&compare::Row> =
                    cmp.rows.iter().filter(|r| r.instrument == inst).collect();
                let ratios: Vec<f64> = rows
                    .iter()
                    .filter(|r| r.base > 0.0 && !not_priced(r.verdict))
                    .map(|r| r.cand / r.base)
                    .collect();
                let count = |v: Verdict| rows.iter().filter(|r| r.verdict == v).count();
                if rows.is_empty() {
                    continue;
                }
                let price = Price {
                    geomean_ratio: geomean(&ratios),
                    compared: rows.len(),
                    regressions: count(Verdict::Regression),
                    improvements: count(Verdict::Improvement),
                    unresolved: count(Verdict::Unresolved),
                    placement: count(Verdict::Placement),
                };
                prices.insert(inst.name().to_string(), price);
            }
            summary.push(Summary {
                variant: rec.variant.clone(),
                settings: columns
                    .iter()
                    .find(|c| c.name == rec.variant)
                    .map(|c| c.settings.clone())
                    .unwrap_or_default(),
                prices,
            });
            for row in cmp.rows {
                judged.insert((rec.variant.clone(), row.id.clone(), row.instrument), row);
            }
        }
    }
    // Rows: ids in the baseline's order, then ids only other variants measured.
    let mut ids: Vec<(&str, u64, &str)> = Vec::new();
    for rec in base.into_iter().chain(records.iter()) {
        for r in &rec.results {
            if !ids.iter().any(|(id, _, _)| *id == r.id) {
                ids.push((r.id.as_str(), r.ops, r.unit.as_str()));
            }
        }
    }
    let measured: Vec<&RunRecord> = columns
        .iter()
        .filter_map(|c| records.iter().find(|r| r.variant == c.name))
        .collect();
    let rows = ids
        .into_iter()
        .map(|(id, ops, unit)| MatrixRow {
            id: id.to_string(),
            ops,
            unit: unit.to_string(),
            cells: measured
                .iter()
                .map(|rec| {
                    let r = rec.results.iter().find(|r| r.id == id);
                    let failed: Vec<String> = r
                        .map(|r| {
                            r.failures
                                .iter()
                                .map(|f| format!("{} ({})", f.instrument, f.kind))
                                .collect()
                        })
                        .unwrap_or_default();
                    let figure = |inst: Instrument| {
                        let r = r?;
                        let v = inst.per_op(r)?;
                        if r.failures
                            .iter()
                            .any(|f| f.instrument == inst.instrument().name())
                        {
                            return None;
                        }
                        let row = judged.get(&(rec.variant.clone(), id.to_string(), inst));
                        Some(Figure {
                            per_op: v,
                            ratio: row.filter(|x| x.base > 0.0).map(|x| x.cand / x.base),
                            change_pct: row.map(|x| x.change_pct),
                            verdict: row.map(|x| x.verdict),
                            ci: row.and_then(|x| x.ci),
                        })
                    };
                    Cell {
                        variant: rec.variant.clone(),
                        figures: Instrument::ALL
                            .into_iter()
                            .filter_map(|i| Some((i.name().to_string(), figure(i)?)))
                            .collect(),
                        failed,
                    }
                })
                .collect(),
        })
        .collect();
    Matrix {
        schema: SCHEMA.into(),
        schema_version: SCHEMA_VERSION,
        baseline: baseline.to_string(),
        compare_options: *opts,
        columns,
        rows,
        summary,
        shard: None,
    }
}

#[cfg(any(test, feature = "testing"))]
pub mod fixtures {
    //! Matrices the tests here and the renderers' tests (`costbench-report`'s `variants`) share.
    use super::*;
    use costbench_record::model::{Icount, ScenarioResult};

    /// A run of `variant` with instruction counts (`(id, Ir)`, 10 ops per run).
    pub fn record(variant: &str, figures: &[(&str, u64)]) -> RunRecord {
        let results = figures
            .iter()
            .map(|(id, ir)| ScenarioResult {
                icount: Some(Icount {
                    ir: *ir,
                    ir_per_op: *ir as f64 / 10.0,
                    callgrind_out: String::new(),
                    placement: None,
                }),
                ..ScenarioResult::empty(*id, *id, None, 10, "ops")
            })
            .collect();
        let mut r = crate::compare::testing::record(variant, results);
        r.variant = variant.to_string();
        r
    }

    /// A column that built, with no run yet.
    pub fn column(name: &str) -> Column {
        Column {
            name: name.into(),
            settings: name.into(),
            spec: Variant::plain(name),
            build: None,
            build_error: None,
            run_id: None,
            output_dir: None,
        }
    }

    /// Instruction counts of "base", "oc" (a +10 %), a variant that did not build, and "fast"
    /// (a −50 %).
    pub fn ratios() -> Matrix {
        let recs = [
            record("base", &[("a", 1000), ("b", 2000)]),
            record("oc", &[("a", 1100), ("b", 2001)]),
            record("fast", &[("a", 500), ("b", 2000)]),
        ];
        let mut broken = column("broken");
        broken.build_error = Some("error[E0425]: cannot find value `x`".into());
        let cols = vec![column("base"), column("oc"), broken, column("fast")];
        matrix("base", cols, &recs, &CompareOptions::default())
    }

    /// A service's two parties with instruction counts and its load row with throughput, in
    /// "base" and "slow" (whose load rounds are 10 % slower): rows of two kinds.
    pub fn service() -> Matrix {
        use crate::compare::testing::{scenario, with_throughput};
        let side = |variant: &str, f: f64| {
            let mut r = record(variant, &[("svc_client", 1000), ("svc_server", 2000)]);
            let ops: Vec<f64> = (0..10)
                .map(|k| 1000.0 * f * (1.0 + 0.01 * k as f64))
                .collect();
            let p99: Vec<f64> = (0..10)
                .map(|k| 50_000.0 * (1.0 + 0.01 * k as f64))
                .collect();
            r.results.push(with_throughput(
                scenario("svc@4c"),
                4,
                &ops,
                &p99,
                Some("s"),
            ));
            r
        };
        let recs = [side("base", 1.0), side("slow", 1.0 / 1.1)];
        matrix(
            "base",
            vec![column("base"), column("slow")],
            &recs,
            &CompareOptions::default(),
        )
    }

    /// Wall time of "base" and "s1" in paired rounds (issue 13).
    pub fn marks() -> Matrix {
        // Issue 13: two variants are two binaries. "moved": the same instructions, 7 % slower
        // (a link-order shuffle does that); "wide": rounds spread ±14 %; "real": 20 % more
        // instructions and 20 % slower.
        use crate::compare::testing::{rounds_pair, scenario, with_icount, with_rounds};
        let tight: Vec<f64> = (0..12).map(|k| 0.0005 * (k % 5) as f64).collect();
        let wide: Vec<f64> = (0..12).map(|k| 0.06 * ((k % 5) as f64 - 2.0)).collect();
        let side = |variant: &str, pick: usize| {
            let v = |ratio: f64, w: &[f64]| {
                let (b, c) = rounds_pair(ratio, w);
                if pick == 0 {
                    b
                } else {
                    c
                }
            };
            let ir = |x: f64| if pick == 0 { x } else { x * 1.2 };
            let mut r = crate::compare::testing::record(
                variant,
                vec![
                    with_rounds(
                        with_icount(scenario("moved"), 100.0),
                        &v(1.07, &tight),
                        true,
                        1,
                    ),
                    with_rounds(
                        with_icount(scenario("wide"), 100.0),
                        &v(1.02, &wide),
                        true,
                        1,
                    ),
                    with_rounds(
                        with_icount(scenario("real"), ir(100.0)),
                        &v(1.2, &tight),
                        true,
                        1,
                    ),
                ],
            );
            r.variant = variant.into();
            r
        };
        let recs = [side("base", 0), side("s1", 1)];
        matrix(
            "base",
            vec![column("base"), column("s1")],
            &recs,
            &CompareOptions::default(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_15_each_variant_is_compared_with_its_own_shards_baseline() {
        use costbench_record::model::ShardInfo;
        let in_shard = |mut r: RunRecord, k: u32| {
            r.shard = Some(ShardInfo {
                index: k,
                count: 2,
                assignment: "t".into(),
                selected: vec![],
            });
            r
        };
        // Merged shards of a session whose every shard measured the baseline: shard 2's
        // baseline measured twice the figure of shard 1's, and each variant 10 % above its own.
        let recs = [
            in_shard(fixtures::record("base", &[("a", 1000)]), 1),
            in_shard(fixtures::record("v1", &[("a", 1100)]), 1),
            in_shard(fixtures::record("base", &[("a", 2000)]), 2),
            in_shard(fixtures::record("v2", &[("a", 2200)]), 2),
        ];
        let cols = ["base", "v1", "v2"].map(fixtures::column).to_vec();
        let m = matrix("base", cols, &recs, &CompareOptions::default());
        let cells = &m.rows[0].cells;
        assert_eq!(cells.len(), 3, "one column for the baseline");
        assert_eq!(cells[0].figures["icount"].per_op, 100.0, "shard 1's stands");
        for c in &cells[1..] {
            let r = c.figures["icount"].ratio.unwrap();
            assert!((r - 1.1).abs() < 1e-9, "{}: {r}", c.variant);
        }
        // One baseline run: every variant against it, whatever its shard.
        let m = matrix(
            "base",
            ["base", "v1", "v2"].map(fixtures::column).to_vec(),
            &[recs[0].clone(), recs[1].clone(), recs[3].clone()],
            &CompareOptions::default(),
        );
        let r = m.rows[0].cells[2].figures["icount"].ratio.unwrap();
        assert!((r - 2.2).abs() < 1e-9, "{r}");
    }

    #[test]
    fn cells_carry_ratios_verdicts_and_prices() {
        let m = fixtures::ratios();
        assert_eq!(m.rows.len(), 2);
        let a = &m.rows[0];
        assert_eq!(a.cells.len(), 3, "the broken variant has no cells");
        assert_eq!(a.cells[0].figure(Instrument::Icount).unwrap().ratio, None);
        let oc = a.cells[1].figure(Instrument::Icount).unwrap();
        assert_eq!(oc.per_op, 110.0);
        assert!((oc.ratio.unwrap() - 1.1).abs() < 1e-12);
        assert_eq!(oc.verdict, Some(Verdict::Regression));
        let b_oc = m.rows[1].cells[1].figure(Instrument::Icount).unwrap();
        assert_eq!(
            b_oc.verdict,
            Some(Verdict::Unchanged),
            "0.05 % is below 0.2 %"
        );
        let price = &m.summary[0].prices["icount"];
        assert_eq!(
            (price.regressions, price.improvements, price.compared),
            (1, 0, 2)
        );
        let want = (1.1f64 * 1.0005).sqrt();
        assert!((price.geomean_ratio.unwrap() - want).abs() < 1e-12);
        assert_eq!(m.summary[1].prices["icount"].improvements, 1);
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(json["schema"], SCHEMA);
        assert_eq!(
            json["rows"][0]["cells"][1]["icount"]["verdict"],
            "regression"
        );
    }

    #[test]
    fn placement_and_unresolved_ratios_are_marked_and_not_priced() {
        let m = fixtures::marks();
        let verdict = |row: usize| {
            m.rows[row].cells[1]
                .figure(Instrument::Walltime)
                .unwrap()
                .verdict
        };
        assert_eq!(verdict(0), Some(Verdict::Placement));
        assert_eq!(verdict(1), Some(Verdict::Unresolved));
        assert_eq!(verdict(2), Some(Verdict::Regression));
        let price = &m.summary[0].prices["walltime"];
        assert_eq!(
            (
                price.regressions,
                price.unresolved,
                price.placement,
                price.compared
            ),
            (1, 1, 1, 3)
        );
        // Only "real" is priced.
        let real = m.rows[2].cells[1].figure(Instrument::Walltime).unwrap();
        assert!((price.geomean_ratio.unwrap() - real.ratio.unwrap()).abs() < 1e-12);
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(json["schema_version"], 2);
        assert_eq!(json["summary"][0]["walltime"]["placement"], 1);
    }

    #[test]
    fn geomean_ignores_non_positive_ratios() {
        assert_eq!(geomean(&[]), None);
        assert!((geomean(&[2.0, 8.0]).unwrap() - 4.0).abs() < 1e-12);
        assert!((geomean(&[2.0, 0.0, f64::INFINITY]).unwrap() - 2.0).abs() < 1e-12);
    }
}
