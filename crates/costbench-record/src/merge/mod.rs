//! `costbench merge`: the output directories of the shards of one sharded run (`--shard K/N`)
//! become one run record with the same files as an unsharded run ([`merge_dirs`]).
//!
//! [`merge`] is pure over the records: it refuses shards that do not belong together (another
//! commit, toolchain, suite, variant, settings, instruments, shard count or partition; a shard
//! missing or given twice; a scenario measured by two shards), naming the directories and what
//! differs, and keeps per row which shard and machine measured it ([`Merged`]), so that wall
//! time measured on different machines is never compared as if from one. [`merge_dirs`] reads
//! the directories, copies the instruments' kept files (their descriptors' `kept`) and writes
//! the merged directory atomically through [`OutputDir`].

use crate::model::{
    Completion, Merged, MergedShard, RunRecord, ScenarioResult, Skipped, StopReason, Unfinished,
    SCHEMA, SCHEMA_VERSION,
};
use crate::output::{load_run, OutputDir};
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub mod variants;

/// The fields that must be equal in every shard, with how an error names each: (name, value).
fn identity(r: &RunRecord) -> Vec<(&'static str, String)> {
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".into());
    let s = &r.settings;
    vec![
        (
            "git commit",
            r.environment
                .git
                .as_ref()
                .map_or_else(|| "none".into(), |g| g.commit.clone()),
        ),
        ("toolchain (rustc)", opt(&r.environment.rustc)),
        ("valgrind", opt(&r.environment.valgrind)),
        ("costbench version", r.tool.version.clone()),
        (
            "suite",
            format!(
                "{} bench {} (costbench library {})",
                r.suite.package, r.suite.bench, r.suite.library_version
            ),
        ),
        ("variant", r.variant.clone()),
        ("instruments", s.instruments.join(",")),
        ("filter", opt(&s.filter)),
        ("timeout", format!("{} s", s.timeout_secs)),
        (
            "samples",
            s.samples
                .map_or_else(|| "default".into(), |n| n.to_string()),
        ),
        ("code alignment", opt(&s.code_align)),
        (
            "cargo features",
            format!(
                "{}{}{}",
                s.features.join(","),
                if s.all_features {
                    " --all-features"
                } else {
                    ""
                },
                if s.no_default_features {
                    " --no-default-features"
                } else {
                    ""
                }
            ),
        ),
        ("cargo profile", opt(&s.profile)),
        (
            "shard count",
            r.shard
                .as_ref()
                .map_or_else(String::new, |x| x.count.to_string()),
        ),
        (
            "assignment",
            r.shard
                .as_ref()
                .map_or_else(String::new, |x| x.assignment.clone()),
        ),
    ]
}

const PARTITION_HINT: &str =
    "; the jobs did not agree on the partition: give every job the same history (--db) or none";
const COUNT_HINT: &str = "; every job must use the same N in --shard K/N";
const SOURCE_HINT: &str =
    "; shards of one run must be measured from the same source with the same settings";

/// Refuses values of `field` that differ between shards, naming each value with its
/// directories.
fn agree<'a>(
    field: &str,
    values: impl Iterator<Item = (&'a Path, &'a str)>,
    hint: &str,
) -> Result<()> {
    let mut groups: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (dir, v) in values {
        groups.entry(v).or_default().push(dir.display().to_string());
    }
    if groups.len() > 1 {
        let listed: Vec<String> = groups
            .iter()
            .map(|(v, dirs)| format!("{v:?} in {}", dirs.join(", ")))
            .collect();
        bail!(
            "cannot merge: the shards differ in {field}: {}{hint}",
            listed.join("; ")
        );
    }
    Ok(())
}

