//! Validation: turns the clap arguments of `args` into the plain option values the engines take
//! (`RunCommand` with its `RunOptions`, `CompareOptions`, `Rounds`, `MiriOptions`, the instruments, the scenario filter),
//! refusing bad values with a message that names the option. Nothing here builds, spawns or
//! prints: a value that passes is one the commands can use as it is.

use crate::args::{
    CargoArgs, MeasureArgs, MiriCmd, RoundsArgs, RunArgs, SignificanceArgs, VariantArgs,
};
use crate::core::session::RunCommand;
use crate::exit::usage;
use anyhow::{Context, Result};
use costbench_measure::run::RunOptions;
use costbench_measure::variants::VariantOptions;
use costbench_record::instrument::InstrumentSet;
use costbench_report::render::Format;
use std::time::Duration;

impl SignificanceArgs {
    /// The validated options.
    pub(crate) fn options(&self) -> Result<costbench_judge::compare::CompareOptions> {
        let opts = costbench_judge::compare::CompareOptions {
            icount_threshold_pct: self.icount_threshold,
            walltime_threshold_pct: self.walltime_threshold,
            paired_walltime_threshold_pct: self.paired_walltime_threshold,
            load_threshold_pct: self.load_threshold,
            confidence: self.confidence,
            paired_confidence: self.paired_confidence,
            error_control: self.error_control.into(),
            family_alpha: self.family_error,
            ..costbench_judge::compare::CompareOptions::default()
        };
        opts.validate()
            .map_err(|e| costbench_record::error::bad_input(format!("{e:#}")))?;
        Ok(opts)
    }
}

/// `--filter`: a regular expression over scenario names (`option` names the option in the
/// message: `census --functions` is one over function and crate names).
pub(crate) fn regex_option(option: &str, filter: Option<&str>) -> Result<Option<regex::Regex>> {
    filter.map(regex::Regex::new).transpose().map_err(|e| {
        costbench_record::error::bad_input(format!(
            "{option} is not a valid regular expression: {e}"
        ))
    })
}

impl CargoArgs {
    /// The validated cargo flags: `--features` lists split at commas and spaces (as cargo splits
    /// them), and a `--profile` name cargo could accept (its `CARGO_PROFILE_<NAME>_*`
    /// variables must be spellable). Whether the features and the profile exist is cargo's to
    /// say, with its own message, when it builds.
    pub(crate) fn flags(&self) -> Result<costbench_measure::cargo::CargoFlags> {
        let features: Vec<String> = self
            .features
            .iter()
            .flat_map(|f| f.split([',', ' ']))
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(str::to_string)
            .collect();
        if let Some(p) = &self.profile {
            if p.is_empty()
                || !p
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                usage!(
                    "--profile {p:?}: a cargo profile name has only letters, digits, `-` and `_` \
                     (the default is {}; define others under [profile.NAME] of the workspace's Cargo.toml)",
                    costbench_measure::cargo::DEFAULT_PROFILE
                );
            }
        }
        if self.jobs == Some(0) {
            usage!("--jobs 0: cargo's build jobs must not be 0 (a negative N leaves that many CPUs free)");
        }
        Ok(costbench_measure::cargo::CargoFlags {
            jobs: self.jobs,
            features,
            all_features: self.all_features,
            no_default_features: self.no_default_features,
            profile: self.profile.clone(),
            lock: costbench_measure::cargo::LockFlags {
                locked: self.locked,
                offline: self.offline,
                frozen: self.frozen,
            },
            cap_lints: false,
        })
    }
}

impl RoundsArgs {
    /// The validated rounds, judged at `threshold_pct` with the family error rate
    /// `family_alpha` at the looks.
    pub(crate) fn rounds(
        &self,
        threshold_pct: f64,
        family_alpha: f64,
    ) -> Result<costbench_measure::run::Rounds> {
        if self.rounds < costbench_judge::compare::paired::MIN_ROUNDS as u32 {
            usage!(
                "--rounds must be at least {} for a paired interval",
                costbench_judge::compare::paired::MIN_ROUNDS
            );
        }
        if self.max_rounds < self.rounds {
            usage!(
                "--max-rounds ({}) must be at least --rounds ({})",
                self.max_rounds,
                self.rounds
            );
        }
        Ok(costbench_measure::run::Rounds {
            rounds: self.rounds,
            max_rounds: self.max_rounds,
            budget: Duration::from_secs(self.walltime_budget),
            threshold_pct,
            family_alpha,
            layouts: self.layouts.into(),
            ..costbench_measure::run::Rounds::default()
        })
    }
}

