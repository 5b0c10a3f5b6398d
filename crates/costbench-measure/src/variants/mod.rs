//! `costbench variants` (and `costbench run --variant ...`): build the same bench targets once per
//! named variant (every target of the session in each, issue 41), measure every build in one session, record each run in history under its
//! variant name, and print the matrix of per-op figures and ratios to the baseline.
//!
//! - `spec`: parsing and validation of variants (pure; the validated `Variant` is
//!   `costbench-record`'s, re-exported);
//! - `presets`: built-in variant sets;
//! - `build`: checks against the crate and the machine, and cargo settings per variant;
//! - `matrix`: `costbench-judge`'s `variants` (the matrix, pure, and its JSON) under its old
//!   path; `report::variants` renders it as a table or markdown.
//!
//! Building is delegated to `cargo::build_with`; measuring and recording are the caller's: the
//! session is driven in steps ([`plan`], [`Plan::build`], then the caller measures
//! [`Builds::sides`], records the runs where it keeps them, and hands them to
//! [`Builds::finish`] for the matrix), so that this crate returns values and never calls back
//! into the command line. Printing the matrix, writing `matrix.json` and the exit code are the
//! command's: this module must not import the renderers of `report` or the exit codes of `exit`.

pub mod build;
// The matrix is judging over records: it lives in `costbench-judge`, under its old path here.
pub mod presets;
mod sharding;
pub mod spec;

use crate::cargo::{self, BenchTarget, BuildError};
use crate::config::Config;
use crate::run::{RunOptions, SideSpec};
use anyhow::{bail, Result};
use costbench_judge::variants as matrix;
use costbench_record::model::{BuildInfo, RunRecord};
use costbench_record::variant::Variant;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Options of `costbench variants` beyond those of `run`.
#[derive(Debug, Clone)]
pub struct VariantOptions {
    /// `--variant` texts, in order.
    pub variants: Vec<String>,
    /// `--preset`: the named list of variants to start from; `None` for none.
    pub preset: Option<String>,
    /// `--baseline-variant`: the variant the others are compared with; `None` for the first.
    pub baseline: Option<String>,
    /// Variant builds at once (`--parallel-builds`).
    pub build_jobs: usize,
    /// Leave out, with the reason in [`Measured::left_out`], each variant other than the
    /// baseline that this package cannot build (an allocator where the package does not depend
    /// on costbench itself, say), instead of refusing the whole plan: `advise`'s build choices
    /// are offers, not the user's own list.
    pub lenient: bool,
}

/// The variants to build, in column order, and the index of the baseline: the preset's (in
/// its order), then each `--variant`; with neither, every `[variants.NAME]` of costbench.toml.
pub fn choose(
    config: &toml::Table,
    texts: &[String],
    preset: Option<&str>,
    baseline: Option<&str>,
) -> Result<(Vec<Variant>, usize)> {
    let configured = spec::from_config(config)?;
    let from_config = |name: &str, settings: &[(String, spec::Raw)]| {
        spec::validate(
            name,
            settings,
            &format!("[variants.{name}] in costbench.toml"),
        )
    };
    // What the command line names (a preset, a --variant, the baseline) is a usage error when
    // wrong; costbench.toml's own tables are not the command line's.
    let usage = |e: anyhow::Error| costbench_record::error::bad_input(format!("{e:#}"));
    let mut out: Vec<Variant> = match preset {
        Some(p) => presets::preset(p).map_err(usage)?,
        None => Vec::new(),
    };
    for text in texts {
        let (name, settings) = spec::parse_cli(text).map_err(usage)?;
        let v = match settings {
            Some(s) => spec::validate(&name, &s, &format!("--variant {name}")).map_err(usage)?,
            None => match configured.iter().find(|(n, _)| *n == name) {
                Some((n, s)) => from_config(n, s)?,
                None => {
                    spec::check_name(&name).map_err(usage)?;
                    costbench_record::bad_input!(
                        "--variant {name}: no [variants.{name}] in costbench.toml; define it there, or give its settings: \
                         --variant '{name}:KEY=VALUE,...' ('{name}:' alone is the plain bench profile)"
                    )
                }
            },
        };
        out.push(v);
    }
    if preset.is_none() && texts.is_empty() {
        for (n, s) in &configured {
            out.push(from_config(n, s)?);
        }
        if out.is_empty() {
            bail!(
                "no variants to build: pass --variant 'NAME:KEY=VALUE,...' (twice or more), --preset build-choices, \
                 or define [variants.NAME] tables in costbench.toml"
            );
        }
    }
    for (i, v) in out.iter().enumerate() {
        if out[..i].iter().any(|w| w.name == v.name) {
            costbench_record::bad_input!(
                "two variants are named {:?}; every variant needs its own name",
                v.name
            );
        }
    }
    let base = match baseline {
        None => 0,
        Some(b) => match out.iter().position(|v| v.name == b) {
            Some(i) => i,
            None => costbench_record::bad_input!(
                "--baseline-variant {b}: no such variant here; variants: {}",
                out.iter()
                    .map(|v| v.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
    };
    Ok((out, base))
}

/// The lines of a failed build worth showing: the compiler's diagnostics, not cargo's progress.
fn compiler_errors(stderr: &str) -> String {
    let keep: Vec<&str> = stderr
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with("Compiling ")
                || t.starts_with("Blocking ")
                || t.starts_with("Downloaded ")
                || t.starts_with("Updating ")
                || t.starts_with("Locking "))
        })
        .collect();
    let tail = keep.len().saturating_sub(80);
    keep[tail..].join("\n")
}