/// The parts by shard index, refusing a shard given twice or missing: `locate` gives each
/// part's directory and index.
fn by_shard<T>(
    parts: &[T],
    count: u32,
    locate: impl Fn(&T) -> (&Path, u32),
) -> Result<BTreeMap<u32, &T>> {
    let mut by_index: BTreeMap<u32, &T> = BTreeMap::new();
    for part in parts {
        let (dir, k) = locate(part);
        if let Some(other) = by_index.insert(k, part) {
            bail!(
                "cannot merge: shard {k}/{count} is given twice, in {} and {}",
                locate(other).0.display(),
                dir.display()
            );
        }
    }
    let missing: Vec<String> = (1..=count)
        .filter(|k| !by_index.contains_key(k))
        .map(|k| format!("{k}/{count}"))
        .collect();
    if !missing.is_empty() {
        let have: Vec<String> = by_index
            .iter()
            .map(|(k, p)| format!("{k}/{count} in {}", locate(p).0.display()))
            .collect();
        bail!(
            "cannot merge: shard {} missing (have {}); a merged run needs every shard",
            missing.join(", "),
            have.join(", ")
        );
    }
    Ok(by_index)
}

/// Refuses a shard that did not finish ([`Unfinished`]: killed, interrupted, out of space),
/// naming it, how many rows it lacks and how to measure them, unless `allow_unfinished`: then
/// returns what the merged run must say of them (its [`Completion`]), `None` when every shard
/// finished.
fn unfinished_shards(
    parts: &[(PathBuf, RunRecord)],
    allow_unfinished: bool,
) -> Result<Option<Completion>> {
    let mut said = Vec::new();
    for (dir, r) in parts {
        let c = r.completion();
        if c.finished {
            continue;
        }
        let shard = r
            .shard
            .as_ref()
            .map_or_else(String::new, |s| format!("{}/{}", s.index, s.count));
        let lacks = r.not_reached().len();
        if !allow_unfinished {
            return Err(Unfinished(format!(
                "cannot merge: shard {shard} ({}) did not finish ({}); {lacks} of its {} rows \
                 have no figure. Re-run that shard with the same --shard {shard} and merge \
                 again, or merge what it holds with --allow-unfinished (the merged run is then \
                 marked unfinished)",
                dir.display(),
                c.describe(),
                r.results.len()
            ))
            .into());
        }
        said.push(format!(
            "shard {shard} ({}) did not finish ({}): {lacks} rows not reached",
            dir.display(),
            c.why.map_or("unfinished", |w| w.name())
        ));
    }
    Ok((!said.is_empty()).then(|| {
        Completion::stopped(
            StopReason::UnfinishedShards,
            format!("merged with --allow-unfinished; {}", said.join("; ")),
        )
    }))
}

