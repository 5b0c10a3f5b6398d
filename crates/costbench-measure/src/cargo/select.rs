//! Which bench targets a run takes, from what `cargo metadata` says (`metadata` reads it):
//! those named with `--bench` (or `run.bench`), else every bench target of the selected
//! packages that depends on costbench, directly or through a compatible crate under any name,
//! as `cargo bench` runs them all (issue 41); and, where none qualifies, what was found and
//! the one line that switches a criterion or divan bench. It asks cargo nothing.

use super::metadata::{metadata, BenchTarget, LeftOut, Metadata, Package, Target};
use crate::config::Config;
use anyhow::{anyhow, Result};
use std::path::{Path, PathBuf};

/// The packages a bench target measured by costbench depends on: the library, or a compatible
/// crate under any name (`criterion = { package = "costbench-criterion", ... }`).
const COSTBENCH_PACKAGES: [&str; 3] = ["costbench", "costbench-criterion", "costbench-divan"];

/// The crates whose benches the compatible crates take over, with the one line that switches
/// each in `[dev-dependencies]`.
const SWITCHABLE: [(&str, &str); 2] = [
    (
        "criterion",
        r#"criterion = { package = "costbench-criterion", version = "0.1" }"#,
    ),
    (
        "divan",
        r#"divan = { package = "costbench-divan", version = "0.1" }"#,
    ),
];

fn uses_costbench(p: &Package) -> bool {
    p.dependencies
        .iter()
        .any(|d| COSTBENCH_PACKAGES.contains(&d.name.as_str()))
}

/// Why no bench target of `found` can be measured, each named with what it is and, for a
/// criterion or divan bench, the one line that switches it to costbench's compatible crate.
fn none_qualifies(found: &[(&Package, &Target)]) -> String {
    if found.is_empty() {
        return "no bench target here: add one that depends on costbench (harness = false, main \
                calls costbench::Suite::main), or pass --manifest-path to a crate that has one"
            .into();
    }
    let mut lines = Vec::new();
    for (p, t) in found {
        let uses = SWITCHABLE
            .iter()
            .find(|(name, _)| p.dependencies.iter().any(|d| d.name == *name));
        lines.push(match uses {
            Some((name, line)) => format!(
                "{} (package {}) uses {name}: switch it to costbench's compatible crate with one line in [dev-dependencies]: {line}",
                t.name, p.name
            ),
            None if t.harness_false => format!(
                "{} (package {}) runs its own main but does not depend on costbench",
                t.name, p.name
            ),
            None => format!(
                "{} (package {}) uses libtest's harness (#[bench]) and does not depend on costbench",
                t.name, p.name
            ),
        });
    }
    format!(
        "no bench target that depends on costbench here; found:\n  {}\n(or add a target with harness = false whose main calls costbench::Suite::main, or pass --bench NAME)",
        lines.join("\n  ")
    )
}