#[derive(Debug)]
struct Outcome {
    built: Option<cargo::Built>,
    /// The other bench targets of the session built as this variant (issue 41: every bench
    /// target of the package is measured in each variant); empty for one target.
    others: Vec<cargo::BuiltBench>,
    info: Option<BuildInfo>,
    error: Option<String>,
}

/// Builds `target` as `settings` say, then each of its [`BenchTarget::others`] the same way
/// into the same build directory (cargo builds the shared dependencies once): the first's
/// build, its units counted over them all, and the others' built benches.
fn build_with_others(
    target: &BenchTarget,
    settings: &cargo::BuildSettings,
) -> Result<(cargo::Built, Vec<cargo::BuiltBench>)> {
    let mut first = cargo::build_with(target, settings)?;
    let mut others = Vec::new();
    for t in &target.others {
        let b = cargo::build_with(t, settings)?;
        first.compiled += b.compiled;
        first.fresh += b.fresh;
        others.push(cargo::BuiltBench {
            bench: t.bench.clone(),
            exe: b.exe,
            cwd: t.package_dir.clone(),
        });
    }
    Ok((first, others))
}

/// Builds every plan of `plans`, `jobs` at a time, and returns their outcomes in order; a
/// failure is kept as that variant's outcome.
fn build_all(
    target: &BenchTarget,
    plans: &[&build::Plan],
    jobs: usize,
    quiet: bool,
) -> Vec<Outcome> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new((0..plans.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, plans.len().max(1)) {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::SeqCst);
                let Some(plan) = plans.get(k) else { break };
                let name = &plan.variant.name;
                if !quiet {
                    crate::terminal::status(
                        "Building",
                        format!("variant {name} ({})", plan.variant.describe()),
                    );
                }
                let start = Instant::now();
                // Cargo's own lines shown as they come (unless --quiet) and kept for the matrix.
                let mut settings = plan.settings.clone();
                settings.echo_stderr = !quiet;
                let result = build_with_others(target, &settings);
                let seconds = start.elapsed().as_secs_f64();
                let outcome = match result {
                    Ok((b, others)) => {
                        if !quiet {
                            crate::terminal::status(
                                "Finished",
                                format!(
                                    "variant {name} in {seconds:.1} s ({})",
                                    if b.compiled == 0 {
                                        "nothing rebuilt".to_string()
                                    } else {
                                        format!("{} units compiled", b.compiled)
                                    }
                                ),
                            );
                        }
                        Outcome {
                            info: Some(BuildInfo {
                                seconds,
                                compiled: b.compiled,
                                fresh: b.fresh,
                            }),
                            built: Some(b),
                            others,
                            error: None,
                        }
                    }
                    Err(e) => {
                        let text = match e.downcast_ref::<BuildError>() {
                            Some(be) => format!("{} ({})", compiler_errors(&be.stderr), be.status),
                            None => format!("{e:#}"),
                        };
                        eprintln!(
                            "error: variant {name} ({}) failed to build and is skipped:\n{text}",
                            plan.variant.describe()
                        );
                        Outcome {
                            built: None,
                            others: Vec::new(),
                            info: Some(BuildInfo {
                                seconds,
                                compiled: 0,
                                fresh: 0,
                            }),
                            error: Some(text),
                        }
                    }
                };
                results.lock().expect("no builder panicked")[k] = Some(outcome);
            });
        }
    });
    results
        .into_inner()
        .expect("no builder panicked")
        .into_iter()
        .map(|o| o.expect("every plan was built"))
        .collect()
}

