//! `costbench merge` of a sharded `variants` session: the shards' variants roots (each a
//! `matrix.json` and one output directory per variant it measured) become one root with every
//! variant's run. [`load_part`] reads a root's runs, [`merge_variants`] decides (pure),
//! [`write`](fn@write) writes; the matrix over the merged runs is `costbench-judge`'s.
//!
//! - **Whole variants per shard**: each variant's run is taken as its shard measured it. A
//!   baseline that every shard measured (an instrument judged on one machine ran, one whose
//!   descriptor is `machine_bound`) keeps every shard's run, the lowest shard's under the variant's
//!   name and the others' as `NAME@K` (`@` is never in a variant's name), so that each variant
//!   is compared with the baseline measured beside it.
//! - **Scenarios split** (fewer variants than shards): each variant's shards merge as one
//!   sharded run does ([`super::merge`]).
//!
//! It refuses shards of different sessions (variants, baseline, shard count, partition, commit,
//! toolchain, suite, settings), a shard missing or given twice, and a variant claimed by two
//! shards, naming the directories.

use super::{agree, by_shard, copy_files, identity, COUNT_HINT, PARTITION_HINT, SOURCE_HINT};
use crate::model::{RunRecord, VariantSplit, VariantsShard};
use crate::output::{load_run, OutputDir};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// The file of a variants root that names its columns and its shard.
pub const MATRIX_FILE: &str = "matrix.json";

/// One shard's variants root, read.
#[derive(Debug, Clone)]
pub struct VariantsPart {
    /// The root directory, for errors.
    pub root: PathBuf,
    /// Which shard, and the whole session's variants.
    pub shard: VariantsShard,
    /// The variants its matrix has a column for: measured, or failed to build.
    pub columns: Vec<String>,
    /// The runs it measured, each with its directory.
    pub runs: Vec<(PathBuf, RunRecord)>,
}

/// One run of the merged session.
#[derive(Debug, Clone)]
pub struct VariantRun {
    /// Its directory under the merged root: the variant's name, or `NAME@K` for shard K's
    /// baseline when every shard measured the baseline.
    pub dir: String,
    /// The directories whose instruments' files it keeps, in shard order.
    pub sources: Vec<PathBuf>,
    /// The run, as its shard measured it or merged from its shards.
    pub record: RunRecord,
}

/// The merged session.
#[derive(Debug, Clone)]
pub struct MergedVariants {
    /// The variant the others are compared with.
    pub baseline: String,
    /// Every variant in column order, with the index (into the parts) of the shard whose
    /// column describes it (its build, or its build's error).
    pub columns: Vec<(String, usize)>,
    /// Every run, in column order (the baseline's runs in shard order).
    pub runs: Vec<VariantRun>,
}

/// Whether `dir` is the root of a `variants` session rather than a run's output directory.
pub fn is_variants_root(dir: &Path) -> bool {
    dir.join(MATRIX_FILE).is_file() && !dir.join("run.json").is_file()
}

/// The shard in `root`, from what its `matrix.json` says (read by the caller, which owns the
/// matrix's types): its `shard` field and each column's name and run id. Loads the run of every
/// measured column from `root/NAME`.
pub fn load_part(
    root: &Path,
    shard: Option<VariantsShard>,
    columns: &[(String, Option<String>)],
) -> Result<VariantsPart> {
    let Some(shard) = shard else {
        bail!(
            "{} is not a shard: its variants session ran without --shard K/N",
            root.display()
        );
    };
    let mut runs = Vec::new();
    for (name, run_id) in columns {
        let Some(id) = run_id else { continue };
        let dir = root.join(name);
        let rec = load_run(&dir)
            .with_context(|| format!("variant {name} of the shard in {}", root.display()))?;
        if rec.run_id != *id {
            bail!(
                "{} holds run {} but {} names run {id}: the directory was measured again after \
                 the matrix was written; measure the shard again",
                dir.display(),
                rec.run_id,
                root.join(MATRIX_FILE).display()
            );
        }
        runs.push((dir, rec));
    }
    Ok(VariantsPart {
        root: root.to_path_buf(),
        shard,
        columns: columns.iter().map(|(n, _)| n.clone()).collect(),
        runs,
    })
}