pub(super) fn choose(
    meta: &Metadata,
    manifest: &Path,
    package: Option<&str>,
    benches: &[String],
) -> Result<BenchTarget> {
    // A package manifest (not the workspace root) restricts the choice to that package.
    let own = meta.packages.iter().find(|p| p.manifest_path == manifest);
    let mut passed_over = Vec::new();
    let mut candidates: Vec<(&Package, &Target)> = meta
        .packages
        .iter()
        .filter(|p| package.is_none_or(|name| p.name == name))
        .filter(|p| package.is_some() || own.is_none_or(|o| o.name == p.name))
        .flat_map(|p| {
            p.targets
                .iter()
                .filter(|t| t.kind.iter().any(|k| k == "bench"))
                .map(move |t| (p, t))
        })
        .collect();
    if let Some(pkg) = package {
        if !meta.packages.iter().any(|p| p.name == pkg) {
            let names: Vec<_> = meta.packages.iter().map(|p| p.name.as_str()).collect();
            costbench_record::bad_input!(
                "no package named {pkg:?} here; packages: {}",
                names.join(", ")
            );
        }
    }
    if !benches.is_empty() {
        let all: Vec<String> = candidates.iter().map(|(_, t)| t.name.clone()).collect();
        if let Some(b) = benches.iter().find(|b| !all.contains(b)) {
            costbench_record::bad_input!(
                "no bench target named {b:?}; bench targets here: {}",
                if all.is_empty() {
                    "none".to_string()
                } else {
                    all.join(", ")
                }
            );
        }
        // In the order given, each once.
        let chosen: Vec<(&Package, &Target)> = benches
            .iter()
            .enumerate()
            .filter(|(i, b)| !benches[..*i].contains(b))
            .flat_map(|(_, b)| {
                candidates
                    .iter()
                    .copied()
                    .filter(move |(_, t)| t.name == *b)
            })
            .collect();
        candidates = chosen;
    } else {
        let found = candidates.clone();
        candidates.retain(|(p, _)| uses_costbench(p));
        if candidates.is_empty() {
            costbench_record::bad_input!("{}", none_qualifies(&found));
        }
        // A costbench target runs its own main (`harness = false`); a stray `benches/x.rs`
        // that cargo found by itself runs libtest's. Prefer the former, and say so.
        let own: Vec<(&Package, &Target)> = candidates
            .iter()
            .copied()
            .filter(|(_, t)| t.harness_false)
            .collect();
        if !own.is_empty() && own.len() < candidates.len() {
            passed_over = candidates
                .iter()
                .filter(|(_, t)| !t.harness_false)
                .map(|(_, t)| t.name.clone())
                .collect();
            candidates = own;
        }
    }
    let workspace_crates = workspace_crates(meta);
    let mut targets = candidates
        .iter()
        .map(|(p, t)| {
            Ok(BenchTarget {
                package: p.name.clone(),
                package_spec: format!("{}@{}", p.name, p.version),
                bench: t.name.clone(),
                package_dir: p
                    .manifest_path
                    .parent()
                    .ok_or_else(|| anyhow!("manifest path has no parent"))?
                    .to_path_buf(),
                manifest_path: p.manifest_path.clone(),
                workspace_root: meta.workspace_root.clone(),
                target_directory: meta.target_directory.clone(),
                passed_over: Vec::new(),
                workspace_crates: workspace_crates.clone(),
                switched: Vec::new(),
                others: Vec::new(),
                required_features: t.required_features.clone(),
                package_features: p.features.clone(),
                implicit: benches.is_empty(),
            })
        })
        .collect::<Result<Vec<_>>>()?
        .into_iter();
    let mut first = targets
        .next()
        .expect("an empty choice was said above, or --bench found its targets");
    first.passed_over = passed_over;
    first.others = targets.collect();
    Ok(first)
}

/// The crates of the workspace's packages, each with where its source is (see
/// [`BenchTarget::workspace_crates`]).
fn workspace_crates(meta: &Metadata) -> Vec<(String, PathBuf)> {
    meta.packages
        .iter()
        .flat_map(|p| &p.targets)
        .map(|t| {
            // A library's modules lie under its root file's folder; another target (a bench,
            // a binary) is taken as its one file, since it often shares that folder.
            let lib = t
                .kind
                .iter()
                .any(|k| k.contains("lib") || k == "proc-macro");
            let path = match (lib, t.src_path.parent()) {
                (true, Some(dir)) => dir.to_path_buf(),
                _ => t.src_path.clone(),
            };
            (t.name.replace('-', "_"), path)
        })
        .collect()
}

/// Resolves which bench targets to run from the command line (`--bench`, repeatable),
/// `costbench.toml` and the crate: the first is the returned target, the rest its
/// [`BenchTarget::others`].
pub fn resolve(
    manifest_path: Option<&Path>,
    package: Option<&str>,
    benches: &[String],
) -> Result<BenchTarget> {
    let (manifest, meta) = metadata(manifest_path)?;
    let config = Config::load(&meta.workspace_root)?;
    // costbench.toml speaks for the workspace: pointing at another member package's manifest
    // means that package, whatever the file prefers.
    let own = meta.packages.iter().find(|p| p.manifest_path == manifest);
    let config_applies =
        own.is_none_or(|o| config.run.package.as_ref().is_none_or(|p| *p == o.name));
    let from_config = &config.run.bench;
    let (package, benches) = if config_applies {
        (
            package.or(config.run.package.as_deref()),
            if benches.is_empty() {
                &from_config[..]
            } else {
                benches
            },
        )
    } else {
        (package, benches)
    };
    choose(&meta, &manifest, package, benches)
}

