//! [`Bencher`]: divan's `bench*` and `with_inputs` methods, each mapped onto costbench's measured
//! body, and the probe that learns a benchmark's counter by running its setup alone.

use crate::counter::{AnyCounter, IntoCounter};

/// The counter a probe learned, as the scenario's ops.
pub(crate) struct Counted;

impl Counted {
    /// A counter's count and unit, else one iteration (also for a count of 0, which would make
    /// every per-op figure infinite).
    pub(crate) fn ops(c: Option<AnyCounter>) -> costbench::Ops {
        match c {
            Some(c) if c.count > 0 => costbench::ops(c.count, c.unit),
            _ => costbench::ops(1, "iterations"),
        }
    }
}

enum Mode<'a, 'b> {
    /// Learning the counter: bodies are not run.
    Probe(&'b mut Option<AnyCounter>),
    Run(&'a mut costbench::Bench),
}

/// Given to a benchmark function that takes one: set a counter if you like, then call one of
/// the `bench*` methods once. What the function does before is setup, not measured.
///
/// ```no_run
/// # extern crate costbench_divan as divan;
/// use divan::{counter::BytesCount, Bencher};
///
/// #[divan::bench]
/// fn checksum(bencher: Bencher) {
///     let data = vec![7u8; 4096];
///     bencher
///         .counter(BytesCount::of_slice(&data))
///         .bench(|| data.iter().map(|&b| u32::from(b)).sum::<u32>());
/// }
/// # fn main() { divan::main() }
/// ```
pub struct Bencher<'a, 'b> {
    mode: Mode<'a, 'b>,
    counter: Option<AnyCounter>,
}

impl std::fmt::Debug for Bencher<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bencher")
            .field("counter", &self.counter)
            .finish_non_exhaustive()
    }
}

impl<'a, 'b> Bencher<'a, 'b> {
    pub(crate) fn probe(slot: &'b mut Option<AnyCounter>) -> Self {
        Bencher {
            mode: Mode::Probe(slot),
            counter: None,
        }
    }

    pub(crate) fn run(b: &'a mut costbench::Bench) -> Self {
        Bencher {
            mode: Mode::Run(b),
            counter: None,
        }
    }

    /// Declares what one run of the body processes: the op. The first counter set wins.
    pub fn counter<C: IntoCounter>(mut self, counter: C) -> Self {
        self.counter.get_or_insert(counter.into_counter());
        self
    }

    /// Measures `benched`; its output is dropped outside the measurement.
    pub fn bench<O, B: Fn() -> O + Sync>(self, benched: B) {
        self.bench_local(benched)
    }

    /// Measures `benched` (which may hold mutable state); its output is dropped outside the
    /// measurement.
    pub fn bench_local<O, B: FnMut() -> O>(self, benched: B) {
        match self.mode {
            Mode::Probe(slot) => *slot = self.counter,
            Mode::Run(b) => b.iter(benched),
        }
    }

    /// Gives the body a fresh input from `gen` each run; `gen` runs outside the measurement.
    pub fn with_inputs<I, G: FnMut() -> I>(self, gen: G) -> BencherWithInputs<'a, 'b, G> {
        BencherWithInputs {
            bencher: self,
            gen,
            input_counter: None,
        }
    }
}

/// A [`Bencher`] with an input generator, made by [`Bencher::with_inputs`].
pub struct BencherWithInputs<'a, 'b, G> {
    bencher: Bencher<'a, 'b>,
    gen: G,
    input_counter: Option<AnyCounter>,
}

impl<G> std::fmt::Debug for BencherWithInputs<'_, '_, G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BencherWithInputs")
            .field("bencher", &self.bencher)
            .finish_non_exhaustive()
    }
}

impl<'a, 'b, I, G: FnMut() -> I> BencherWithInputs<'a, 'b, G> {
    /// Declares what one run of the body processes: the op.
    pub fn counter<C: IntoCounter>(mut self, counter: C) -> Self {
        self.bencher = self.bencher.counter(counter);
        self
    }

    /// Declares the op from an input: `f` is called on one generated input (when the op is
    /// needed), outside the measurement. divan counts every input; costbench's op is per run,
    /// so inputs of different sizes average to the first one's.
    pub fn input_counter<C: IntoCounter, F: Fn(&I) -> C>(mut self, f: F) -> Self {
        if let (Mode::Probe(_), None) = (&self.bencher.mode, self.bencher.counter) {
            let input = (self.gen)();
            self.input_counter = Some(f(&input).into_counter());
        }
        self
    }

    /// Declares the op from the inputs themselves, each input being the count (divan's
    /// `with_inputs(|| n).count_inputs_as::<ItemsCount>()`); as with
    /// [`BencherWithInputs::input_counter`], the first generated input's count is the op.
    pub fn count_inputs_as<C>(self) -> Self
    where
        I: crate::counter::CountUInt,
        C: From<I> + IntoCounter,
    {
        self.input_counter(|i| C::from(*i))
    }

    fn finish_probe(self) -> Option<Self> {
        match self.bencher.mode {
            Mode::Probe(slot) => {
                *slot = self.bencher.counter.or(self.input_counter);
                None
            }
            Mode::Run(_) => Some(self),
        }
    }

    /// Measures `benched` on each input by value; the input is made, and the output dropped,
    /// outside the measurement.
    pub fn bench_values<O, B: Fn(I) -> O + Sync>(self, benched: B) {
        self.bench_local_values(benched)
    }

    /// [`BencherWithInputs::bench_values`] for a body with mutable state.
    pub fn bench_local_values<O, B: FnMut(I) -> O>(self, benched: B) {
        let Some(s) = self.finish_probe() else { return };
        if let Mode::Run(b) = s.bencher.mode {
            b.iter_with_setup(s.gen, benched)
        }
    }

    /// Measures `benched` on a mutable reference to each input; the input is made and dropped
    /// outside the measurement.
    pub fn bench_refs<O, B: Fn(&mut I) -> O + Sync>(self, benched: B) {
        self.bench_local_refs(benched)
    }

    /// [`BencherWithInputs::bench_refs`] for a body with mutable state.
    pub fn bench_local_refs<O, B: FnMut(&mut I) -> O>(self, mut benched: B) {
        let Some(s) = self.finish_probe() else { return };
        if let Mode::Run(b) = s.bencher.mode {
            b.iter_with_setup(s.gen, move |mut input| {
                let out = benched(&mut input);
                (input, out)
            })
        }
    }
}
