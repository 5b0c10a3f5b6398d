//! [`Bencher`]: criterion's `iter*` methods, each mapped onto costbench's measured body, and
//! [`AsyncBencher`] for `to_async`.

use crate::measurement::{Measurement, WallTime};
use std::future::Future;

/// How many inputs criterion would prepare per batch in `iter_batched` (accepted, no effect:
/// costbench prepares every input outside the measurement and drops it outside too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BatchSize {
    /// Inputs small enough to prepare many at once.
    SmallInput,
    /// Larger inputs.
    LargeInput,
    /// One input per batch.
    PerIteration,
    /// This many batches per sample.
    NumBatches(u64),
    /// This many iterations per batch.
    NumIterations(u64),
}

/// Given to a benchmark's closure: call one of its `iter*` methods once. What the closure does
/// before is setup, not measured.
///
/// ```no_run
/// # extern crate costbench_criterion as criterion;
/// use criterion::{BatchSize, Criterion};
/// let mut c = Criterion::default();
/// c.bench_function("sort", |b| {
///     let data: Vec<u32> = (0..1000).rev().collect();
///     b.iter_batched(|| data.clone(), |mut v| { v.sort(); v }, BatchSize::SmallInput)
/// });
/// ```
pub struct Bencher<'a, M: Measurement = WallTime> {
    inner: &'a mut costbench::Bench,
    measurement: &'a M,
}

impl<M: Measurement> std::fmt::Debug for Bencher<'_, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bencher")
            .field("benchmark", &self.inner.name())
            .finish_non_exhaustive()
    }
}

const CUSTOM_MEASUREMENT: &str =
    "uses a custom criterion Measurement (Criterion::with_measurement), \
    which costbench cannot take: it measures with its own instruments (instructions, wall time, \
    memory); give this benchmark's group a Criterion::default() to have it measured";

impl<'a, M: Measurement> Bencher<'a, M> {
    pub(crate) fn new(inner: &'a mut costbench::Bench, measurement: &'a M) -> Self {
        Bencher { inner, measurement }
    }

    /// Whether the measurement is one costbench cannot take.
    fn custom(&self) -> bool {
        let m = self.measurement;
        m.__as_duration(&m.zero()).is_none()
    }

    /// Measures `routine`; its output is dropped outside the measurement.
    pub fn iter<O, R>(&mut self, mut routine: R)
    where
        R: FnMut() -> O,
    {
        if self.custom() {
            return self
                .inner
                .__unsupported(CUSTOM_MEASUREMENT, || drop(routine()));
        }
        self.inner.iter(routine)
    }

    /// Measures `routine` on a fresh input from `setup` (not measured) each time.
    pub fn iter_with_setup<I, O, S, R>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        self.iter_batched(setup, routine, BatchSize::PerIteration)
    }

    /// Measures `routine`; its output, however large, is dropped outside the measurement.
    pub fn iter_with_large_drop<O, R>(&mut self, routine: R)
    where
        R: FnMut() -> O,
    {
        self.iter(routine)
    }

    /// Measures `routine` on inputs made by `setup`; setup, input and output drops are outside
    /// the measurement whatever `size` says.
    pub fn iter_batched<I, O, S, R>(&mut self, mut setup: S, mut routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> O,
    {
        let _ = size;
        if self.custom() {
            return self
                .inner
                .__unsupported(CUSTOM_MEASUREMENT, || drop(routine(setup())));
        }
        self.inner.iter_with_setup(setup, routine)
    }

    /// Like [`Bencher::iter_batched`] with the routine borrowing its input; the input is dropped
    /// outside the measurement.
    pub fn iter_batched_ref<I, O, S, R>(&mut self, setup: S, mut routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(&mut I) -> O,
    {
        self.iter_batched(
            setup,
            move |mut input| {
                let out = routine(&mut input);
                (input, out)
            },
            size,
        )
    }

    /// A routine that times itself: `routine(n)` runs `n` iterations and returns how long they
    /// took. Only costbench's wall time can take that: the other instruments refuse the
    /// benchmark with a message naming it.
    pub fn iter_custom<R>(&mut self, mut routine: R)
    where
        R: FnMut(u64) -> M::Value,
    {
        let m = self.measurement;
        if self.custom() {
            return self
                .inner
                .__unsupported(CUSTOM_MEASUREMENT, || drop(routine(1)));
        }
        self.inner.__iter_custom(|n| {
            m.__as_duration(&routine(n))
                .expect("a wall-time measurement's value is a duration")
        })
    }

    /// Runs the routines of the returned [`AsyncBencher`] on `runner`: each iteration under its
    /// `block_on`, whose own cost is counted with the routine's.
    pub fn to_async<'b, A: async_executor::AsyncExecutor>(
        &'b mut self,
        runner: A,
    ) -> AsyncBencher<'a, 'b, A, M> {
        AsyncBencher { b: self, runner }
    }
}