impl VariantArgs {
    /// Whether any variant option was given: `run` then builds and measures variants.
    pub(crate) fn any(&self) -> bool {
        !self.variant.is_empty() || self.preset.is_some() || self.baseline_variant.is_some()
    }
}

impl RunArgs {
    /// The validated command `costbench run` without variants.
    pub(crate) fn run_command(self) -> Result<RunCommand> {
        crate::output::accept(
            "costbench run without variants",
            self.format,
            costbench_report::render::Doc::Run,
            "; markdown is for the variant matrix: add --variant or --preset, or use `costbench \
             compare --format markdown`",
        )?;
        self.measure
            .into_command(self.list, self.format == Format::Json)
    }

    /// The validated options of `costbench variants` (or `run` with variant options): the
    /// measuring options, with the rounds judged at the default paired threshold, and the
    /// variants' own.
    pub(crate) fn variant_options(self) -> Result<(RunCommand, VariantOptions)> {
        let v = self.variants.clone();
        if v.build_jobs.is_some() {
            // Said even under --quiet: a script should learn of the new name before the old
            // one goes.
            eprintln!(
                "warning: --build-jobs is deprecated: it is now --parallel-builds (variant \
                 builds at once; -j/--jobs is cargo's compiler jobs of each build)"
            );
        }
        let rounds = v.rounds.rounds(
            costbench_judge::compare::DEFAULT_PAIRED_WALLTIME_THRESHOLD_PCT,
            costbench_judge::compare::DEFAULT_FAMILY_ALPHA,
        )?;
        let mut cmd = self.measure.into_command(self.list, false)?;
        cmd.measure.rounds = rounds;
        cmd.measure.placement_runs = v.placement_runs;
        let vopts = VariantOptions {
            variants: v.variant,
            preset: v.preset,
            baseline: v.baseline_variant,
            build_jobs: v.build_jobs.unwrap_or(v.parallel_builds),
            lenient: false,
        };
        Ok((cmd, vopts))
    }
}

impl MiriCmd {
    /// The validated options of `costbench miri`.
    pub(crate) fn options(self) -> Result<costbench_measure::miri::MiriOptions> {
        if self.timeout == 0 {
            usage!("--timeout must be at least 1 second");
        }
        Ok(costbench_measure::miri::MiriOptions {
            filter: regex_option("--filter", self.filter.as_deref())?,
            manifest_path: self.target.manifest_path,
            package: self.target.package,
            bench: self.target.bench,
            cargo: self.target.cargo.flags()?,
            timeout: Duration::from_secs(self.timeout),
            json: self.format == Format::Json,
            quiet: self.quiet,
        })
    }
}

