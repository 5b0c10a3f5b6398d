//! Talking to cargo: find the bench target (`cargo metadata`) and build it (`cargo bench
//! --no-run`), returning the executable's path.
//!
//! Builds go to their own target directory (`TARGET/costbench/build/VARIANT`) with debug line
//! tables forced on, so that costbench's profile settings never invalidate the user's own builds
//! and callgrind can name source lines.

use crate::config::Config;
use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(Debug, Deserialize)]
struct Metadata {
    packages: Vec<Package>,
    target_directory: PathBuf,
    workspace_root: PathBuf,
}

#[derive(Debug, Deserialize)]
struct Package {
    name: String,
    manifest_path: PathBuf,
    dependencies: Vec<Dependency>,
    targets: Vec<Target>,
}

#[derive(Debug, Deserialize)]
struct Dependency {
    name: String,
}

#[derive(Debug, Deserialize)]
struct Target {
    name: String,
    kind: Vec<String>,
}

/// The bench target chosen for a run.
#[derive(Debug, Clone)]
pub struct BenchTarget {
    pub package: String,
    pub bench: String,
    /// Directory of the package's Cargo.toml: scenarios run with it as working directory, as
    /// under `cargo bench`.
    pub package_dir: PathBuf,
    pub manifest_path: PathBuf,
    pub workspace_root: PathBuf,
    pub target_directory: PathBuf,
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// The target directory of the crate at `manifest_path` (default `./Cargo.toml`).
pub fn target_directory(manifest_path: Option<&Path>) -> Result<PathBuf> {
    Ok(metadata(manifest_path)?.1.target_directory)
}

/// Resolves which bench target to run from the command line, `costbench.toml` and the crate.
pub fn resolve(
    manifest_path: Option<&Path>,
    package: Option<&str>,
    bench: Option<&str>,
) -> Result<BenchTarget> {
    let (manifest, meta) = metadata(manifest_path)?;
    let config = Config::load(&meta.workspace_root)?;
    // costbench.toml speaks for the workspace: pointing at another member package's manifest
    // means that package, whatever the file prefers.
    let own = meta.packages.iter().find(|p| p.manifest_path == manifest);
    let config_applies =
        own.is_none_or(|o| config.run.package.as_ref().is_none_or(|p| *p == o.name));
    let (package, bench) = if config_applies {
        (
            package.or(config.run.package.as_deref()),
            bench.or(config.run.bench.as_deref()),
        )
    } else {
        (package, bench)
    };
    choose(&meta, &manifest, package, bench)
}

fn metadata(manifest_path: Option<&Path>) -> Result<(PathBuf, Metadata)> {
    let manifest = match manifest_path {
        Some(p) => p.to_path_buf(),
        None => {
            let p = PathBuf::from("Cargo.toml");
            if !p.exists() {
                bail!(
                    "no Cargo.toml in the current directory: run costbench in a crate that has a \
                     costbench bench target, or pass --manifest-path PATH"
                );
            }
            p
        }
    };
    let manifest = manifest
        .canonicalize()
        .with_context(|| format!("cannot find manifest {}", manifest.display()))?;
    let out = cargo()
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--manifest-path",
        ])
        .arg(&manifest)
        .stderr(Stdio::piped())
        .output()
        .context("cannot run `cargo metadata`: is cargo installed and on PATH?")?;
    if !out.status.success() {
        bail!(
            "`cargo metadata` failed for {}:\n{}",
            manifest.display(),
            String::from_utf8_lossy(&out.stderr).trim_end()
        );
    }
    let meta: Metadata =
        serde_json::from_slice(&out.stdout).context("cannot parse `cargo metadata` output")?;
    Ok((manifest, meta))
}