/// The rustc a toolchain variant built with, for its run record.
fn toolchain_rustc(toolchain: &str) -> Option<String> {
    let out = std::process::Command::new("rustup")
        .args(["run", toolchain, "rustc", "--version"])
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("RUSTC")
        .output()
        .ok()?;
    let s = String::from_utf8_lossy(&out.stdout);
    out.status
        .success()
        .then(|| s.lines().next().unwrap_or_default().trim().to_string())
}

/// What a variants session leaves: the matrix, the run of every variant that built, and the
/// directory that holds one output directory per variant.
#[derive(Debug)]
pub struct Measured {
    /// The matrix of per-op costs, one column per variant.
    pub matrix: matrix::Matrix,
    /// The run record of each variant that was measured.
    pub records: Vec<RunRecord>,
    /// The output root that holds one directory per variant.
    pub root: PathBuf,
    /// The variants left out as this package cannot build them ([`VariantOptions::lenient`]),
    /// each with why.
    pub left_out: Vec<String>,
}

/// Refuses what variants cannot do, before anything is resolved or built.
pub fn validate(vopts: &VariantOptions) -> Result<()> {
    if vopts.build_jobs == 0 {
        costbench_record::bad_input!("--parallel-builds must be at least 1");
    }
    Ok(())
}

/// The variants of a session, chosen and planned but not built yet.
#[derive(Debug)]
pub struct Plan {
    variants: Vec<Variant>,
    base_name: String,
    plans: Vec<build::Plan>,
    shard: Option<costbench_record::model::VariantsShard>,
    build_jobs: usize,
    /// The outcome of each plan built ahead of the others ([`Plan::build_first`]), by index.
    built_first: Vec<Option<Outcome>>,
    /// Seconds those builds took.
    first_secs: f64,
    /// Variants left out ([`VariantOptions::lenient`]), each with why.
    left_out: Vec<String>,
}

/// Chooses the variants of `target` (costbench.toml's, `vopts`' and the preset's), applies a
/// whole-variant shard to `opts.shard`, and plans each variant's build.
pub fn plan(opts: &mut RunOptions, vopts: &VariantOptions, target: &BenchTarget) -> Result<Plan> {
    validate(vopts)?;
    let config = Config::load(&target.workspace_root)?;
    let (variants, base) = choose(
        &config.variants,
        &vopts.variants,
        vopts.preset.as_deref(),
        vopts.baseline.as_deref(),
    )?;
    let base_name = variants[base].name.clone();
    let mut left_out = Vec::new();
    let variants: Vec<Variant> = if vopts.lenient {
        variants
            .into_iter()
            .filter(|v| {
                v.name == base_name
                    || match build::plan(
                        target,
                        std::slice::from_ref(v),
                        &opts.cargo,
                        opts.code_align,
                    ) {
                        Ok(_) => true,
                        Err(e) => {
                            left_out.push(format!("{}: {e:#}", v.name));
                            false
                        }
                    }
            })
            .collect()
    } else {
        variants
    };
    let base = variants
        .iter()
        .position(|v| v.name == base_name)
        .expect("the baseline is never left out");
    let everywhere = sharding::machine_bound(&opts.instruments);
    let (variants, shard) =
        sharding::whole_variants(opts.shard.as_mut(), everywhere, variants, base);
    let plans = build::plan(target, &variants, &opts.cargo, opts.code_align)?;
    Ok(Plan {
        variants,
        base_name,
        plans,
        shard,
        build_jobs: vopts.build_jobs,
        built_first: Vec::new(),
        first_secs: 0.0,
        left_out,
    })
}