impl MeasureArgs {
    /// The validated command; `list_only` and `json` come from the command's own flags.
    pub(crate) fn into_command(self, list_only: bool, json: bool) -> Result<RunCommand> {
        if self.measure_jobs == Some(0) {
            usage!("--measure-jobs must be at least 1");
        }
        if self.iterations_per_scenario == Some(0) {
            usage!("--iterations-per-scenario must be at least 1");
        }
        if self.timeout == 0 {
            usage!("--timeout must be at least 1 second");
        }
        let filter = regex_option("--filter", self.filter.as_deref())?;
        let walltime_cpu = walltime_cpu(&self.walltime_cpu)?;
        let shard = self
            .shard
            .as_deref()
            .map(costbench_record::shard::Shard::parse)
            .transpose()?
            .map(|shard| costbench_measure::run::sharding::ShardPlan {
                shard,
                // Filled from history by the command, which knows the database.
                costs: Default::default(),
                source: String::new(),
                whole_variants: None,
            });
        let jobs = self.measure_jobs.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        });
        let cargo = self.target.cargo.flags()?;
        // Absolute: the children run in the package's directory (the baseline's in its
        // worktree), where a relative `--output-dir results` would name another directory.
        let output_dir = self
            .output_dir
            .map(|d| {
                std::path::absolute(&d).with_context(|| format!("--output-dir {}", d.display()))
            })
            .transpose()?;
        let measure = RunOptions {
            cargo,
            filter,
            list_only,
            instruments: instruments(&self.instrument),
            jobs,
            samples: self.iterations_per_scenario,
            timeout: Duration::from_secs(self.timeout),
            walltime_cpu,
            code_align: self.code_align.into(),
            progress: !self.quiet && !json,
            real_random: self.real_random,
            rounds: costbench_measure::run::Rounds::default(),
            icount_threshold_pct: costbench_judge::compare::DEFAULT_ICOUNT_THRESHOLD_PCT,
            placement_runs:
                costbench_measure::instrument::icount::placement::DEFAULT_PLACEMENT_RUNS,
            shard,
            load: self.load.options()?,
            // Filled from costbench.toml when the session finds the workspace.
            budgets: Vec::new(),
            allowances: Default::default(),
        };
        Ok(RunCommand {
            measure,
            manifest_path: self.target.manifest_path,
            package: self.target.package,
            bench: self.target.bench,
            output_dir,
            quiet: self.quiet,
            db: self.history.db,
            record_history: !self.history.no_history,
        })
    }
}

impl crate::args::LoadArgs {
    /// The validated load options of the throughput instrument.
    pub(crate) fn options(self) -> Result<costbench_measure::run::LoadOptions> {
        if self.clients.is_empty() || self.clients.contains(&0) {
            usage!(
                "--clients takes numbers of at least 1, comma-separated (e.g. --clients 1,4,16)"
            );
        }
        if self.clients.iter().any(|&n| n > 4096) {
            usage!("--clients: at most 4096 clients (one thread and one connection each)");
        }
        let mut clients = self.clients;
        clients.sort_unstable();
        clients.dedup();
        if let Some(r) = self.rate {
            if !(r.is_finite() && r > 0.0) {
                usage!("--rate takes a positive number of operations per second, not {r}");
            }
        }
        if self.load_rounds == 0 || self.slices == 0 || self.slice_ms == 0 {
            usage!("--load-rounds, --slices and --slice-ms must be at least 1");
        }
        Ok(costbench_measure::run::LoadOptions {
            clients,
            rate: self.rate,
            rounds: self.load_rounds,
            slices: self.slices,
            slice: Duration::from_millis(self.slice_ms),
            warmup: Duration::from_millis(self.load_warmup_ms),
        })
    }
}