/// Joins the shards of one `variants` session. `new_run_id` names each run merged from
/// several shards (scenarios split); runs measured whole keep their ids.
pub fn merge_variants(
    parts: &[VariantsPart],
    mut new_run_id: impl FnMut() -> String,
) -> Result<MergedVariants> {
    let Some(first) = parts.first() else {
        bail!("costbench merge needs the output directories of the shards");
    };
    type Field = fn(&VariantsShard) -> String;
    let fields: [(&str, Field, &str); 5] = [
        ("shard count", |s| s.count.to_string(), COUNT_HINT),
        ("assignment", |s| s.assignment.clone(), PARTITION_HINT),
        ("variants", |s| s.variants.join(", "), SOURCE_HINT),
        ("baseline", |s| s.baseline.clone(), SOURCE_HINT),
        ("split", |s| format!("{:?}", s.split), SOURCE_HINT),
    ];
    for (field, value, hint) in fields {
        let values: Vec<String> = parts.iter().map(|p| value(&p.shard)).collect();
        agree(
            field,
            parts
                .iter()
                .zip(&values)
                .map(|(p, v)| (p.root.as_path(), v.as_str())),
            hint,
        )?;
    }
    // Every run of the session was measured from one source with the same settings; what a
    // variant changes (its name, features and toolchain) may differ.
    let runs: Vec<(&Path, &RunRecord)> = parts
        .iter()
        .flat_map(|p| p.runs.iter().map(|(d, r)| (d.as_path(), r)))
        .collect();
    let ids: Vec<Vec<(&str, String)>> = runs.iter().map(|(_, r)| identity(r)).collect();
    if let Some(first_ids) = ids.first() {
        for (f, (field, _)) in first_ids.iter().enumerate() {
            if matches!(*field, "variant" | "cargo features" | "toolchain (rustc)") {
                continue;
            }
            let hint = if *field == "assignment" {
                PARTITION_HINT
            } else {
                SOURCE_HINT
            };
            agree(
                field,
                runs.iter()
                    .zip(&ids)
                    .map(|((dir, _), id)| (*dir, id[f].1.as_str())),
                hint,
            )?;
        }
    }
    let count = first.shard.count;
    // Each part with its position in `parts`, which the columns name.
    let numbered: Vec<(usize, &VariantsPart)> = parts.iter().enumerate().collect();
    let ordered: Vec<(usize, &VariantsPart)> =
        by_shard(&numbered, count, |(_, p)| (p.root.as_path(), p.shard.index))?
            .into_values()
            .copied()
            .collect();
    let baseline = first.shard.baseline.clone();
    let mut columns = Vec::new();
    let mut merged = Vec::new();
    for name in &first.shard.variants {
        let holders: Vec<(usize, &VariantsPart)> = ordered
            .iter()
            .copied()
            .filter(|(_, p)| p.columns.contains(name))
            .collect();
        let run_of = |p: &VariantsPart| p.runs.iter().find(|(_, r)| r.variant == *name).cloned();
        match first.shard.split {
            VariantSplit::WholeVariants {
                baseline_everywhere,
            } => {
                let everywhere = baseline_everywhere && *name == baseline;
                let Some(&(owner, _)) = holders.first() else {
                    bail!("cannot merge: no shard has variant {name}; every shard of the session is needed");
                };
                if everywhere && holders.len() < ordered.len() {
                    let lacking: Vec<String> = ordered
                        .iter()
                        .map(|(_, p)| p)
                        .filter(|p| !p.columns.contains(name))
                        .map(|p| format!("{}/{count} ({})", p.shard.index, p.root.display()))
                        .collect();
                    bail!(
                        "cannot merge: every shard measures the baseline {name} beside its own variants, \
                         but shard {} has none",
                        lacking.join(", ")
                    );
                }
                if !everywhere && holders.len() > 1 {
                    bail!(
                        "cannot merge: variant {name} is in shard {}/{count} ({}) and shard {}/{count} ({})",
                        holders[0].1.shard.index,
                        holders[0].1.root.display(),
                        holders[1].1.shard.index,
                        holders[1].1.root.display()
                    );
                }
                columns.push((name.clone(), owner));
                for (j, (_, p)) in holders.iter().enumerate() {
                    if let Some((dir, record)) = run_of(p) {
                        merged.push(VariantRun {
                            dir: if j == 0 {
                                name.clone()
                            } else {
                                format!("{name}@{}", p.shard.index)
                            },
                            sources: vec![dir],
                            record,
                        });
                    }
                }
            }
            VariantSplit::Scenarios => {
                if let Some((_, p)) = ordered.iter().find(|(_, p)| !p.columns.contains(name)) {
                    bail!(
                        "cannot merge: shard {}/{count} ({}) has no column for variant {name}, \
                         but with scenarios split every shard builds every variant",
                        p.shard.index,
                        p.root.display()
                    );
                }
                columns.push((name.clone(), ordered[0].0));
                let shards: Vec<(PathBuf, RunRecord)> =
                    ordered.iter().filter_map(|(_, p)| run_of(p)).collect();
                if shards.is_empty() {
                    // It failed to build in every shard: its column says why.
                    continue;
                }
                let record = super::merge(&shards, &new_run_id(), false)
                    .with_context(|| format!("variant {name}"))?;
                merged.push(VariantRun {
                    dir: name.clone(),
                    sources: shards.into_iter().map(|(d, _)| d).collect(),
                    record,
                });
            }
        }
    }
    Ok(MergedVariants {
        baseline,
        columns,
        runs: merged,
    })
}

