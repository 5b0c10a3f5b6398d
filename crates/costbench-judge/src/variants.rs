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

use crate::compare::{self, CompareOptions, RatioCi, Verdict};
use costbench_record::instrument::Figure;
use costbench_record::model::budget::BinarySize;
use costbench_record::model::VariantsShard;
use costbench_record::model::{BuildInfo, RunRecord};
use costbench_record::variant::Variant;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// `schema` of `matrix.json`.
pub const SCHEMA: &str = "costbench-variants";
/// Bump on any incompatible change. 2: verdicts `unresolved` and `placement`; prices leave those
/// rows out and count them (`unresolved`, `placement`).
pub const SCHEMA_VERSION: u32 = 2;

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
    /// The size of its bench binary, from its run record (absent in older matrices).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<BinarySize>,
    /// Set when the variant did not build: the compiler's error.
    pub build_error: Option<String>,
    /// The id of the run that measured it.
    pub run_id: Option<String>,
    /// The output directory of that run.
    pub output_dir: Option<String>,
}

/// A per-op figure of one variant under one instrument.
#[derive(Debug, Clone, Serialize)]
pub struct CellFigure {
    /// Instructions, or median nanoseconds, per op.
    pub per_op: f64,
    /// `per_op / baseline per_op` (absent for the baseline and where it has no figure).
    pub ratio: Option<f64>,
    /// The change from the baseline, in percent.
    pub change_pct: Option<f64>,
    /// `compare`'s verdict on the change (absent for the baseline).
    pub verdict: Option<Verdict>,
    /// The interval of the ratio `compare` gave the row, where its judging gives one (timings).
    pub ci: Option<RatioCi>,
}

/// One variant's figures for one measured id.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// The variant (the column's name).
    pub variant: String,
    /// Per compared figure, by its name (`Figure::name`): its figure.
    #[serde(flatten)]
    pub figures: BTreeMap<String, CellFigure>,
    /// Instruments that failed for this id in this variant: `NAME (KIND)`, the instrument's
    /// name and the failure's kind (`panicked`).
    pub failed: Vec<String>,
}

impl Cell {
    /// The cell's figure under `inst`, if it has one.
    pub fn figure(&self, inst: Figure) -> Option<&CellFigure> {
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
    mut columns: Vec<Column>,
    records: &[RunRecord],
    opts: &CompareOptions,
) -> Matrix {
    for c in columns.iter_mut().filter(|c| c.binary.is_none()) {
        c.binary = records
            .iter()
            .find(|r| r.variant == c.name)
            .and_then(|r| r.binary.clone());
    }
    // Merged shards may hold several runs of the baseline, one per shard: each variant is
    // compared with its own shard's (measured on the same machine), the first stands for the
    // column.
    let bases: Vec<&RunRecord> = records.iter().filter(|r| r.variant == baseline).collect();
    let base = bases.first().copied();
    let shard_of = |r: &RunRecord| r.shard.as_ref().map(|s| s.index);
    // (variant, id, instrument) -> the compare row of the pair (baseline, variant).
    let mut judged: HashMap<(String, String, Figure), compare::Row> = HashMap::new();
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
            for inst in Figure::ALL {
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
                    let figure = |inst: Figure| {
                        let r = r?;
                        let v = inst.per_op(r)?;
                        if r.failures
                            .iter()
                            .any(|f| f.instrument == inst.instrument().name())
                        {
                            return None;
                        }
                        let row = judged.get(&(rec.variant.clone(), id.to_string(), inst));
                        Some(CellFigure {
                            per_op: v,
                            ratio: row.filter(|x| x.base > 0.0).map(|x| x.cand / x.base),
                            change_pct: row.map(|x| x.change_pct),
                            verdict: row.map(|x| x.verdict),
                            ci: row.and_then(|x| x.ci),
                        })
                    };
                    Cell {
                        variant: rec.variant.clone(),
                        figures: Figure::ALL
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;

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
            in_shard(testing::variant_record("base", &[("a", 1000)]), 1),
            in_shard(testing::variant_record("v1", &[("a", 1100)]), 1),
            in_shard(testing::variant_record("base", &[("a", 2000)]), 2),
            in_shard(testing::variant_record("v2", &[("a", 2200)]), 2),
        ];
        let cols = ["base", "v1", "v2"].map(testing::column).to_vec();
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
            ["base", "v1", "v2"].map(testing::column).to_vec(),
            &[recs[0].clone(), recs[1].clone(), recs[3].clone()],
            &CompareOptions::default(),
        );
        let r = m.rows[0].cells[2].figures["icount"].ratio.unwrap();
        assert!((r - 2.2).abs() < 1e-9, "{r}");
    }

    #[test]
    fn cells_carry_ratios_verdicts_and_prices() {
        let m = testing::ratios();
        assert_eq!(m.rows.len(), 2);
        let a = &m.rows[0];
        assert_eq!(a.cells.len(), 3, "the broken variant has no cells");
        assert_eq!(a.cells[0].figure(Figure::Icount).unwrap().ratio, None);
        let oc = a.cells[1].figure(Figure::Icount).unwrap();
        assert_eq!(oc.per_op, 110.0);
        assert!((oc.ratio.unwrap() - 1.1).abs() < 1e-12);
        assert_eq!(oc.verdict, Some(Verdict::Regression));
        let b_oc = m.rows[1].cells[1].figure(Figure::Icount).unwrap();
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
        let m = testing::marks();
        let verdict = |row: usize| {
            m.rows[row].cells[1]
                .figure(Figure::Walltime)
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
        let real = m.rows[2].cells[1].figure(Figure::Walltime).unwrap();
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
