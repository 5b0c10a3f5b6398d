//! Talking to cargo: find the bench target (`cargo metadata`), read the features it and its
//! dependencies offer, and build it (`cargo rustc --profile bench`, with a build variant's
//! settings), returning the executable's path.
//!
//! Builds go to their own target directory (`TARGET/costbench/build/VARIANT`) with debug line
//! tables forced on, so that costbench's profile settings never invalidate the user's own builds,
//! variants never rebuild each other, and callgrind can name source lines.
//!
//! The bench target itself is compiled with `-C save-temps --print link-args`: rustc keeps its
//! objects and prints the command it linked them with, which cargo passes through to stdout. The
//! command is kept beside the executable (`EXE.link-args`, see `run::layout`) so that interleaved
//! wall time can relink the same objects in other code layouts in a fraction of a second. Every
//! build uses this one invocation: the extra rustc arguments are part of cargo's fingerprint, so
//! two commands building into one directory with and without them would rebuild each other.

use crate::config::Config;
use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
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
    #[serde(default)]
    features: BTreeMap<String, Vec<String>>,
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
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    // A killed costbench takes its build with it (cargo then stops its rustc jobs itself only on
    // a catchable signal: rustc processes already running may finish their crate).
    crate::run::cancel::die_with_parent(&mut cmd);
    cmd
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

/// The cargo features of the bench target's package and of its dependencies.
#[derive(Debug, Clone, Default)]
pub struct Features {
    /// The package's own features (`default` included), with what each turns on.
    pub own: BTreeMap<String, Vec<String>>,
    /// Names of the package's dependencies (any kind).
    pub dependencies: Vec<String>,
}

/// The features of `target`'s package (`cargo metadata --no-deps`).
pub fn features(target: &BenchTarget) -> Result<Features> {
    let (_, meta) = metadata(Some(&target.manifest_path))?;
    let p = meta
        .packages
        .iter()
        .find(|p| p.name == target.package)
        .ok_or_else(|| anyhow!("cargo metadata does not list package {}", target.package))?;
    Ok(Features {
        own: p.features.clone(),
        dependencies: p.dependencies.iter().map(|d| d.name.clone()).collect(),
    })
}

/// The features of dependency `dep` as resolved for `target`'s workspace (`cargo metadata`
/// without `--no-deps`, so it resolves the whole graph), or `None` when no package of that name
/// is in the graph.
pub fn dependency_features(
    target: &BenchTarget,
    dep: &str,
) -> Result<Option<BTreeMap<String, Vec<String>>>> {
    let out = cargo()
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(&target.manifest_path)
        .stderr(Stdio::piped())
        .output()
        .context("cannot run `cargo metadata`: is cargo installed and on PATH?")?;
    if !out.status.success() {
        bail!(
            "`cargo metadata` failed for {}:\n{}",
            target.manifest_path.display(),
            String::from_utf8_lossy(&out.stderr).trim_end()
        );
    }
    let meta: Metadata =
        serde_json::from_slice(&out.stdout).context("cannot parse `cargo metadata` output")?;
    Ok(meta
        .packages
        .into_iter()
        .find(|p| p.name == dep)
        .map(|p| p.features))
}

/// The nearest `Cargo.toml` at or above `dir`, as cargo finds it: run from `src/` of a package,
/// that package's manifest (the workspace's comes from `cargo metadata`).
fn find_manifest(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .map(|d| d.join("Cargo.toml"))
        .find(|p| p.is_file())
}

fn metadata(manifest_path: Option<&Path>) -> Result<(PathBuf, Metadata)> {
    let manifest = match manifest_path {
        Some(p) => p.to_path_buf(),
        None => {
            let cwd = std::env::current_dir().context("cannot read the current directory")?;
            match find_manifest(&cwd) {
                Some(p) => p,
                None => bail!(
                    "no Cargo.toml in {} or any directory above it: run costbench inside a crate \
                     that has a costbench bench target, or pass --manifest-path PATH",
                    cwd.display()
                ),
            }
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
    fresh: Option<bool>,
    target: Option<Target>,
    executable: Option<PathBuf>,
}

/// Where the compiler starts functions and the blocks that nothing falls into (`--code-align`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CodeAlign {
    /// On 64-byte (cache-line) boundaries: a function that did not change then sits the same
    /// way in every cache line and fetch block, however much code before it moved. The padding
    /// is never executed, so instruction counts are those of a plain build.
    #[default]
    CacheLine,
    /// As rustc and LLVM place them (functions on 16 bytes).
    Off,
}

impl CodeAlign {
    /// The rustc flags that apply it, unless the user's own flags already set either option
    /// (LLVM refuses an option given twice).
    fn flags(self, user: &[String]) -> Vec<String> {
        const OPTIONS: [&str; 2] = ["align-all-functions", "align-all-nofallthru-blocks"];
        if self == CodeAlign::Off || user.iter().any(|f| OPTIONS.iter().any(|o| f.contains(o))) {
            return Vec::new();
        }
        OPTIONS
            .iter()
            .flat_map(|o| ["-C".to_string(), format!("llvm-args=-{o}=6")])
            .collect()
    }

    /// How run.json names it.
    pub fn name(self) -> &'static str {
        match self {
            CodeAlign::CacheLine => "64",
            CodeAlign::Off => "off",
        }
    }
}

