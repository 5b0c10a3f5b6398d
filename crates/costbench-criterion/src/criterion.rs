//! [`Criterion`]: the configuration (accepted, mostly without effect) and the one costbench
//! session every benchmark goes to. Its methods that declare benchmarks (`benchmark_group`,
//! `bench_function`, `bench_with_input`) all go through a group, and live with it in `group.rs`.

use crate::measurement::{Measurement, WallTime};
use crate::profiler::Profiler;
use costbench::__compat::Session;
use std::sync::Mutex;
use std::time::Duration;

/// The session of this process: created on the first benchmark, ended by
/// [`Criterion::final_summary`] (which `criterion_main!` calls after the groups).
static SESSION: Mutex<Option<Session>> = Mutex::new(None);

/// Runs `f` on the process's session.
pub(crate) fn with_session<R>(f: impl FnOnce(&mut Session) -> R) -> R {
    let mut guard = SESSION.lock().unwrap_or_else(|p| p.into_inner());
    f(guard.get_or_insert_with(Session::from_env))
}

/// Ends the process's session: prints what the runner or the test runner expects and exits.
pub fn finish() -> ! {
    let session = SESSION.lock().unwrap_or_else(|p| p.into_inner()).take();
    session.unwrap_or_else(Session::from_env).finish()
}

/// The benchmark manager, as in criterion. Its settings are accepted for compatibility; costbench
/// decides how to sample (see the crate docs).
///
/// ```no_run
/// # extern crate costbench_criterion as criterion;
/// use criterion::Criterion;
/// let mut c = Criterion::default().sample_size(50);
/// c.bench_function("add", |b| b.iter(|| criterion::black_box(2) + 2));
/// ```
pub struct Criterion<M: Measurement = WallTime> {
    pub(crate) measurement: M,
}

impl<M: Measurement> std::fmt::Debug for Criterion<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Criterion").finish_non_exhaustive()
    }
}

impl Default for Criterion<WallTime> {
    fn default() -> Self {
        Criterion {
            measurement: WallTime,
        }
    }
}

/// How criterion would pick iteration counts (accepted, no effect).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SamplingMode {
    /// Criterion's choice.
    #[default]
    Auto,
    /// Linearly increasing iteration counts.
    Linear,
    /// The same iteration count for every sample.
    Flat,
}

/// Plotting backends (accepted, no effect: costbench draws its own charts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlottingBackend {
    /// gnuplot.
    Gnuplot,
    /// plotters.
    Plotters,
    /// No plots.
    None,
}

/// Axis scale of criterion's summary plots (accepted, no effect).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AxisScale {
    /// Linear.
    #[default]
    Linear,
    /// Logarithmic.
    Logarithmic,
}

/// criterion's plot settings of a group (accepted, no effect).
#[derive(Debug, Clone, Default)]
pub struct PlotConfiguration {}

impl PlotConfiguration {
    /// Sets the summary plots' axis scale (accepted, no effect).
    #[must_use]
    pub fn summary_scale(self, new_scale: AxisScale) -> PlotConfiguration {
        let _ = new_scale;
        self
    }
}

/// Settings that change nothing here, taken by value as criterion's builder methods are.
macro_rules! accepted {
    ($( $(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*); )*) => {
        $(
            $(#[$doc])*
            #[must_use]
            pub fn $name(self, $($arg: $ty),*) -> Criterion<M> {
                $( let _ = $arg; )*
                self
            }
        )*
    };
}

impl<M: Measurement> Criterion<M> {
    /// Measures with `m` instead of wall time. costbench measures with its own instruments, so
    /// every benchmark of this `Criterion` is refused by name when measured (and run once by
    /// `cargo test --benches`).
    pub fn with_measurement<M2: Measurement>(self, m: M2) -> Criterion<M2> {
        Criterion { measurement: m }
    }

    /// Accepted; the profiler is never started (see [`Profiler`]).
    #[must_use]
    pub fn with_profiler<P: Profiler + 'static>(self, p: P) -> Criterion<M> {
        drop(p);
        self
    }

    accepted! {
        /// Accepted, no effect: costbench takes `--samples` and `costbench.toml`.
        sample_size(n: usize);
        /// Accepted, no effect.
        warm_up_time(dur: Duration);
        /// Accepted, no effect.
        measurement_time(dur: Duration);
        /// Accepted, no effect.
        nresamples(n: usize);
        /// Accepted, no effect: costbench judges changes with its own statistics.
        noise_threshold(threshold: f64);
        /// Accepted, no effect.
        confidence_level(cl: f64);
        /// Accepted, no effect.
        significance_level(sl: f64);
        /// Accepted, no effect.
        with_plots();
        /// Accepted, no effect.
        without_plots();
        /// Accepted, no effect.
        plotting_backend(backend: PlottingBackend);
        /// Accepted, no effect.
        with_output_color(enabled: bool);
        /// Accepted, no effect: costbench keeps history in its own store.
        save_baseline(baseline: String);
        /// Accepted, no effect.
        retain_baseline(baseline: String, strict: bool);
        /// Accepted, no effect.
        profile_time(profile_time: Option<Duration>);
    }

    /// Accepted, no effect: name filters come from the command line (`cargo bench -- NAME`,
    /// `costbench run --filter`).
    #[must_use]
    pub fn with_filter<S: Into<String>>(self, filter: S) -> Criterion<M> {
        drop(filter.into());
        self
    }

    /// criterion reads its command line here; costbench reads it when the first benchmark is
    /// declared (libtest's arguments, or the runner's), so this returns `self` unchanged.
    #[must_use]
    pub fn configure_from_args(self) -> Criterion<M> {
        self
    }

    /// Ends the run (`criterion_main!` calls it after the groups): prints the listing, the
    /// smoke test's summary or the problems found, and exits the process.
    pub fn final_summary(&self) {
        finish()
    }
}