/// Every variant built (or failed to build), with one side to measure per built variant.
/// The caller measures [`Builds::sides`] (and records them where it keeps runs), then hands the
/// records to [`Builds::finish`] for the matrix.
#[derive(Debug)]
pub struct Builds {
    plan: Plan,
    outcomes: Vec<Outcome>,
    root: PathBuf,
    build_secs: f64,
    measure_start: Instant,
    progress: bool,
}

impl Plan {
    /// Builds variants one at a time, the baseline first (then, if it fails, the next in column
    /// order), until one builds, and returns that binary; `None` when none built. For a caller
    /// that must see a built binary of the suite before the other builds (`variants --filter`
    /// checks that it selects a scenario); [`Plan::build`] then builds only the variants not
    /// built yet, and the outcomes of these builds are kept for the matrix.
    pub fn build_first(
        &mut self,
        opts: &RunOptions,
        target: &BenchTarget,
    ) -> Option<(PathBuf, Vec<cargo::BuiltBench>)> {
        let base = self
            .plans
            .iter()
            .position(|p| p.variant.name == self.base_name)
            .unwrap_or(0);
        let order = std::iter::once(base)
            .chain((0..self.plans.len()).filter(|&i| i != base))
            .take(self.plans.len());
        self.built_first = (0..self.plans.len()).map(|_| None).collect();
        let start = Instant::now();
        let mut exe = None;
        for i in order {
            let outcome = build_all(target, &[&self.plans[i]], 1, !opts.progress)
                .pop()
                .expect("one plan, one outcome");
            exe = outcome
                .built
                .as_ref()
                .map(|b| (b.exe.clone(), outcome.others.clone()));
            self.built_first[i] = Some(outcome);
            if exe.is_some() {
                break;
            }
        }
        self.first_secs = start.elapsed().as_secs_f64();
        exe
    }

    /// Builds every variant not built yet, `--parallel-builds` at a time, for results under
    /// `root` (one directory per variant). Sets `opts.rounds.baseline_side`: the adaptive
    /// rounds' looks judge every variant against the matrix's baseline.
    pub fn build(
        mut self,
        opts: &mut RunOptions,
        target: &BenchTarget,
        root: PathBuf,
    ) -> Result<Builds> {
        // Checked before building: a wrong output directory should not cost the builds.
        costbench_record::output::OutputDir::prepare(&root)?;
        let start = Instant::now();
        let mut first = std::mem::take(&mut self.built_first);
        first.resize_with(self.plans.len(), || None);
        let todo: Vec<&build::Plan> = self
            .plans
            .iter()
            .zip(&first)
            .filter(|(_, o)| o.is_none())
            .map(|(p, _)| p)
            .collect();
        let mut rest = build_all(target, &todo, self.build_jobs, !opts.progress).into_iter();
        let outcomes = first
            .into_iter()
            .map(|o| o.or_else(|| rest.next()).expect("one outcome per plan"))
            .collect();
        let build_secs = self.first_secs + start.elapsed().as_secs_f64();
        let builds = Builds {
            plan: self,
            outcomes,
            root,
            build_secs,
            measure_start: Instant::now(),
            progress: opts.progress,
        };
        let sides = builds.sides();
        opts.rounds.baseline_side = sides
            .iter()
            .position(|s| s.label == builds.plan.base_name)
            .unwrap_or(0);
        Ok(builds)
    }
}

impl Builds {
    /// One side per variant that built, in column order, each with its own output directory.
    pub fn sides(&self) -> Vec<SideSpec> {
        self.plan
            .plans
            .iter()
            .zip(&self.outcomes)
            .filter_map(|(p, o)| {
                o.built.as_ref().map(|b| SideSpec {
                    label: p.variant.name.clone(),
                    exe: b.exe.clone(),
                    output_dir: self.root.join(&p.variant.name),
                    target: None,
                    build: o.info.clone(),
                    others: o.others.clone(),
                })
            })
            .collect()
    }