/// How to build one variant of the bench target. The default is the plain bench profile.
#[derive(Debug, Clone, Default)]
pub struct BuildSettings {
    /// Names the target directory `TARGET/costbench/build/VARIANT`.
    pub variant: String,
    /// Run `rustup run TOOLCHAIN cargo` instead of cargo.
    pub toolchain: Option<String>,
    /// `--config` values (`profile.bench.lto="fat"`).
    pub config: Vec<String>,
    pub features: Vec<String>,
    pub no_default_features: bool,
    /// Extra flags for rustc, appended to any `RUSTFLAGS` already set.
    pub rustflags: Vec<String>,
    /// `--target TRIPLE`: with it, rustflags reach only the target's code, not build scripts and
    /// proc macros (which `-C panic=abort` or `-C target-cpu=native` must not touch).
    pub target_triple: Option<String>,
    /// Capture cargo's stderr (returned in the error on failure) instead of showing it live.
    pub capture_stderr: bool,
    /// Function and block alignment.
    pub code_align: CodeAlign,
}

/// A built bench executable.
#[derive(Debug, Clone)]
pub struct Built {
    pub exe: PathBuf,
    /// Units cargo compiled for this build; 0 when everything was fresh.
    pub compiled: usize,
    /// Units cargo found up to date.
    pub fresh: usize,
}

/// A build that failed: cargo's status and stderr (the compiler's errors).
#[derive(Debug, Clone)]
pub struct BuildError {
    pub status: String,
    pub stderr: String,
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cargo failed ({})", self.status)?;
        if !self.stderr.trim().is_empty() {
            write!(f, ":\n{}", self.stderr.trim_end())?;
        }
        Ok(())
    }
}

impl std::error::Error for BuildError {}

/// Builds the bench target with the bench profile (optimised, line tables on) into
/// `TARGET/costbench/build/VARIANT` and returns the executable.
pub fn build(
    target: &BenchTarget,
    variant: &str,
    quiet: bool,
    code_align: CodeAlign,
) -> Result<PathBuf> {
    let settings = BuildSettings {
        variant: variant.to_string(),
        capture_stderr: quiet,
        code_align,
        ..BuildSettings::default()
    };
    match build_with(target, &settings) {
        Ok(b) => Ok(b.exe),
        Err(e) => match e.downcast::<BuildError>() {
            Ok(be) => Err(anyhow!(
                "building bench target {} of package {} failed ({}){}{}",
                target.bench,
                target.package,
                be.status,
                if be.stderr.is_empty() { "" } else { ":\n" },
                be.stderr.trim_end()
            )),
            Err(e) => Err(e),
        },
    }
}

/// The cargo command for `toolchain`: through rustup when one is named (a `+TOOLCHAIN`
/// argument only works with rustup's proxy, and `$CARGO` may be a toolchain's own cargo).
pub fn cargo_for(toolchain: Option<&str>) -> Command {
    match toolchain {
        None => cargo(),
        Some(t) => {
            let mut c = Command::new("rustup");
            c.args(["run", t, "cargo"]);
            // Set by an outer cargo or rustup; they would pin the other toolchain's rustc.
            for var in ["RUSTC", "RUSTDOC", "RUSTUP_TOOLCHAIN", "CARGO"] {
                c.env_remove(var);
            }
            c
        }
    }
}