/// Merges the records of every shard of one sharded run (each with the directory it came from,
/// for the errors) into one record with the id `run_id`. The rows follow the suite's listing
/// order, as in an unsharded run. A shard that did not finish is refused ([`Unfinished`]) unless
/// `allow_unfinished`; then the merged run is marked unfinished, its missing rows not reached.
pub fn merge(
    parts: &[(PathBuf, RunRecord)],
    run_id: &str,
    allow_unfinished: bool,
) -> Result<RunRecord> {
    let Some((_, first)) = parts.first() else {
        bail!("costbench merge needs the output directories of the shards");
    };
    for (dir, r) in parts {
        if r.merged.is_some() {
            bail!(
                "{} is already a merged run: merge the shards' own directories",
                dir.display()
            );
        }
        if r.shard.is_none() {
            bail!(
                "{} is not a shard: its run was measured without --shard K/N",
                dir.display()
            );
        }
    }
    let ids: Vec<Vec<(&str, String)>> = parts.iter().map(|(_, r)| identity(r)).collect();
    for (f, (field, _)) in ids[0].iter().enumerate() {
        let hint = match *field {
            "assignment" => PARTITION_HINT,
            "shard count" => COUNT_HINT,
            _ => SOURCE_HINT,
        };
        agree(
            field,
            parts
                .iter()
                .zip(&ids)
                .map(|((dir, _), id)| (dir.as_path(), id[f].1.as_str())),
            hint,
        )?;
    }
    let count = first.shard.as_ref().expect("checked above").count;
    let completion = unfinished_shards(parts, allow_unfinished)?;
    let by_index = by_shard(parts, count, |(dir, r)| {
        (
            dir.as_path(),
            r.shard.as_ref().expect("checked above").index,
        )
    })?;
    let mut owner: BTreeMap<&str, (&Path, u32)> = BTreeMap::new();
    for (k, (dir, r)) in &by_index {
        for res in &r.results {
            if let Some((other, j)) = owner.insert(&res.id, (dir, *k)) {
                bail!(
                    "cannot merge: scenario {} is in shard {j}/{count} ({}) and shard {k}/{count} ({})",
                    res.id,
                    other.display(),
                    dir.display()
                );
            }
        }
    }
    // Rows in the suite's order: each selected unit's rows (its parties) where its shard put
    // them. Units are scenario names, or VARIANT/SCENARIO cells of a sharded `variants`.
    let selected = &first.shard.as_ref().expect("checked above").selected;
    let mut results: Vec<ScenarioResult> = Vec::new();
    let all: Vec<&ScenarioResult> = by_index.values().flat_map(|(_, r)| &r.results).collect();
    let unit_of = |res: &ScenarioResult| -> bool {
        selected
            .iter()
            .any(|u| *u == res.scenario || *u == format!("{}/{}", first.variant, res.scenario))
    };
    for unit in selected {
        results.extend(
            all.iter()
                .filter(|res| {
                    *unit == res.scenario || *unit == format!("{}/{}", first.variant, res.scenario)
                })
                .map(|r| (*r).clone()),
        );
    }
    results.extend(all.iter().filter(|r| !unit_of(r)).map(|r| (*r).clone()));
    let mut skipped: Vec<Skipped> = Vec::new();
    for (_, r) in by_index.values() {
        for s in &r.skipped {
            if !skipped.contains(s) {
                skipped.push(s.clone());
            }
        }
    }
    let shards: Vec<MergedShard> = by_index
        .iter()
        .map(|(k, (_, r))| MergedShard {
            index: *k,
            count,
            run_id: r.run_id.clone(),
            started_at: r.started_at.clone(),
            finished_at: r.finished_at.clone(),
            host: r.environment.host.clone(),
            ids: r.results.iter().map(|x| x.id.clone()).collect(),
        })
        .collect();
    let started_at = shards
        .iter()
        .map(|s| s.started_at.clone())
        .min()
        .unwrap_or_default();
    let finished_at = shards
        .iter()
        .map(|s| s.finished_at.clone())
        .collect::<Option<Vec<String>>>()
        .and_then(|v| v.into_iter().max());
    Ok(RunRecord {
        schema: SCHEMA.into(),
        schema_version: SCHEMA_VERSION,
        run_id: run_id.into(),
        started_at,
        finished_at,
        // A shard that was interrupted leaves the merged run short too: say so (the first one's).
        interrupted: by_index.values().find_map(|(_, r)| r.interrupted.clone()),
        completion,
        tool: first.tool.clone(),
        suite: first.suite.clone(),
        variant: first.variant.clone(),
        // Shard 1's machine stands for the run; each row's own machine is in `merged`.
        environment: by_index[&1].1.environment.clone(),
        settings: first.settings.clone(),
        skipped,
        harness_residual_ir: by_index.values().find_map(|(_, r)| r.harness_residual_ir),
        results,
        shard: None,
        merged: Some(Merged { shards }),
        // Every shard built the same variant: the first one's build stands for it.
        build: by_index[&1].1.build.clone(),
        binary: by_index[&1].1.binary.clone(),
        // Each shard checked the budgets of its own ids (and every one the binary's size).
        budgets: {
            let mut all: Vec<crate::model::budget::BudgetCheck> = Vec::new();
            for (_, r) in by_index.values() {
                for b in &r.budgets {
                    if !all.iter().any(|x| x.id == b.id && x.figure == b.figure) {
                        all.push(b.clone());
                    }
                }
            }
            all
        },
        // A family may span shards: fitted by the caller of `merge_dirs` (its `finish`), the
        // judge's to do.
        complexity: Vec::new(),
        complexity_checks: by_index
            .values()
            .flat_map(|(_, r)| r.complexity_checks.iter().cloned())
            .collect(),
        backfill: None,
    })
}

