//! Talking to cargo: find the bench target (`cargo metadata`), read the features it and its
//! dependencies offer, and build it (`cargo rustc --profile bench`, or the user's `--profile`,
//! with the user's feature and lock-file flags and a build variant's settings), returning the
//! executable's path.
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
use cargo_metadata::{Message, MetadataCommand, TargetKind};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What costbench reads of `cargo metadata` (parsed by the `cargo_metadata` crate): the
/// packages with their bench targets, the target directory and the workspace root.
#[derive(Debug)]
struct Metadata {
    packages: Vec<Package>,
    target_directory: PathBuf,
    workspace_root: PathBuf,
}

#[derive(Debug)]
struct Package {
    name: String,
    manifest_path: PathBuf,
    dependencies: Vec<Dependency>,
    targets: Vec<Target>,
    features: BTreeMap<String, Vec<String>>,
}

#[derive(Debug)]
struct Dependency {
    name: String,
}

#[derive(Debug)]
struct Target {
    name: String,
    kind: Vec<String>,
}

impl From<cargo_metadata::Metadata> for Metadata {
    fn from(m: cargo_metadata::Metadata) -> Self {
        Metadata {
            packages: m
                .packages
                .into_iter()
                .map(|p| Package {
                    name: p.name.to_string(),
                    manifest_path: p.manifest_path.into_std_path_buf(),
                    dependencies: p
                        .dependencies
                        .into_iter()
                        .map(|d| Dependency { name: d.name })
                        .collect(),
                    targets: p
                        .targets
                        .into_iter()
                        .map(|t| Target {
                            kind: t.kind.iter().map(ToString::to_string).collect(),
                            name: t.name,
                        })
                        .collect(),
                    features: p.features,
                })
                .collect(),
            target_directory: m.target_directory.into_std_path_buf(),
            workspace_root: m.workspace_root.into_std_path_buf(),
        }
    }
}

/// `cargo metadata` of `manifest` (`--no-deps` unless the dependency graph is wanted), with
/// cargo's own message when it fails.
fn cargo_metadata(
    manifest: &Path,
    no_deps: bool,
    lock: LockFlags,
) -> Result<cargo_metadata::Metadata> {
    let mut mc = MetadataCommand::new();
    mc.manifest_path(manifest).other_options(
        lock.args()
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>(),
    );
    if no_deps {
        mc.no_deps();
    }
    let out = mc
        .cargo_command()
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
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json = stdout
        .lines()
        .find(|l| l.starts_with('{'))
        .context("`cargo metadata` printed no JSON")?;
    MetadataCommand::parse(json).context("cannot parse `cargo metadata` output")
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
    lock: LockFlags,
) -> Result<Option<BTreeMap<String, Vec<String>>>> {
    let meta = cargo_metadata(&target.manifest_path, false, lock)?;
    Ok(meta
        .packages
        .into_iter()
        .find(|p| *p.name == dep)
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
    // `--no-deps` resolves nothing, so it needs neither the lock file nor the network.
    let meta = cargo_metadata(&manifest, true, LockFlags::default())?;
    Ok((manifest, meta.into()))
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

/// The cargo profile builds use unless `--profile` names another: optimised like release, and
/// cargo's own choice for benchmarks.
pub const DEFAULT_PROFILE: &str = "bench";

/// The user's cargo flags (`--features`, `--all-features`, `--no-default-features`,
/// `--profile`, `--locked`, `--offline`, `--frozen`), validated (`options`): what every cargo
/// command costbench runs for one command line gets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CargoFlags {
    /// Features to activate, one per item (the command line's lists split).
    pub features: Vec<String>,
    pub all_features: bool,
    pub no_default_features: bool,
    /// `None`: [`DEFAULT_PROFILE`].
    pub profile: Option<String>,
    pub lock: LockFlags,
}

impl CargoFlags {
    /// The profile to build with.
    pub fn profile(&self) -> &str {
        self.profile.as_deref().unwrap_or(DEFAULT_PROFILE)
    }

    /// The feature arguments for cargo, as the user gave them.
    pub fn feature_args(&self) -> Vec<String> {
        feature_args(&self.features, self.all_features, self.no_default_features)
    }
}

/// `--features`, `--all-features` and `--no-default-features` for cargo.
fn feature_args(features: &[String], all: bool, no_default: bool) -> Vec<String> {
    let mut args = Vec::new();
    if all {
        args.push("--all-features".to_string());
    }
    if no_default {
        args.push("--no-default-features".to_string());
    }
    if !features.is_empty() {
        args.push("--features".to_string());
        args.push(features.join(","));
    }
    args
}

/// `--locked`, `--offline`, `--frozen`: how cargo may touch `Cargo.lock` and the network. Given
/// to every cargo command that resolves or builds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LockFlags {
    pub locked: bool,
    pub offline: bool,
    pub frozen: bool,
}