/// Builds the bench target as `settings` say. A compile failure is a [`BuildError`] (downcast
/// the error to get the compiler's output).
pub fn build_with(target: &BenchTarget, settings: &BuildSettings) -> Result<Built> {
    let target_dir = target
        .target_directory
        .join("costbench")
        .join("build")
        .join(&settings.variant);
    let mut cmd = cargo_for(settings.toolchain.as_deref());
    cmd.args([
        "rustc",
        "--profile",
        "bench",
        "--message-format=json-render-diagnostics",
    ])
    .arg("--manifest-path")
    .arg(&target.manifest_path)
    .args(["--package", &target.package, "--bench", &target.bench]);
    for c in &settings.config {
        cmd.arg("--config").arg(c);
    }
    if settings.no_default_features {
        cmd.arg("--no-default-features");
    }
    if !settings.features.is_empty() {
        cmd.arg("--features").arg(settings.features.join(","));
    }
    if let Some(t) = &settings.target_triple {
        cmd.args(["--target", t]);
    }
    // CARGO_ENCODED_RUSTFLAGS takes precedence over RUSTFLAGS and build.rustflags and keeps
    // flags with spaces whole; the user's own flags are kept in front of ours.
    let mut flags: Vec<String> = match std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        Ok(s) if !s.is_empty() => s.split('\x1f').map(str::to_string).collect(),
        _ => std::env::var("RUSTFLAGS")
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_string)
            .collect(),
    };
    let users = flags.len();
    flags.extend(settings.rustflags.iter().cloned());
    let align = settings.code_align.flags(&flags);
    flags.extend(align);
    if flags.len() > users {
        cmd.env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"));
    }
    // After `--`: for the bench target only (its dependencies' objects are already in their
    // rlibs, which the link command names).
    cmd.args(["--", "-C", "save-temps", "--print", "link-args"]);
    cmd.env("CARGO_TARGET_DIR", &target_dir)
        .env("CARGO_PROFILE_BENCH_DEBUG", "line-tables-only")
        .env("CARGO_PROFILE_BENCH_STRIP", "none")
        .stdout(Stdio::piped())
        .stderr(if settings.capture_stderr {
            Stdio::piped()
        } else {
            Stdio::inherit()
        });
    let out = cmd
        .output()
        .context("cannot run `cargo rustc`: is cargo installed and on PATH?")?;
    if !out.status.success() {
        return Err(BuildError {
            status: out.status.to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
        .into());
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let (mut compiled, mut fresh, mut exe, mut bench_fresh) = (0, 0, None, true);
    // rustc's printed link command: the one line of stdout that is not a JSON message.
    let mut link = None;
    for line in stdout.lines() {
        let Ok(msg) = serde_json::from_str::<ArtifactMessage>(line) else {
            if !line.starts_with('{') && line.contains("\"-o\"") {
                link = Some(line);
            }
            continue;
        };
        if msg.reason != "compiler-artifact" {
            continue;
        }
        if msg.fresh == Some(true) {
            fresh += 1;
        } else {
            compiled += 1;
        }
        if let (Some(t), Some(e)) = (msg.target, msg.executable) {
            if t.name == target.bench && t.kind.iter().any(|k| k == "bench") {
                exe = Some(e);
                bench_fresh = msg.fresh == Some(true);
            }
        }
    }
    if let (Some(exe), false) = (&exe, bench_fresh) {
        keep_link_command(exe, link);
    }
    match exe {
        Some(exe) => Ok(Built {
            exe,
            compiled,
            fresh,
        }),
        None => bail!(
            "cargo built bench target {} but reported no executable for it",
            target.bench
        ),
    }
}

/// After the bench target was compiled: stores its link command beside `exe` (or removes a stale
/// one when rustc printed none), and deletes what `-C save-temps` keeps that no relink needs: the
/// LLVM bitcode (tens of megabytes) and the temporary directories of earlier compilations.
fn keep_link_command(exe: &Path, link: Option<&str>) {
    let file = crate::run::layout::link_args_path(exe);
    // Best effort: without the file, layouts are off with a note saying why.
    let _ = match link {
        Some(l) => std::fs::write(&file, format!("{l}\n")),
        None => std::fs::remove_file(&file),
    };
    let (Some(dir), Some(name)) = (exe.parent(), exe.file_name().and_then(|n| n.to_str())) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let Some(n) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if n.starts_with(&format!("{name}.")) && n.ends_with(".bc") {
            let _ = std::fs::remove_file(&path);
        } else if n.starts_with("rustc")
            && e.file_type().is_ok_and(|t| t.is_dir())
            && link.is_some_and(|l| !l.contains(&*path.to_string_lossy()))
        {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_is_found_upward_from_a_subdirectory_as_cargo_finds_it() {
        let root = tempfile::tempdir().unwrap();
        let member = root.path().join("member");
        std::fs::create_dir_all(member.join("src/deep")).unwrap();
        std::fs::write(root.path().join("Cargo.toml"), "[workspace]\n").unwrap();
        std::fs::write(member.join("Cargo.toml"), "[package]\n").unwrap();
        assert_eq!(
            find_manifest(&member.join("src/deep")),
            Some(member.join("Cargo.toml"))
        );
        assert_eq!(
            find_manifest(root.path()),
            Some(root.path().join("Cargo.toml"))
        );
        let outside = tempfile::tempdir().unwrap();
        assert!(find_manifest(outside.path()).is_none_or(|p| !p.starts_with(outside.path())));
    }

    #[test]
    fn code_alignment_asks_llvm_for_cache_lines_unless_the_user_already_chose() {
        let flags = CodeAlign::CacheLine.flags(&[]);
        assert_eq!(
            flags,
            [
                "-C",
                "llvm-args=-align-all-functions=6",
                "-C",
                "llvm-args=-align-all-nofallthru-blocks=6"
            ]
        );
        assert!(CodeAlign::Off.flags(&[]).is_empty());
        let user = [
            "-C".to_string(),
            "llvm-args=-align-all-functions=5".to_string(),
        ];
        assert!(CodeAlign::CacheLine.flags(&user).is_empty());
    }

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