/// Writes every run of `merged` into its directory under `out` (run.json, the CSV files and the
/// instruments' files of its sources). `roots` are the shards' roots, which `out` must not be.
pub fn write(merged: &MergedVariants, roots: &[PathBuf], out: &Path) -> Result<()> {
    let out_abs = std::fs::canonicalize(out).ok();
    for r in roots {
        if out_abs.is_some() && std::fs::canonicalize(r).ok() == out_abs {
            bail!(
                "--output {} is one of the shards' directories; merge into another directory",
                out.display()
            );
        }
    }
    for run in &merged.runs {
        let dir = OutputDir::prepare(&out.join(&run.dir))?;
        copy_files(run.sources.iter().map(PathBuf::as_path), dir.root())?;
        dir.write_all(&run.record)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ShardInfo;
    use crate::testing::{record, scenario, with_icount};

    const ALL: [&str; 4] = ["base", "a", "b", "c"];

    fn run(variant: &str, k: u32, n: u32, ids: &[&str], assignment: &str) -> RunRecord {
        let mut r = record(
            &format!("{variant}-{k}"),
            ids.iter()
                .map(|i| with_icount(scenario(i), 100.0))
                .collect(),
        );
        r.variant = variant.into();
        r.environment.git.as_mut().unwrap().commit = "0123abcd".into();
        r.shard = Some(ShardInfo {
            index: k,
            count: n,
            assignment: assignment.into(),
            selected: ids.iter().map(|s| s.to_string()).collect(),
        });
        r
    }

    /// Shard `k` of `n` with columns `columns`, of which `measured` have runs.
    fn part(
        k: u32,
        n: u32,
        split: VariantSplit,
        columns: &[&str],
        measured: &[&str],
    ) -> VariantsPart {
        let assignment = "whole variants; partition 00ff";
        VariantsPart {
            root: PathBuf::from(format!("s{k}")),
            shard: VariantsShard {
                index: k,
                count: n,
                assignment: assignment.into(),
                variants: ALL.map(String::from).to_vec(),
                baseline: "base".into(),
                split,
            },
            columns: columns.iter().map(|c| c.to_string()).collect(),
            runs: measured
                .iter()
                .map(|v| {
                    (
                        PathBuf::from(format!("s{k}/{v}")),
                        run(v, k, n, &["x", "y"], assignment),
                    )
                })
                .collect(),
        }
    }

    fn ids() -> impl FnMut() -> String {
        let mut n = 0;
        move || {
            n += 1;
            format!("new{n}")
        }
    }

    fn dirs(m: &MergedVariants) -> Vec<&str> {
        m.runs.iter().map(|r| r.dir.as_str()).collect()
    }

    const ONE: VariantSplit = VariantSplit::WholeVariants {
        baseline_everywhere: false,
    };
    const EVERY: VariantSplit = VariantSplit::WholeVariants {
        baseline_everywhere: true,
    };

    #[test]
    fn whole_variants_keep_their_runs_and_every_shards_baseline() {
        // c failed to build in shard 2: a column without a run.
        let m = merge_variants(
            &[
                part(2, 2, ONE, &["b", "c"], &["b"]),
                part(1, 2, ONE, &["base", "a"], &["base", "a"]),
            ],
            ids(),
        )
        .unwrap();
        assert_eq!(m.baseline, "base");
        let cols: Vec<(&str, usize)> = m.columns.iter().map(|(n, k)| (n.as_str(), *k)).collect();
        assert_eq!(cols, [("base", 1), ("a", 1), ("b", 0), ("c", 0)]);
        assert_eq!(dirs(&m), ["base", "a", "b"]);
        assert_eq!(
            m.runs[2].record.run_id, "b-2",
            "runs measured whole keep their ids"
        );
        assert_eq!(m.runs[2].sources, [PathBuf::from("s2/b")]);

        let m = merge_variants(
            &[
                part(1, 2, EVERY, &["base", "a", "b"], &["base", "a", "b"]),
                part(2, 2, EVERY, &["base", "c"], &["base", "c"]),
            ],
            ids(),
        )
        .unwrap();
        assert_eq!(dirs(&m), ["base", "base@2", "a", "b", "c"]);
        assert_eq!(m.runs[1].record.run_id, "base-2");
    }

    #[test]
    fn scenario_shards_merge_variant_by_variant() {
        let split = VariantSplit::Scenarios;
        let mut p1 = part(1, 2, split, &ALL, &ALL);
        let mut p2 = part(2, 2, split, &ALL, &ALL);
        for (p, id) in [(&mut p1, "x"), (&mut p2, "y")] {
            for (_, r) in &mut p.runs {
                r.results.retain(|s| s.id == id);
                let cells: Vec<String> = ["x", "y"]
                    .iter()
                    .map(|s| format!("{}/{s}", r.variant))
                    .collect();
                r.shard.as_mut().unwrap().selected = cells;
            }
        }
        let m = merge_variants(&[p1, p2], ids()).unwrap();
        assert_eq!(dirs(&m), ALL);
        for (k, r) in m.runs.iter().enumerate() {
            assert_eq!(r.record.run_id, format!("new{}", k + 1));
            let ids: Vec<&str> = r.record.results.iter().map(|s| s.id.as_str()).collect();
            assert_eq!(ids, ["x", "y"]);
            assert_eq!(r.sources.len(), 2);
        }
    }

    #[test]
    fn shards_of_other_sessions_and_missing_shards_are_refused() {
        let err =
            |parts: Vec<VariantsPart>| format!("{:#}", merge_variants(&parts, ids()).unwrap_err());
        let p1 = || part(1, 2, ONE, &["base", "a"], &["base", "a"]);
        let p2 = || part(2, 2, ONE, &["b", "c"], &["b", "c"]);
        let mut other = p2();
        other.shard.variants.pop();
        assert!(err(vec![p1(), other]).contains("differ in variants"));
        let mut other = p2();
        other.shard.baseline = "a".into();
        assert!(err(vec![p1(), other]).contains("differ in baseline"));
        let mut other = p2();
        other.shard.assignment = "by cost; partition 1234".into();
        assert!(err(vec![p1(), other]).contains("did not agree on the partition"));
        let mut other = p2();
        other.runs[0].1.environment.git.as_mut().unwrap().commit = "feedface".into();
        let e = err(vec![p1(), other]);
        assert!(
            e.contains("differ in git commit") && e.contains("s2/b"),
            "{e}"
        );
        let e = err(vec![p1()]);
        assert!(e.contains("shard 2/2 missing"), "{e}");
        let e = err(vec![p1(), p1()]);
        assert!(e.contains("shard 1/2 is given twice"), "{e}");
        let e = err(vec![p1(), part(2, 2, ONE, &["a", "b", "c"], &["b"])]);
        assert!(
            e.contains("variant a is in shard 1/2 (s1) and shard 2/2 (s2)"),
            "{e}"
        );
        let e = err(vec![
            part(1, 2, EVERY, &["base", "a", "b"], &["base", "a", "b"]),
            part(2, 2, EVERY, &["c"], &["c"]),
        ]);
        assert!(e.contains("shard 2/2 (s2) has none"), "{e}");
        let e = err(vec![
            part(1, 2, VariantSplit::Scenarios, &ALL, &[]),
            part(2, 2, VariantSplit::Scenarios, &["base", "a"], &[]),
        ]);
        assert!(e.contains("has no column for variant b"), "{e}");
        assert!(err(vec![]).contains("needs the output directories"));
    }

    #[test]
    fn roots_are_read_and_written_with_their_files() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("s1");
        let base = run("base", 1, 1, &["x"], "t");
        let dir = OutputDir::prepare(&root.join("base")).unwrap();
        dir.write_all(&base).unwrap();
        std::fs::create_dir_all(root.join("base/callgrind")).unwrap();
        std::fs::write(root.join("base/callgrind/x.out"), "profile").unwrap();
        let shard = VariantsShard {
            index: 1,
            count: 1,
            assignment: "t".into(),
            variants: vec!["base".into(), "a".into()],
            baseline: "base".into(),
            split: ONE,
        };
        std::fs::write(root.join(MATRIX_FILE), "{}").unwrap();
        assert!(is_variants_root(&root) && !is_variants_root(&root.join("base")));
        let columns = [
            ("base".to_string(), Some("base-1".to_string())),
            ("a".to_string(), None),
        ];
        let p = load_part(&root, Some(shard.clone()), &columns).unwrap();
        assert_eq!(p.columns, ["base", "a"]);
        assert_eq!(p.runs.len(), 1);
        let m = merge_variants(&[p], ids()).unwrap();
        let out = tmp.path().join("merged");
        write(&m, std::slice::from_ref(&root), &out).unwrap();
        assert_eq!(load_run(&out.join("base")).unwrap(), base.settled());
        assert_eq!(
            std::fs::read_to_string(out.join("base/callgrind/x.out")).unwrap(),
            "profile"
        );
        let e = format!(
            "{:#}",
            write(&m, std::slice::from_ref(&root), &root).unwrap_err()
        );
        assert!(e.contains("is one of the shards' directories"), "{e}");
        // A matrix without a shard, and a run directory measured again since.
        let e = format!("{:#}", load_part(&root, None, &columns).unwrap_err());
        assert!(e.contains("is not a shard"), "{e}");
        let stale = [("base".to_string(), Some("older".to_string()))];
        let e = format!("{:#}", load_part(&root, Some(shard), &stale).unwrap_err());
        assert!(e.contains("was measured again"), "{e}");
    }
}