impl LockFlags {
    /// The flags for cargo.
    pub fn args(self) -> Vec<&'static str> {
        [
            ("--locked", self.locked),
            ("--offline", self.offline),
            ("--frozen", self.frozen),
        ]
        .into_iter()
        .filter_map(|(a, on)| on.then_some(a))
        .collect()
    }
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
    /// Every feature to activate: the user's `--features` and a variant's own.
    pub features: Vec<String>,
    pub no_default_features: bool,
    pub all_features: bool,
    /// `--profile`; `None` is [`DEFAULT_PROFILE`].
    pub profile: Option<String>,
    pub lock: LockFlags,
    /// Extra flags for rustc, appended to any `RUSTFLAGS` already set.
    pub rustflags: Vec<String>,
    /// `--target TRIPLE`: with it, rustflags reach only the target's code, not build scripts and
    /// proc macros (which `-C panic=abort` or `-C target-cpu=native` must not touch).
    pub target_triple: Option<String>,
    /// Capture cargo's stderr (returned in the error on failure) instead of leaving it to cargo.
    pub capture_stderr: bool,
    /// With `capture_stderr`: also show cargo's lines on costbench's stderr as they come
    /// (cargo's status lines, `Compiling ...`, in the colours `--color` chose).
    pub echo_stderr: bool,
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