/// [`resolve`], then [`BenchTarget::leave_out_unbuildable`] with the features of `flags`: the
/// targets a build with them can have, and those left out with the features each lacks.
pub fn resolve_buildable(
    manifest_path: Option<&Path>,
    package: Option<&str>,
    benches: &[String],
    flags: &super::CargoFlags,
) -> Result<(BenchTarget, Vec<LeftOut>)> {
    let mut target = resolve(manifest_path, package, benches)?;
    let left = target.leave_out_unbuildable(
        &flags.features,
        flags.all_features,
        flags.no_default_features,
    )?;
    Ok((target, left))
}

#[cfg(test)]
mod tests {
    use super::super::metadata::Dependency;
    use super::*;
    use std::collections::BTreeMap;

    fn b(name: &str) -> Vec<String> {
        vec![name.to_string()]
    }

    fn meta() -> Metadata {
        let pkg = |name: &str, benches: &[&str], uses: bool| Package {
            name: name.into(),
            version: "1.2.3".into(),
            manifest_path: PathBuf::from(format!("/w/{name}/Cargo.toml")),
            dependencies: if uses {
                vec![Dependency {
                    name: "costbench".into(),
                }]
            } else {
                vec![]
            },
            targets: benches
                .iter()
                .map(|b| Target {
                    name: b.trim_start_matches('+').into(),
                    kind: vec!["bench".into()],
                    harness_false: b.starts_with('+'),
                    src_path: PathBuf::new(),
                    required_features: Vec::new(),
                })
                .collect(),
            features: BTreeMap::new(),
        };
        Metadata {
            packages: vec![
                pkg("a", &["fast"], true),
                pkg("b", &["slow", "crit"], true),
                pkg("c", &["crit2"], false),
            ],
            target_directory: "/w/target".into(),
            workspace_root: "/w".into(),
        }
    }

    #[test]
    fn chooses_by_name_package_or_uniqueness() {
        let m = meta();
        let root = Path::new("/w/Cargo.toml");
        assert_eq!(choose(&m, root, None, &b("slow")).unwrap().package, "b");
        // Cargo's --package takes NAME@VERSION: the name alone is ambiguous when the graph holds
        // another version of the crate (issue 26: itoa's own benches, under serde_json's itoa).
        assert_eq!(
            choose(&m, root, None, &b("slow")).unwrap().package_spec,
            "b@1.2.3"
        );
        // Issue 41: without --bench, every qualifying target, as `cargo bench` runs them all
        // (package c does not depend on costbench); --bench, repeated, chooses in its order.
        let all = choose(&m, root, None, &[]).unwrap();
        assert_eq!(all.names(), "fast,slow,crit");
        assert_eq!(all.others[1].package, "b");
        assert!(all.others.iter().all(|o| o.others.is_empty()));
        let two = choose(
            &m,
            root,
            None,
            &["crit".into(), "fast".into(), "crit".into()],
        )
        .unwrap();
        assert_eq!(two.names(), "crit,fast");
        let e = two.single("miri").unwrap_err();
        assert!(costbench_record::error::is_bad_input(&e), "{e:#}");
        assert!(
            e.to_string()
                .contains("2 qualify here: crit (package b), fast (package a)"),
            "{e}"
        );
        assert!(all.others[0].single("miri").is_ok());
        assert_eq!(choose(&m, root, Some("a"), &[]).unwrap().bench, "fast");
        assert_eq!(
            choose(&m, Path::new("/w/a/Cargo.toml"), None, &[])
                .unwrap()
                .bench,
            "fast"
        );
        let e = choose(&m, root, None, &b("nope")).unwrap_err().to_string();
        assert!(e.contains("no bench target named \"nope\""), "{e}");
        // A name that does not exist is a wrong command line (issue 29).
        assert!(costbench_record::error::is_bad_input(
            &choose(&m, root, None, &b("nope")).unwrap_err()
        ));
        let e = choose(&m, root, Some("zz"), &[]).unwrap_err().to_string();
        assert!(e.contains("no package named"), "{e}");
        assert!(choose(&m, Path::new("/w/c/Cargo.toml"), None, &[]).is_err());
    }