/// [`Bencher`] for async routines, made by [`Bencher::to_async`].
pub struct AsyncBencher<'a, 'b, A: async_executor::AsyncExecutor, M: Measurement = WallTime> {
    b: &'b mut Bencher<'a, M>,
    runner: A,
}

impl<A: async_executor::AsyncExecutor, M: Measurement> std::fmt::Debug
    for AsyncBencher<'_, '_, A, M>
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncBencher")
            .field("bencher", &self.b)
            .finish_non_exhaustive()
    }
}

impl<A: async_executor::AsyncExecutor, M: Measurement> AsyncBencher<'_, '_, A, M> {
    /// Measures the future `routine` makes, run to completion.
    pub fn iter<O, R, F>(&mut self, mut routine: R)
    where
        R: FnMut() -> F,
        F: Future<Output = O>,
    {
        let runner = &self.runner;
        self.b.iter(|| runner.block_on(routine()))
    }

    /// As [`Bencher::iter_with_large_drop`].
    pub fn iter_with_large_drop<O, R, F>(&mut self, routine: R)
    where
        R: FnMut() -> F,
        F: Future<Output = O>,
    {
        self.iter(routine)
    }

    /// As [`Bencher::iter_batched`].
    pub fn iter_batched<I, O, S, R, F>(&mut self, setup: S, mut routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> F,
        F: Future<Output = O>,
    {
        let runner = &self.runner;
        self.b
            .iter_batched(setup, |i| runner.block_on(routine(i)), size)
    }

    /// As [`Bencher::iter_with_setup`].
    pub fn iter_with_setup<I, O, S, R, F>(&mut self, setup: S, routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> F,
        F: Future<Output = O>,
    {
        self.iter_batched(setup, routine, BatchSize::PerIteration)
    }

    /// As [`Bencher::iter_batched_ref`].
    pub fn iter_batched_ref<I, O, S, R, F>(&mut self, setup: S, mut routine: R, size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(&mut I) -> F,
        F: Future<Output = O>,
    {
        let runner = &self.runner;
        self.b.iter_batched(
            setup,
            |mut i| {
                let out = runner.block_on(routine(&mut i));
                (i, out)
            },
            size,
        )
    }

    /// As [`Bencher::iter_custom`]: wall time only.
    pub fn iter_custom<R, F>(&mut self, mut routine: R)
    where
        R: FnMut(u64) -> F,
        F: Future<Output = M::Value>,
    {
        let runner = &self.runner;
        self.b.iter_custom(|n| runner.block_on(routine(n)))
    }
}

/// Executors for [`Bencher::to_async`].
pub mod async_executor {
    use std::future::Future;
    use std::pin::pin;
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};
    use std::thread::Thread;

    /// Something that runs a future to completion.
    pub trait AsyncExecutor {
        /// Runs `future` to completion on this thread.
        fn block_on<T>(&self, future: impl Future<Output = T>) -> T;
    }

    impl<E: AsyncExecutor> AsyncExecutor for &E {
        fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
            (**self).block_on(future)
        }
    }

    /// A minimal executor on the current thread (criterion's is the `futures` crate's; this one
    /// needs no dependency): polls, and parks the thread until woken.
    ///
    /// ```
    /// # extern crate costbench_criterion as criterion;
    /// use criterion::async_executor::{AsyncExecutor, FuturesExecutor};
    /// assert_eq!(FuturesExecutor.block_on(async { 40 + 2 }), 42);
    /// ```
    #[derive(Debug, Clone, Copy, Default)]
    pub struct FuturesExecutor;

    struct Unpark(Thread);

    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }

    impl AsyncExecutor for FuturesExecutor {
        fn block_on<T>(&self, future: impl Future<Output = T>) -> T {
            let mut future = pin!(future);
            let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
            let mut cx = Context::from_waker(&waker);
            loop {
                if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
                    return v;
                }
                std::thread::park();
            }
        }
    }
}