/// Reads the shards' output directories `dirs`, merges them ([`merge`]) and writes the merged
/// run into `out` (run.json, the CSV files, and every file of the instruments' subdirectories,
/// copied; a file name in several shards, such as the harness's residual scenario that every
/// shard measures, keeps the first shard's). `finish` completes the merged record before it is
/// written (the CLI fits its families of sized ids again: judging is not this crate's).
/// Returns the merged record.
pub fn merge_dirs(
    dirs: &[PathBuf],
    out: &Path,
    run_id: &str,
    allow_unfinished: bool,
    finish: impl FnOnce(&mut RunRecord),
) -> Result<RunRecord> {
    let out_abs = std::fs::canonicalize(out).ok();
    let mut parts = Vec::new();
    for d in dirs {
        if out_abs.is_some() && std::fs::canonicalize(d).ok() == out_abs {
            bail!(
                "--output {} is one of the shards' directories; merge into another directory",
                out.display()
            );
        }
        parts.push((d.clone(), load_run(d)?));
    }
    let mut merged = merge(&parts, run_id, allow_unfinished)?;
    finish(&mut merged);
    let dir = OutputDir::prepare(out)?;
    let mut order: Vec<&(PathBuf, RunRecord)> = parts.iter().collect();
    order.sort_by_key(|(_, r)| r.shard.as_ref().map_or(0, |s| s.index));
    copy_files(order.iter().map(|(src, _)| src.as_path()), dir.root())?;
    dir.write_all(&merged)?;
    Ok(merged)
}