fn choose(
    meta: &Metadata,
    manifest: &Path,
    package: Option<&str>,
    bench: Option<&str>,
) -> Result<BenchTarget> {
    // A package manifest (not the workspace root) restricts the choice to that package.
    let own = meta.packages.iter().find(|p| p.manifest_path == manifest);
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
            bail!(
                "no package named {pkg:?} here; packages: {}",
                names.join(", ")
            );
        }
    }
    if let Some(b) = bench {
        let all: Vec<String> = candidates.iter().map(|(_, t)| t.name.clone()).collect();
        candidates.retain(|(_, t)| t.name == b);
        if candidates.is_empty() {
            bail!(
                "no bench target named {b:?}; bench targets here: {}",
                if all.is_empty() {
                    "none".to_string()
                } else {
                    all.join(", ")
                }
            );
        }
    } else {
        candidates.retain(|(p, _)| p.dependencies.iter().any(|d| d.name == "costbench"));
    }
    let (p, t) = match candidates.as_slice() {
        [one] => *one,
        [] => bail!(
            "no bench target that depends on costbench here: add one (harness = false, main calls \
             costbench::Suite::main) or pass --bench NAME"
        ),
        many => {
            let names: Vec<String> = many
                .iter()
                .map(|(p, t)| format!("{} (package {})", t.name, p.name))
                .collect();
            bail!(
                "several bench targets could be run: {}; choose one with --bench NAME (and -p PACKAGE), \
                 or set run.bench in costbench.toml",
                names.join(", ")
            )
        }
    };
    Ok(BenchTarget {
        package: p.name.clone(),
        bench: t.name.clone(),
        package_dir: p
            .manifest_path
            .parent()
            .ok_or_else(|| anyhow!("manifest path has no parent"))?
            .to_path_buf(),
        manifest_path: p.manifest_path.clone(),
        workspace_root: meta.workspace_root.clone(),
        target_directory: meta.target_directory.clone(),
    })
}

#[derive(Debug, Deserialize)]
struct ArtifactMessage {
    reason: String,
    target: Option<Target>,
    executable: Option<PathBuf>,
}

/// Builds the bench target with the bench profile (optimised, line tables on) into
/// `TARGET/costbench/build/VARIANT` and returns the executable.
pub fn build(target: &BenchTarget, variant: &str, quiet: bool) -> Result<PathBuf> {
    let target_dir = target
        .target_directory
        .join("costbench")
        .join("build")
        .join(variant);
    let mut cmd = cargo();
    cmd.args([
        "bench",
        "--no-run",
        "--message-format=json-render-diagnostics",
    ])
    .arg("--manifest-path")
    .arg(&target.manifest_path)
    .args(["--package", &target.package, "--bench", &target.bench])
    .env("CARGO_TARGET_DIR", &target_dir)
    .env("CARGO_PROFILE_BENCH_DEBUG", "line-tables-only")
    .env("CARGO_PROFILE_BENCH_STRIP", "none")
    .stdout(Stdio::piped())
    .stderr(if quiet {
        Stdio::piped()
    } else {
        Stdio::inherit()
    });
    let out = cmd
        .output()
        .context("cannot run `cargo bench --no-run`: is cargo installed and on PATH?")?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        bail!(
            "building bench target {} of package {} failed ({}){}{}",
            target.bench,
            target.package,
            out.status,
            if stderr.is_empty() { "" } else { ":\n" },
            stderr.trim_end()
        );
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    for line in stdout.lines() {
        let Ok(msg) = serde_json::from_str::<ArtifactMessage>(line) else {
            continue;
        };
        if msg.reason != "compiler-artifact" {
            continue;
        }
        if let (Some(t), Some(exe)) = (msg.target, msg.executable) {
            if t.name == target.bench && t.kind.iter().any(|k| k == "bench") {
                return Ok(exe);
            }
        }
    }
    bail!(
        "cargo built bench target {} but reported no executable for it",
        target.bench
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> Metadata {
        let pkg = |name: &str, benches: &[&str], uses: bool| Package {
            name: name.into(),
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
                    name: (*b).into(),
                    kind: vec!["bench".into()],
                })
                .collect(),
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
        assert_eq!(choose(&m, root, None, Some("slow")).unwrap().package, "b");
        let e = choose(&m, root, None, None).unwrap_err().to_string();
        assert!(e.contains("several bench targets"), "{e}");
        assert_eq!(choose(&m, root, Some("a"), None).unwrap().bench, "fast");
        assert_eq!(
            choose(&m, Path::new("/w/a/Cargo.toml"), None, None)
                .unwrap()
                .bench,
            "fast"
        );
        let e = choose(&m, root, None, Some("nope"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no bench target named \"nope\""), "{e}");
        let e = choose(&m, root, Some("zz"), None).unwrap_err().to_string();
        assert!(e.contains("no package named"), "{e}");
        assert!(choose(&m, Path::new("/w/c/Cargo.toml"), None, None).is_err());
    }
}
