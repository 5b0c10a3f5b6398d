//! Building the bench target: the user's cargo flags, the lock-file flags, code alignment and a
//! variant's settings turned into one `cargo rustc` invocation, its output read for the
//! executable and the link command kept beside it. It never chooses the target (that is
//! `metadata`'s).

use super::metadata::{cargo, BenchTarget, LockFlags};
use anyhow::{anyhow, bail, Context, Result};
use cargo_metadata::{Message, TargetKind};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The build folder (`TARGET/costbench/build/default`) of the bench target built with the
/// user's cargo flags and nothing else: `run`'s build, shared by every variant that changes
/// nothing.
pub const DEFAULT_BUILD: &str = "default";

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
    /// Activate every feature (`--all-features`).
    pub all_features: bool,
    /// Leave the default features off (`--no-default-features`).
    pub no_default_features: bool,
    /// `None`: [`DEFAULT_PROFILE`].
    pub profile: Option<String>,
    /// The lock-file flags passed on to cargo.
    pub lock: LockFlags,
    /// `-j N`: cargo's parallel build jobs; `None` is cargo's default.
    pub jobs: Option<i32>,
    /// Cap every lint at a warning (`--cap-lints=warn`): a past commit whose
    /// `#![deny(warnings)]` meets a lint of today's compiler still builds (`history
    /// backfill`). Lints change no code; the flag is a build input like any rustflag.
    pub cap_lints: bool,
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
    /// Leave the default features off (`--no-default-features`).
    pub no_default_features: bool,
    /// Activate every feature (`--all-features`).
    pub all_features: bool,
    /// `--profile`; `None` is [`DEFAULT_PROFILE`].
    pub profile: Option<String>,
    /// The lock-file flags passed on to cargo.
    pub lock: LockFlags,
    /// `-j N` for cargo; `None` is cargo's default.
    pub jobs: Option<i32>,
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
    /// Path of the built bench executable.
    pub exe: PathBuf,
    /// Units cargo compiled for this build; 0 when everything was fresh.
    pub compiled: usize,
    /// Units cargo found up to date.
    pub fresh: usize,
}

/// A build that failed: cargo's status and stderr (the compiler's errors).
#[derive(Debug, Clone)]
pub struct BuildError {
    /// How cargo exited, as its exit status prints.
    pub status: String,
    /// What cargo wrote to stderr.
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
    build_timed(target, variant, flags, quiet, code_align).map(|(exe, _)| exe)
}

/// [`build`], and how the build went: its wall time and how many units cargo compiled and
/// found fresh (what a run record keeps as `build`).
pub fn build_timed(
    target: &BenchTarget,
    variant: &str,
    flags: &CargoFlags,
    quiet: bool,
    code_align: CodeAlign,
) -> Result<(PathBuf, costbench_record::model::BuildInfo)> {
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
        jobs: flags.jobs,
        capture_stderr: quiet,
        code_align,
        rustflags: if flags.cap_lints {
            vec!["--cap-lints=warn".into()]
        } else {
            Vec::new()
        },
        ..BuildSettings::default()
    };
    let start = std::time::Instant::now();
    match build_with(target, &settings) {
        Ok(b) => Ok((
            b.exe,
            costbench_record::model::BuildInfo {
                seconds: start.elapsed().as_secs_f64(),
                compiled: b.compiled,
                fresh: b.fresh,
            },
        )),
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

/// A bench target built to be measured in the same run as another (issue 41: every bench
/// target of a package in one run): its name, executable and the directory its scenarios run
/// in (its package's, as under `cargo bench`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltBench {
    /// Name of the bench target.
    pub bench: String,
    /// Its executable.
    pub exe: PathBuf,
    /// Its package's directory.
    pub cwd: PathBuf,
}

/// [`build_timed`] of `target` and then of each of its [`BenchTarget::others`], one cargo
/// command each (cargo builds the shared dependencies once): the first's executable, the
/// others' built benches, and how the builds went, added up.
pub fn build_all_timed(
    target: &BenchTarget,
    variant: &str,
    flags: &CargoFlags,
    quiet: bool,
    code_align: CodeAlign,
) -> Result<(PathBuf, Vec<BuiltBench>, costbench_record::model::BuildInfo)> {
    let (exe, mut info) = build_timed(target, variant, flags, quiet, code_align)?;
    let mut others = Vec::new();
    for t in &target.others {
        let (exe, more) = build_timed(t, variant, flags, quiet, code_align)?;
        info.seconds += more.seconds;
        info.compiled += more.compiled;
        info.fresh += more.fresh;
        others.push(BuiltBench {
            bench: t.bench.clone(),
            exe,
            cwd: t.package_dir.clone(),
        });
    }
    Ok((exe, others, info))
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
    let target_dir = target.costbench_dir().join("build").join(&settings.variant);
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
    .args(["--package", &target.package_spec, "--bench", &target.bench])
    .args(["--color", crate::terminal::cargo_color()])
    .args(settings.lock.args());
    if let Some(j) = settings.jobs {
        cmd.arg(format!("--jobs={j}"));
    }
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
            jobs: Some(2),
            cap_lints: false,
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
}
