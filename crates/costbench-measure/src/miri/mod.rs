//! `costbench miri`: checks the unsafe side of every trade under Miri. Builds each bench target
//! (every one that depends on costbench, as `run` measures them) with `cargo +nightly miri`,
//! then runs each selected scenario's setup and one run of its body (the child protocol's
//! `once` mode; multi-party scenarios run their parties as threads over in-memory links) in a Miri process of its own, so that one finding never hides another, and
//! reports each as clean, undefined behaviour, not runnable under Miri, or failed.
//!
//! This module owns the Miri processes (toolchain check, sysroot, build, one run per scenario
//! with a deadline); reading Miri's output is the pure [`parse`] module and the report's types
//! are `model::miri`. [`run`] returns the report: printing it (`report::miri`) and the exit code
//! are the command's (`commands::miri`), so this module must not import `report` or `exit`.

pub mod parse;

use crate::cargo::BenchTarget;
use crate::ending::Ending;
use crate::run::child::{self, Supervision, STDERR_TAIL_LINES};
use anyhow::{bail, Context, Result};
use costbench_protocol::{self as proto, Listing, ScenarioInfo, CHILD_FLAG, PROTOCOL_VERSION};
use costbench_record::model::miri::{
    Finding, MiriReport, MiriResult, Timing, SCHEMA, SCHEMA_VERSION,
};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Toolchain that runs Miri unless `COSTBENCH_MIRI_TOOLCHAIN` names another (a dated nightly,
/// to pin Miri's version in CI).
pub const DEFAULT_TOOLCHAIN: &str = "nightly";

/// What to install when Miri is missing; printed as the one message `costbench miri` gives.
pub const INSTALL_HINT: &str = "rustup toolchain install nightly --component miri,rust-src";

/// Validated options of `costbench miri`.
#[derive(Debug)]
pub struct MiriOptions {
    /// The Cargo.toml to build from; `None` lets cargo find it.
    pub manifest_path: Option<PathBuf>,
    /// Package of the bench target; `None` lets cargo choose.
    pub package: Option<String>,
    /// Bench target to run; `None` when the package has only one.
    pub bench: Vec<String>,
    /// Run only the scenarios whose id matches; `None` runs all.
    pub filter: Option<regex::Regex>,
    /// The user's cargo flags: features, `--profile` (else cargo miri's test profile), lock file.
    pub cargo: crate::cargo::CargoFlags,
    /// Longest one scenario may run under Miri before it is stopped.
    pub timeout: Duration,
    /// Print the report as JSON (`commands::miri` prints; the engine does not read this).
    pub json: bool,
    /// Print no progress on stderr.
    pub quiet: bool,
}

/// Miri is missing: the message says how to install it. [`run`] fails with this error before
/// anything is built; the command prints it alone, not as an error of the run.
#[derive(Debug)]
pub struct NotInstalled(pub String);

impl std::fmt::Display for NotInstalled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotInstalled {}

/// Checks every selected scenario under Miri and returns the report; fails with
/// [`NotInstalled`] when Miri is missing.
pub fn run(opts: MiriOptions) -> Result<MiriReport> {
    let started = Instant::now();
    let started_at = crate::environment::now_rfc3339();
    let (target, _) = crate::cargo::resolve_buildable(
        opts.manifest_path.as_deref(),
        opts.package.as_deref(),
        &opts.bench,
        &opts.cargo,
    )?;
    let toolchain =
        std::env::var("COSTBENCH_MIRI_TOOLCHAIN").unwrap_or_else(|_| DEFAULT_TOOLCHAIN.into());
    // One `cargo miri` per bench target (issue 41: every target that depends on costbench, as
    // `cargo bench` runs them all).
    let miris: Vec<Miri> = target
        .all()
        .map(|t| Miri {
            toolchain: toolchain.clone(),
            target: t.clone(),
            cargo: opts.cargo.clone(),
            quiet: opts.quiet,
        })
        .collect();
    let miri = &miris[0];
    let miri_version = match miri.version() {
        Ok(v) => v,
        Err(why) => return Err(NotInstalled(missing_message(&miri.toolchain, &why)).into()),
    };
    let progress = |msg: &str| {
        if !opts.quiet {
            eprintln!("miri: {msg}");
        }
    };
    progress(&format!("{miri_version}; preparing its sysroot"));
    let t = Instant::now();
    miri.setup()?;
    let sysroot_s = t.elapsed().as_secs_f64();
    let (mut build_s, mut list_s) = (0.0, 0.0);
    let mut parts = Vec::new();
    for (k, m) in miris.iter().enumerate() {
        progress(&format!(
            "building bench target {} of package {}",
            m.target.bench, m.target.package
        ));
        let t = Instant::now();
        m.build()?;
        build_s += t.elapsed().as_secs_f64();
        let t = Instant::now();
        parts.push((k, m.target.bench.clone(), m.list(opts.timeout)?));
        list_s += t.elapsed().as_secs_f64();
    }
    // Several targets: one listing, an id two targets share named `TARGET/ID`, as `run` names it.
    let (listing, routes) = crate::run::merge_listings(parts, &Default::default())?;
    let selected = costbench_record::selection::select(&listing, opts.filter.as_ref())?;
    let miriflags = std::env::var("MIRIFLAGS").unwrap_or_default();
    let t = Instant::now();
    let mut results = Vec::new();
    for (k, s) in selected.iter().enumerate() {
        // The target that offers it, and the name it knows it by.
        let (m, own) = match routes.get(&s.name) {
            Some((i, own)) => (&miris[*i], own.clone()),
            None => (miri, s.name.clone()),
        };
        let mut r = m.check(
            &ScenarioInfo {
                name: own,
                ..(*s).clone()
            },
            opts.timeout,
        );
        r.scenario = s.name.clone();
        progress(&format!(
            "[{}/{}] {}: {} ({:.1} s)",
            k + 1,
            selected.len(),
            r.scenario,
            r.finding.verdict(),
            r.seconds
        ));
        results.push(r);
    }
    let scenarios_s = t.elapsed().as_secs_f64();
    Ok(MiriReport {
        schema: SCHEMA.into(),
        schema_version: SCHEMA_VERSION,
        started_at,
        tool: costbench_record::model::Tool {
            name: "costbench".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            protocol: PROTOCOL_VERSION,
        },
        suite: costbench_record::model::SuiteInfo {
            package: miri.target.package.clone(),
            bench: target.names(),
            library_version: listing.library_version.clone(),
        },
        toolchain: miri.toolchain.clone(),
        miri_version,
        miriflags,
        features: (!opts.cargo.features.is_empty()).then(|| opts.cargo.features.join(",")),
        timing: Timing {
            sysroot_s,
            build_s,
            list_s,
            scenarios_s,
            total_s: started.elapsed().as_secs_f64(),
        },
        results,
    })
}

/// The one message for a missing nightly toolchain or Miri component.
pub fn missing_message(toolchain: &str, why: &str) -> String {
    format!(
        "costbench miri needs Miri: the {toolchain} toolchain with the miri and rust-src components \
         ({why}).\nInstall them with:\n    {INSTALL_HINT}\n(with nightly already installed: \
         rustup component add --toolchain nightly miri rust-src). Nothing else in costbench needs them."
    )
}

/// How Miri's runs are supervised: cargo runs Miri as a grandchild, which killing cargo alone
/// would leave running, so the whole process group is killed at the deadline; and stderr is kept
/// whole, since Miri's finding comes first and its backtrace can be long.
const SUPERVISION: Supervision = Supervision { whole_stderr: true };

/// All of a Miri run's stderr (kept by [`SUPERVISION`]; empty if it could not be read).
fn whole_stderr(out: &crate::ending::Outcome) -> &str {
    out.stderr.as_deref().unwrap_or_default()
}

/// `cargo +TOOLCHAIN miri ...` for one bench target.
struct Miri {
    toolchain: String,
    target: BenchTarget,
    cargo: crate::cargo::CargoFlags,
    quiet: bool,
}

impl Miri {
    /// `cargo +TOOLCHAIN miri ARGS`, through rustup's `cargo` on PATH (`$CARGO`, when costbench
    /// runs under cargo, is the stable toolchain's own cargo and knows no `+toolchain`), with the
    /// outer toolchain's variables removed so that they cannot pull in a stable rustc.
    fn cargo(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new("cargo");
        cmd.arg(format!("+{}", self.toolchain))
            .arg("miri")
            .args(args)
            .env_remove("RUSTUP_TOOLCHAIN")
            .env_remove("RUSTC")
            .env_remove("RUSTDOC")
            .env_remove("CARGO")
            .stdin(Stdio::null());
        cmd
    }

    /// `--manifest-path M -p PKG --bench NAME` and the user's cargo flags: the same for the
    /// build and every run, so that cargo finds the build fresh. Without `--profile`, cargo miri
    /// builds with the test profile (debug assertions on, which Miri's checks want).
    fn target_args(&self, cmd: &mut Command) {
        cmd.arg("--manifest-path")
            .arg(&self.target.manifest_path)
            .args([
                "-p",
                &self.target.package_spec,
                "--bench",
                &self.target.bench,
            ])
            .args(self.cargo.lock.args())
            .args(self.cargo.feature_args());
        if let Some(j) = self.cargo.jobs {
            cmd.arg(format!("--jobs={j}"));
        }
        if let Some(p) = &self.cargo.profile {
            cmd.args(["--profile", p]);
        }
    }

    /// Miri's version, or why it cannot be run.
    fn version(&self) -> std::result::Result<String, String> {
        let out = self
            .cargo(&["--version"])
            .output()
            .map_err(|e| format!("cannot run `cargo`: {e}"))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let first = err
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no message");
            return Err(format!(
                "`cargo +{} miri --version` failed: {}",
                self.toolchain,
                first.trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// Builds Miri's sysroot if needed (`cargo miri setup`).
    fn setup(&self) -> Result<()> {
        let out = self
            .cargo(&["setup"])
            .output()
            .context("cannot run `cargo miri setup`")?;
        if !out.status.success() {
            bail!(
                "`cargo +{} miri setup` failed (is the rust-src component installed? {INSTALL_HINT}):\n{}",
                self.toolchain,
                child::tail(&String::from_utf8_lossy(&out.stderr), STDERR_TAIL_LINES)
            );
        }
        Ok(())
    }

    /// Builds the bench target for Miri without running it.
    fn build(&self) -> Result<()> {
        let mut cmd = self.cargo(&["test", "--no-run"]);
        self.target_args(&mut cmd);
        cmd.stdout(Stdio::null()).stderr(if self.quiet {
            Stdio::piped()
        } else {
            Stdio::inherit()
        });
        let out = cmd
            .output()
            .context("cannot run `cargo miri test --no-run`")?;
        if !out.status.success() {
            bail!(
                "building bench target {} of package {} for Miri failed ({}){}",
                self.target.bench,
                self.target.package,
                out.status,
                String::from_utf8_lossy(&out.stderr)
                    .trim_end()
                    .lines()
                    .map(|l| format!("\n{l}"))
                    .collect::<String>()
            );
        }
        Ok(())
    }

    /// `cargo miri test -q ... -- --costbench-child MODE --protocol V ARGS`.
    fn child(&self, mode: &str, args: &[&str]) -> Command {
        let mut cmd = self.cargo(&["test", "-q"]);
        self.target_args(&mut cmd);
        cmd.args(["--", CHILD_FLAG, mode, "--protocol"])
            .arg(PROTOCOL_VERSION.to_string())
            .args(args)
            // Scenarios run where `cargo bench` runs them.
            .current_dir(&self.target.package_dir);
        cmd
    }

    fn list(&self, timeout: Duration) -> Result<Listing> {
        let mut cmd = self.child("list", &[]);
        let (out, stdout) = child::run_captured(&mut cmd, timeout, SUPERVISION)
            .context("cannot run `cargo miri test` to list the scenarios")?;
        if !out.success() {
            bail!(
                "the scenario binary failed to list its scenarios under Miri ({}):\n{}",
                out.how_it_ended(),
                child::tail(
                    parse::strip_cargo_trailer(whole_stderr(&out)),
                    STDERR_TAIL_LINES
                )
            );
        }
        Listing::from_stdout(&stdout).map_err(|e| match e {
            proto::DecodeError::NoListing => anyhow::anyhow!(
                "the scenario binary did not answer the costbench protocol under Miri; its main \
                 must end with costbench::Suite::main()"
            ),
            e => e.into(),
        })
    }

    /// Runs one scenario's setup and body once under Miri.
    fn check(&self, s: &ScenarioInfo, timeout: Duration) -> MiriResult {
        let start = Instant::now();
        let mut cmd = self.child("once", &[&s.name]);
        let finding = match child::run_captured(&mut cmd, timeout, SUPERVISION) {
            Err(e) => Finding::Failed {
                kind: "crashed".into(),
                message: format!("cannot run `cargo miri test`: {e}"),
                location: None,
                stderr_tail: String::new(),
            },
            Ok((out, _)) if out.ending == Ending::TimedOut => Finding::Failed {
                kind: "timed-out".into(),
                message: format!(
                    "killed after {} s under Miri (change with --timeout, or give the scenario a \
                     smaller input under Miri with costbench::miri_size)",
                    timeout.as_secs()
                ),
                location: None,
                stderr_tail: child::tail(
                    parse::strip_cargo_trailer(whole_stderr(&out)),
                    STDERR_TAIL_LINES,
                ),
            },
            Ok((out, _)) => parse::classify(out.success(), out.code(), whole_stderr(&out)),
        };
        MiriResult {
            scenario: s.name.clone(),
            parties: s.parties.clone(),
            seconds: start.elapsed().as_secs_f64(),
            finding,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_missing_message_says_how_to_install() {
        let m = missing_message("nightly", "toolchain 'nightly' is not installed");
        assert!(m.contains("rustup toolchain install nightly --component miri,rust-src"));
        assert!(m.contains("not installed"));
    }
}