/// `--walltime-cpu`: the CPU to pin wall-time children to, or `None` for `any`.
fn walltime_cpu(arg: &str) -> Result<Option<usize>> {
    let allowed = costbench_measure::run::child::allowed_cpus()
        .context("cannot read which CPUs this process may use (sched_getaffinity)")?;
    let list = || {
        allowed
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    match arg {
        "any" => Ok(None),
        "auto" => Ok(allowed.last().copied()),
        n => match n.parse::<usize>() {
            Ok(cpu) if allowed.contains(&cpu) => Ok(Some(cpu)),
            Ok(cpu) => usage!(
                "--walltime-cpu {cpu}: this process may not run on CPU {cpu}; it may use {}",
                list()
            ),
            Err(_) => usage!("--walltime-cpu takes a CPU number, `auto` or `any`, not `{n}`"),
        },
    }
}

/// The instruments of `--instrument`: every value asked for, joined.
pub(crate) fn instruments(args: &[InstrumentSet]) -> InstrumentSet {
    args.iter()
        .fold(InstrumentSet::NONE, |all, i| all.union(*i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{Cli, Command};
    use clap::Parser;

    /// Issue 15: `check --baseline-rev REV --output-dir results` in a CI workflow measured the
    /// baseline in its worktree, which took `results` as its own (callgrind could not write).
    #[test]
    fn a_relative_output_dir_is_made_absolute() {
        let Command::Run(r) = Cli::try_parse_from(["costbench", "run", "--output-dir", "results"])
            .unwrap()
            .command
        else {
            unreachable!()
        };
        let cmd = r.measure.into_command(false, false).unwrap();
        assert_eq!(
            cmd.output_dir,
            Some(std::env::current_dir().unwrap().join("results"))
        );
    }

    #[test]
    fn instrument_lists_combine() {
        let parse = |s: &[&str]| {
            let mut v = vec!["costbench", "run"];
            v.extend_from_slice(s);
            match Cli::try_parse_from(v).unwrap().command {
                Command::Run(r) => instruments(&r.measure.instrument),
                _ => unreachable!(),
            }
        };
        assert_eq!(parse(&[]).names(), ["icount", "walltime"]);
        assert_eq!(
            parse(&["--instrument", "cache,memory"]).names(),
            ["cache", "memory"]
        );
        assert_eq!(
            parse(&["--instrument", "perf", "--instrument", "cache"]).names(),
            ["cache", "perf"]
        );
        assert_eq!(parse(&["--instrument", "all"]), InstrumentSet::ALL);
        assert!(Cli::try_parse_from(["costbench", "run", "--instrument", "cycles"]).is_err());
    }

    #[test]
    fn cargo_flags_are_split_as_cargo_splits_them_and_reach_every_building_command() {
        let flags = |args: &[&str]| {
            let parse = |cmd: &str| {
                let mut v = vec!["costbench", cmd];
                v.extend_from_slice(args);
                Cli::try_parse_from(v).unwrap().command
            };
            let from_run = match parse("run") {
                Command::Run(r) => r.measure.target.cargo.flags(),
                _ => unreachable!(),
            };
            for cmd in ["variants", "check", "census", "miri"] {
                let mut v = vec!["costbench", cmd];
                v.extend_from_slice(args);
                if cmd == "check" {
                    v.extend(["--baseline", "x"]);
                }
                let cargo = match Cli::try_parse_from(&v).unwrap().command {
                    Command::Variants(r) => r.measure.target.cargo,
                    Command::Check(c) => c.measure.target.cargo,
                    Command::Census(c) => c.target.cargo,
                    Command::Miri(m) => m.target.cargo,
                    _ => unreachable!(),
                };
                assert_eq!(cargo.flags().ok(), from_run.as_ref().ok().cloned(), "{v:?}");
            }
            from_run
        };
        let f = flags(&["--features", "a,b c", "-F", "dep/x", "--all-features"]).unwrap();
        assert_eq!(f.features, ["a", "b", "c", "dep/x"]);
        assert!(f.all_features && !f.no_default_features);
        let f = flags(&[
            "--no-default-features",
            "--profile",
            "bench-lto",
            "--frozen",
        ])
        .unwrap();
        assert!(f.no_default_features && f.lock.frozen && !f.lock.locked);
        assert_eq!(f.profile(), "bench-lto");
        let f = flags(&["--locked", "--offline"]).unwrap();
        assert_eq!(f.lock.args(), ["--locked", "--offline"]);
        assert_eq!(f.profile(), "bench");
        let e = flags(&["--profile", "my profile"]).unwrap_err().to_string();
        assert!(e.contains("--profile \"my profile\""), "{e}");
        assert!(
            Cli::try_parse_from(["costbench", "census", "--binary", "x", "--features", "a"])
                .is_err()
        );
    }

    #[test]
    fn instruments_combine() {
        let set = |args: &[&str]| {
            let mut v = vec!["costbench", "run"];
            v.extend_from_slice(args);
            let Command::Run(r) = Cli::try_parse_from(v).unwrap().command else {
                unreachable!()
            };
            r.measure
                .into_command(false, false)
                .unwrap()
                .measure
                .instruments
        };
        use costbench_record::instrument::Instrument::{Census, Icount, Walltime};
        let i = set(&[]);
        assert!(
            i.asked(Icount) && i.asked(Walltime) && !i.asked(Census),
            "the default = icount + walltime"
        );
        let i = set(&["--instrument", "census,walltime"]);
        assert!(i.asked(Census) && i.asked(Walltime) && !i.asked(Icount));
        let i = set(&["--instrument", "census", "--instrument", "icount"]);
        assert!(i.asked(Census) && i.asked(Icount) && !i.asked(Walltime));
        assert!(Cli::try_parse_from(["costbench", "run", "--instrument", "census,nope"]).is_err());
    }
}