/// Copies every file of the instruments' subdirectories of `sources` into `root`'s: a file
/// name in several sources keeps the first source's, while a file left in `root` by an earlier
/// merge is replaced.
fn copy_files<'a>(sources: impl Iterator<Item = &'a Path>, root: &Path) -> Result<()> {
    let mut written = std::collections::HashSet::new();
    for src in sources {
        // The instruments' kept files, as their descriptors place them.
        for sub in crate::instrument::Instrument::kept_dirs() {
            let from = src.join(sub);
            let Ok(entries) = std::fs::read_dir(&from) else {
                continue;
            };
            let to = root.join(sub);
            std::fs::create_dir_all(&to)
                .with_context(|| format!("cannot create {}", to.display()))?;
            for e in entries {
                let e = e.with_context(|| format!("reading {}", from.display()))?;
                let target = to.join(e.file_name());
                if !e.path().is_file() || !written.insert(target.clone()) {
                    continue;
                }
                let bytes = std::fs::read(e.path())
                    .with_context(|| format!("reading {}", e.path().display()))?;
                crate::output::write_atomic(&target, &bytes)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ShardInfo;
    use crate::testing::{record, scenario, with_icount};

    fn shard(k: u32, n: u32, ids: &[&str], selected: &[&str]) -> RunRecord {
        let mut r = record(
            &format!("run{k}"),
            ids.iter()
                .map(|i| with_icount(scenario(i), 100.0))
                .collect(),
        );
        r.shard = Some(ShardInfo {
            index: k,
            count: n,
            assignment: "by count; partition 0001".into(),
            selected: selected.iter().map(|s| s.to_string()).collect(),
        });
        r.environment.host.name = Some(format!("host{k}"));
        r.environment.git.as_mut().unwrap().commit = "0123abcd".into();
        r
    }

    fn parts(rs: Vec<RunRecord>) -> Vec<(PathBuf, RunRecord)> {
        rs.into_iter()
            .map(|r| {
                let k = r.shard.as_ref().map_or(0, |s| s.index);
                (PathBuf::from(format!("out/shard{k}")), r)
            })
            .collect()
    }

    #[test]
    fn shards_merge_in_listing_order_with_their_provenance() {
        let sel = ["c", "a", "b"];
        let m = merge(
            &parts(vec![
                shard(2, 2, &["a"], &sel),
                shard(1, 2, &["c", "b"], &sel),
            ]),
            "merged-id",
            false,
        )
        .unwrap();
        let ids: Vec<&str> = m.results.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["c", "a", "b"]);
        assert_eq!(m.run_id, "merged-id");
        assert_eq!(m.shard, None);
        let merged = m.merged.as_ref().unwrap();
        assert_eq!(merged.shards.len(), 2);
        assert_eq!(merged.shards[0].ids, ["c", "b"]);
        assert_eq!(m.host_of("a").name.as_deref(), Some("host2"));
        assert_eq!(m.host_of("b").name.as_deref(), Some("host1"));
        // Round trip through JSON: the new fields read back.
        let back: RunRecord = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back, m);
    }

    #[test]
    fn an_unfinished_shard_is_refused_unless_asked_and_then_said() {
        let sel = ["a", "b", "c"];
        let mut killed = shard(2, 2, &["b", "c"], &sel);
        killed.settings.instruments = vec!["icount".into()];
        killed.finished_at = None;
        killed.results[1].icount = None;
        let mut whole = shard(1, 2, &["a"], &sel);
        whole.settings.instruments = vec!["icount".into()];
        let both = parts(vec![whole, killed]);
        let e = merge(&both, "m", false).unwrap_err();
        assert!(e.is::<Unfinished>(), "{e:#}");
        let e = format!("{e:#}");
        assert!(
            e.contains("shard 2/2 (out/shard2) did not finish (killed")
                && e.contains("1 of its 2 rows have no figure")
                && e.contains("same --shard 2/2"),
            "{e}"
        );
        let m = merge(&both, "m", true).unwrap();
        let c = m.completion();
        assert_eq!(c.why, Some(StopReason::UnfinishedShards), "{c:?}");
        assert_eq!(m.not_reached(), ["c"]);
    }

    #[test]
    fn mismatched_missing_and_duplicated_shards_are_refused() {
        let sel = ["a", "b", "c"];
        let err = |rs: Vec<RunRecord>| format!("{:#}", merge(&parts(rs), "m", false).unwrap_err());
        let mut other_commit = shard(2, 2, &["b"], &sel);
        other_commit.environment.git.as_mut().unwrap().commit = "feedface".into();
        let e = err(vec![shard(1, 2, &["a", "c"], &sel), other_commit]);
        assert!(
            e.contains("differ in git commit")
                && e.contains("out/shard1")
                && e.contains("out/shard2"),
            "{e}"
        );
        let mut other_tool = shard(2, 2, &["b"], &sel);
        other_tool.environment.rustc = Some("rustc 1.0.0".into());
        assert!(err(vec![shard(1, 2, &["a"], &sel), other_tool]).contains("toolchain (rustc)"));
        let mut other_inst = shard(2, 2, &["b"], &sel);
        other_inst.settings.instruments = vec!["icount".into()];
        assert!(err(vec![shard(1, 2, &["a"], &sel), other_inst]).contains("differ in instruments"));
        // Built with other cargo flags: other code, whatever the commit.
        let mut other_features = shard(2, 2, &["b"], &sel);
        other_features.settings.features = vec!["extra".into()];
        let e = err(vec![shard(1, 2, &["a"], &sel), other_features]);
        assert!(e.contains("differ in cargo features"), "{e}");
        let mut other_profile = shard(2, 2, &["b"], &sel);
        other_profile.settings.profile = Some("release".into());
        let e = err(vec![shard(1, 2, &["a"], &sel), other_profile]);
        assert!(e.contains("differ in cargo profile"), "{e}");
        let mut other_suite = shard(2, 2, &["b"], &sel);
        other_suite.suite.bench = "other".into();
        assert!(err(vec![shard(1, 2, &["a"], &sel), other_suite]).contains("differ in suite"));
        let e = err(vec![shard(1, 2, &["a"], &sel), shard(2, 3, &["b"], &sel)]);
        assert!(e.contains("differ in shard count"), "{e}");
        let mut other_partition = shard(2, 2, &["b"], &sel);
        other_partition.shard.as_mut().unwrap().assignment = "by cost; partition 0002".into();
        let e = err(vec![shard(1, 2, &["a"], &sel), other_partition]);
        assert!(e.contains("did not agree on the partition"), "{e}");
        let e = err(vec![shard(1, 3, &["a"], &sel), shard(3, 3, &["c"], &sel)]);
        assert!(
            e.contains("shard 2/3 missing") && e.contains("1/3 in out/shard1"),
            "{e}"
        );
        let e = err(vec![shard(1, 2, &["a"], &sel), shard(1, 2, &["b"], &sel)]);
        assert!(e.contains("shard 1/2 is given twice"), "{e}");
        let e = err(vec![
            shard(1, 2, &["a", "b"], &sel),
            shard(2, 2, &["b"], &sel),
        ]);
        assert!(
            e.contains("scenario b is in shard 1/2 (out/shard1) and shard 2/2 (out/shard2)"),
            "{e}"
        );
        let mut plain = shard(1, 1, &["a"], &sel);
        plain.shard = None;
        assert!(err(vec![plain]).contains("is not a shard"));
        let mut merged = shard(1, 1, &["a"], &sel);
        merged.merged = Some(Merged { shards: vec![] });
        assert!(err(vec![merged]).contains("already a merged run"));
        assert!(format!("{:#}", merge(&[], "m", false).unwrap_err()).contains("needs the output"));
    }

    #[test]
    fn directories_merge_with_their_files() {
        let tmp = tempfile::tempdir().unwrap();
        let sel = ["a", "b"];
        let mut dirs = Vec::new();
        for (k, ids) in [(1, vec!["a"]), (2, vec!["b"])] {
            let d = tmp.path().join(format!("s{k}"));
            let out = OutputDir::prepare(&d).unwrap();
            let mut r = shard(k, 2, &ids, &sel);
            for res in &mut r.results {
                let (path, rel) = out.callgrind_paths(&res.id);
                std::fs::write(&path, format!("profile of {}", res.id)).unwrap();
                res.icount.as_mut().unwrap().callgrind_out = rel;
            }
            // Every shard measures the residual scenario: the same file name in both.
            std::fs::write(
                d.join("callgrind/costbench%3A%3Aresidual.out"),
                format!("{k}"),
            )
            .unwrap();
            out.write_all(&r).unwrap();
            dirs.push(d);
        }
        let out = tmp.path().join("merged");
        let m = merge_dirs(&dirs, &out, "m1", false, |_| {}).unwrap();
        assert_eq!(load_run(&out).unwrap(), m.settled());
        assert_eq!(
            std::fs::read_to_string(out.join("icounts.csv")).unwrap(),
            "a,100\nb,100\n"
        );
        for id in ["a", "b"] {
            let rel = &m
                .results
                .iter()
                .find(|r| r.id == id)
                .unwrap()
                .icount
                .as_ref()
                .unwrap()
                .callgrind_out;
            assert_eq!(
                std::fs::read_to_string(out.join(rel)).unwrap(),
                format!("profile of {id}")
            );
        }
        assert_eq!(
            std::fs::read_to_string(out.join("callgrind/costbench%3A%3Aresidual.out")).unwrap(),
            "1"
        );
        let e = format!(
            "{:#}",
            merge_dirs(&dirs, &dirs[0], "m2", false, |_| {}).unwrap_err()
        );
        assert!(e.contains("is one of the shards' directories"), "{e}");
    }
}