/// Builds the bench target as `flags` say (by default with the bench profile: optimised, line
/// tables on) into `TARGET/costbench/build/VARIANT` and returns the executable.
pub fn build(
    target: &BenchTarget,
    variant: &str,
    flags: &CargoFlags,
    quiet: bool,
    code_align: CodeAlign,
) -> Result<PathBuf> {
    if !quiet {
        let mut how = format!("profile {}", flags.profile());
        if flags.all_features {
            how.push_str(", all features");
        }
        if flags.no_default_features {
            how.push_str(", no default features");
        }
        if !flags.features.is_empty() {
            how.push_str(&format!(", features {}", flags.features.join(",")));
        }
        crate::terminal::status(
            "Building",
            format!(
                "bench target {} of package {} ({how})",
                target.bench, target.package
            ),
        );
    }
    let settings = BuildSettings {
        variant: variant.to_string(),
        features: flags.features.clone(),
        no_default_features: flags.no_default_features,
        all_features: flags.all_features,
        profile: flags.profile.clone(),
        lock: flags.lock,
        capture_stderr: quiet,
        code_align,
        ..BuildSettings::default()
    };
    match build_with(target, &settings) {
        Ok(b) => Ok(b.exe),
        Err(e) => match e.downcast::<BuildError>() {
            Ok(be) => Err(anyhow!(
                "building bench target {} of package {} failed ({}){}{}{}",
                target.bench,
                target.package,
                be.status,
                if be.stderr.is_empty() { "" } else { ":\n" },
                be.stderr.trim_end(),
                profile_hint(flags.profile(), &be.stderr)
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
            // rustup execs cargo: the signal carries over.
            crate::run::cancel::die_with_parent(&mut c);
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
    let profile = settings.profile.as_deref().unwrap_or(DEFAULT_PROFILE);
    let mut cmd = cargo_for(settings.toolchain.as_deref());
    cmd.args([
        "rustc",
        "--profile",
        profile,
        "--message-format=json-render-diagnostics",
    ])
    .arg("--manifest-path")
    .arg(&target.manifest_path)
    .args(["--package", &target.package, "--bench", &target.bench])
    .args(["--color", crate::terminal::cargo_color()])
    .args(settings.lock.args());
    for c in &settings.config {
        cmd.arg("--config").arg(c);
    }
    cmd.args(feature_args(
        &settings.features,
        settings.all_features,
        settings.no_default_features,
    ));
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
    if !sets_codegen_units(settings, &flags) {
        cmd.args(BENCH_CODEGEN_UNITS);
    }
    let env_profile = profile_env_name(profile);
    cmd.env("CARGO_TARGET_DIR", &target_dir)
        .env(
            format!("CARGO_PROFILE_{env_profile}_DEBUG"),
            "line-tables-only",
        )
        .env(format!("CARGO_PROFILE_{env_profile}_STRIP"), "none")
        .stdout(Stdio::piped())
        .stderr(if settings.capture_stderr {
            Stdio::piped()
        } else {
            Stdio::inherit()
        });
    let out = if settings.capture_stderr && settings.echo_stderr {
        crate::build_output::output_echoing_stderr(&mut cmd)
    } else {
        cmd.output()
    }
    .context("cannot run `cargo rustc`: is cargo installed and on PATH?")?;
    if !out.status.success() {
        // Kept without colour: it goes into error messages and the variant matrix's JSON.
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(BuildError {
            status: out.status.to_string(),
            stderr: anstream::adapter::strip_str(&stderr).to_string(),
        }
        .into());
    }
    let (mut compiled, mut fresh, mut exe, mut bench_fresh) = (0, 0, None, true);
    // rustc's printed link command: the one line of stdout that is not a JSON message.
    let mut link = None;
    for msg in Message::parse_stream(out.stdout.as_slice()) {
        let msg = msg.context("cannot read `cargo rustc`'s output")?;
        let artifact = match msg {
            Message::TextLine(line) => {
                if !line.starts_with('{') && line.contains("\"-o\"") {
                    link = Some(line);
                }
                continue;
            }
            Message::CompilerArtifact(a) => a,
            _ => continue,
        };
        if artifact.fresh {
            fresh += 1;
        } else {
            compiled += 1;
        }
        if let Some(e) = artifact.executable {
            let t = &artifact.target;
            if t.name == target.bench && t.is_kind(TargetKind::Bench) {
                exe = Some(e.into_std_path_buf());
                bench_fresh = artifact.fresh;
            }
        }
    }
    if let (Some(exe), false) = (&exe, bench_fresh) {
        keep_link_command(exe, link.as_deref());
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

/// The bench target alone (not its dependencies) is compiled as one codegen unit.
///
/// Why: with several units, rustc splits the bench crate's functions among them by a partitioning
/// that depends on every function in the crate, and LLVM inlines only within a unit. Generic code
/// of the user's library (an `impl Read`, an iterator adaptor) is instantiated in the bench crate,
/// so registering one more scenario moved `proto::recv_frame` out of its caller's unit and a
/// scenario's count by +9.7 % with its code unchanged (issue 32). With one unit the inliner sees
/// the same callers and callees whatever else the crate holds. The dependencies, the user's
/// library among them, keep their profile's units: their code is the code users ship.
const BENCH_CODEGEN_UNITS: [&str; 2] = ["-C", "codegen-units=1"];

/// Whether the build's own settings choose codegen units (a variant that prices them): then
/// they apply to the bench target too.
fn sets_codegen_units(settings: &BuildSettings, rustflags: &[String]) -> bool {
    settings
        .config
        .iter()
        .chain(rustflags)
        .any(|s| s.contains("codegen-units") || s.contains("codegen_units"))
}

/// Cargo's built-in profiles: every other must be defined with `inherits`.
const BUILT_IN_PROFILES: [&str; 4] = ["dev", "release", "test", "bench"];

/// For a failed build with a profile of the user's own: what cargo's complaint about a missing
/// `inherits` means here. costbench sets the profile's `debug` and `strip` (through
/// `CARGO_PROFILE_<NAME>_*`), which to cargo makes an undefined profile look defined but
/// incomplete.
fn profile_hint(profile: &str, stderr: &str) -> String {
    if BUILT_IN_PROFILES.contains(&profile) || !(stderr.is_empty() || stderr.contains("inherits")) {
        return String::new();
    }
    format!(
        "\nhint: --profile {profile} must be defined in the workspace's Cargo.toml (or a cargo \
         config) as [profile.{profile}] with `inherits = \"bench\"` (or another profile)"
    )
}

/// A profile's name as cargo's `CARGO_PROFILE_<name>_<KEY>` variables spell it: upper case,
/// `-` as `_`.
fn profile_env_name(profile: &str) -> String {
    profile.to_ascii_uppercase().replace('-', "_")
}

/// After the bench target was compiled: stores its link command beside `exe` (or removes a stale
/// one when rustc printed none), and deletes what `-C save-temps` keeps that no relink needs: the
/// LLVM bitcode (tens of megabytes) and the temporary directories of earlier compilations that
/// no kept link command (this executable's or another's in the same directory, built with other
/// features or another profile) links from.
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
    let entries: Vec<std::fs::DirEntry> = entries.flatten().collect();
    // Every kept link command in this directory, this build's and those of other builds of the
    // bench target (other features or profiles give other executables in the same `deps/`):
    // a temporary directory any of them links from must stay.
    let suffix = crate::run::layout::LINK_ARGS_SUFFIX;
    let mut commands: Vec<String> = link.iter().map(|l| l.to_string()).collect();
    for e in &entries {
        if e.file_name().to_string_lossy().ends_with(suffix) {
            commands.extend(std::fs::read_to_string(e.path()).ok());
        }
    }
    for e in entries {
        let path = e.path();
        let Some(n) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if n.starts_with(&format!("{name}.")) && n.ends_with(".bc") {
            let _ = std::fs::remove_file(&path);
        } else if n.starts_with("rustc")
            && e.file_type().is_ok_and(|t| t.is_dir())
            && link.is_some()
            && !commands
                .iter()
                .any(|l| l.contains(&*path.to_string_lossy()))
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

    #[test]
    fn the_users_cargo_flags_become_cargos_arguments() {
        let flags = CargoFlags {
            features: vec!["extra".into(), "costbench/mimalloc".into()],
            all_features: true,
            no_default_features: true,
            profile: Some("bench-lto".into()),
            lock: LockFlags {
                locked: true,
                offline: false,
                frozen: true,
            },
        };
        assert_eq!(
            flags.feature_args(),
            [
                "--all-features",
                "--no-default-features",
                "--features",
                "extra,costbench/mimalloc"
            ]
        );
        assert_eq!(flags.lock.args(), ["--locked", "--frozen"]);
        assert_eq!(flags.profile(), "bench-lto");
        assert_eq!(profile_env_name(flags.profile()), "BENCH_LTO");
        assert_eq!(CargoFlags::default().profile(), "bench");
        assert!(CargoFlags::default().feature_args().is_empty());
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