    /// Issue 41: a bench target that depends on costbench through a compatible crate under
    /// another name qualifies; where none qualifies, the message says what was found and the
    /// one line that switches a criterion bench.
    #[test]
    fn a_compatible_crate_under_any_name_qualifies_and_none_says_why() {
        let mut m = meta();
        m.packages.truncate(1);
        m.packages[0].dependencies = vec![Dependency {
            name: "costbench-criterion".into(),
        }];
        let root = Path::new("/w/Cargo.toml");
        assert_eq!(choose(&m, root, None, &[]).unwrap().bench, "fast");
        m.packages[0].dependencies = vec![Dependency {
            name: "criterion".into(),
        }];
        m.packages[0].targets.push(Target {
            name: "own".into(),
            kind: vec!["bench".into()],
            harness_false: true,
            src_path: PathBuf::new(),
            required_features: Vec::new(),
        });
        let e = choose(&m, root, None, &[]).unwrap_err();
        assert!(costbench_record::error::is_bad_input(&e), "{e:#}");
        let e = e.to_string();
        assert!(
            e.contains(r#"fast (package a) uses criterion: switch it"#)
                && e.contains(
                    r#"criterion = { package = "costbench-criterion", version = "0.1" }"#
                ),
            "{e}"
        );
        m.packages[0].dependencies.clear();
        let e = choose(&m, root, None, &[]).unwrap_err().to_string();
        assert!(e.contains("fast (package a) uses libtest's harness"), "{e}");
        assert!(
            e.contains("own (package a) runs its own main but does not depend on costbench"),
            "{e}"
        );
    }

    /// Issue 29: a stray `benches/*.rs` (libtest's harness) beside the costbench target does not
    /// make costbench ask which to run; the choice is said.
    #[test]
    fn a_harness_false_target_is_preferred_over_a_stray_libtest_bench() {
        let mut m = meta();
        m.packages[0].targets = ["+costs", "stray"]
            .iter()
            .map(|b| Target {
                name: b.trim_start_matches('+').into(),
                kind: vec!["bench".into()],
                harness_false: b.starts_with('+'),
                src_path: PathBuf::new(),
                required_features: Vec::new(),
            })
            .collect();
        let t = choose(&m, Path::new("/w/a/Cargo.toml"), None, &[]).unwrap();
        assert_eq!(t.bench, "costs");
        assert_eq!(t.passed_over, ["stray"]);
        // Two costbench targets are both measured (issue 41).
        m.packages[0].targets[1].harness_false = true;
        let t = choose(&m, Path::new("/w/a/Cargo.toml"), None, &[]).unwrap();
        assert_eq!(t.names(), "costs,stray");
        assert!(t.passed_over.is_empty());
        // As `cargo bench`, a target whose required features are off is left out (issue 41),
        // unless named; when none is left, the command line is wrong.
        m.packages[0].targets[0].required_features = vec!["alloc".into()];
        m.packages[0].features = [("alloc".to_string(), Vec::new())].into();
        let mut t = choose(&m, Path::new("/w/a/Cargo.toml"), None, &[]).unwrap();
        let left = t.leave_out_unbuildable(&[], false, false).unwrap();
        assert_eq!(left, [("costs".to_string(), vec!["alloc".to_string()])]);
        assert_eq!(t.names(), "stray");
        let mut t = choose(&m, Path::new("/w/a/Cargo.toml"), None, &[]).unwrap();
        assert!(t
            .leave_out_unbuildable(&["alloc".into()], false, false)
            .unwrap()
            .is_empty());
        assert_eq!(t.names(), "costs,stray");
        let mut t = choose(&m, Path::new("/w/a/Cargo.toml"), None, &b("costs")).unwrap();
        assert!(t
            .leave_out_unbuildable(&[], false, false)
            .unwrap()
            .is_empty());
        m.packages[0].targets[1].required_features = vec!["alloc".into()];
        let mut t = choose(&m, Path::new("/w/a/Cargo.toml"), None, &[]).unwrap();
        let e = t.leave_out_unbuildable(&[], false, false).unwrap_err();
        assert!(costbench_record::error::is_bad_input(&e), "{e:#}");
        assert!(
            e.to_string()
                .contains("costs (needs alloc), stray (needs alloc)"),
            "{e}"
        );
    }
}