    /// The matrix over `records`, the runs of [`Builds::sides`] in their order. A toolchain
    /// variant's run gets that toolchain's rustc, written to its output directory again.
    pub fn finish(self, mut records: Vec<RunRecord>) -> Result<Measured> {
        let Builds {
            plan,
            outcomes,
            root,
            build_secs,
            measure_start,
            progress,
        } = self;
        let measure_secs = measure_start.elapsed().as_secs_f64();
        for rec in &mut records {
            let toolchain = plan
                .variants
                .iter()
                .find(|v| v.name == rec.variant)
                .and_then(|v| v.toolchain.as_deref());
            if let Some(t) = toolchain {
                rec.environment.rustc = toolchain_rustc(t);
                costbench_record::output::OutputDir::prepare(&root.join(&rec.variant))?
                    .write_all(rec)?;
            }
        }
        if progress {
            crate::terminal::status(
                "Finished",
                format!(
                    "variants: builds {build_secs:.1} s, measurement {measure_secs:.1} s ({} built of {})",
                    records.len(),
                    plan.plans.len()
                ),
            );
        }
        let columns: Vec<matrix::Column> = plan
            .plans
            .iter()
            .zip(outcomes)
            .map(|(p, o)| {
                let rec = records.iter().find(|r| r.variant == p.variant.name);
                matrix::Column {
                    name: p.variant.name.clone(),
                    settings: p.variant.describe(),
                    spec: p.variant.clone(),
                    build: o.info,
                    binary: rec.and_then(|r| r.binary.clone()),
                    build_error: o.error,
                    run_id: rec.map(|r| r.run_id.clone()),
                    output_dir: rec.map(|_| root.join(&p.variant.name).display().to_string()),
                }
            })
            .collect();
        let mut matrix = matrix::matrix(
            &plan.base_name,
            columns,
            &records,
            &costbench_judge::compare::CompareOptions::default(),
        );
        let mut shard = plan.shard;
        if let Some(s) = shard.as_mut().filter(|s| s.assignment.is_empty()) {
            // Split by scenario: the partition is the records' (every side's is the same).
            s.assignment = records
                .iter()
                .find_map(|r| r.shard.as_ref().map(|x| x.assignment.clone()))
                .unwrap_or_default();
        }
        matrix.shard = shard;
        Ok(Measured {
            matrix,
            records,
            root,
            left_out: plan.left_out,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Table {
        Config::parse(text).unwrap().variants
    }

    #[test]
    fn chooses_preset_then_cli_then_config() {
        let cfg = table("[variants.release]\n[variants.checked]\noverflow-checks = true\n");
        let (v, b) = choose(&cfg, &[], None, None).unwrap();
        assert_eq!(
            v.iter().map(|v| &v.name).collect::<Vec<_>>(),
            ["release", "checked"]
        );
        assert_eq!(b, 0);
        let (v, b) = choose(
            &cfg,
            &["checked".into(), "cgu:codegen-units=1".into()],
            Some("build-choices"),
            Some("checked"),
        )
        .unwrap();
        assert_eq!(v.len(), 10);
        assert_eq!(v[8].name, "checked");
        assert_eq!(v[8].profile_value("overflow-checks"), Some("true"));
        assert_eq!(b, 8);
        let e = choose(&cfg, &["nope".into()], None, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no [variants.nope] in costbench.toml"), "{e}");
        let e = choose(&cfg, &["release".into(), "release:".into()], None, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("two variants are named \"release\""), "{e}");
        let e = choose(&cfg, &[], None, Some("zz")).unwrap_err().to_string();
        assert!(e.contains("--baseline-variant zz: no such variant"), "{e}");
        let e = choose(&toml::Table::new(), &[], None, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no variants to build"), "{e}");
        let bad = table("[variants.x]\nlto = \"medium\"\n");
        let e = choose(&bad, &[], None, None).unwrap_err().to_string();
        assert!(e.starts_with("[variants.x] in costbench.toml: lto"), "{e}");
    }

    #[test]
    fn build_errors_keep_the_diagnostics() {
        let stderr = "   Compiling foo v0.1.0\nerror: unknown codegen option: `bogus`\n\n   Compiling bar\nerror: could not compile `foo`\n";
        assert_eq!(
            compiler_errors(stderr),
            "error: unknown codegen option: `bogus`\n\nerror: could not compile `foo`"
        );
    }
}
