//! [`BenchmarkGroup`] and [`BenchmarkId`]: how a criterion benchmark gets its costbench id and
//! op ([`Throughput`]'s), and where its closure is handed to the session; also [`Criterion`]'s
//! methods that declare benchmarks, since each is a group.

use crate::bencher::Bencher;
use crate::criterion::{with_session, Criterion, PlotConfiguration, SamplingMode};
use crate::measurement::Measurement;
use crate::throughput::{ops, Throughput};
use std::fmt::Display;
use std::time::Duration;

/// A benchmark's id within its group: a function name, a parameter, or both.
///
/// ```
/// # extern crate costbench_criterion as criterion;
/// use criterion::BenchmarkId;
/// let id = BenchmarkId::new("sort", 1000);
/// let p = BenchmarkId::from_parameter("1 KiB");
/// # let _ = (id, p);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchmarkId {
    function: Option<String>,
    parameter: Option<String>,
}

impl BenchmarkId {
    /// The id `function_name/parameter`.
    pub fn new<S: Into<String>, P: Display>(function_name: S, parameter: P) -> BenchmarkId {
        BenchmarkId {
            function: Some(function_name.into()),
            parameter: Some(parameter.to_string()),
        }
    }

    /// The id `parameter`, for groups whose benchmarks differ by input only.
    pub fn from_parameter<P: Display>(parameter: P) -> BenchmarkId {
        BenchmarkId {
            function: None,
            parameter: Some(parameter.to_string()),
        }
    }

    pub(crate) fn into_parts(self) -> (Option<String>, Option<String>) {
        (self.function, self.parameter)
    }
}

/// What a group's `bench_function` and `bench_with_input` take as an id: a [`BenchmarkId`] or
/// a function name.
pub trait IntoBenchmarkId {
    /// The id.
    fn into_benchmark_id(self) -> BenchmarkId;
}

impl IntoBenchmarkId for BenchmarkId {
    fn into_benchmark_id(self) -> BenchmarkId {
        self
    }
}

impl<S: Into<String>> IntoBenchmarkId for S {
    fn into_benchmark_id(self) -> BenchmarkId {
        BenchmarkId {
            function: Some(self.into()),
            parameter: None,
        }
    }
}

/// The part of an id below the group.
#[derive(Debug, Default)]
pub(crate) struct Id {
    function: Option<String>,
    parameter: Option<String>,
}

impl Id {
    /// Criterion's top-level `bench_function`: the group's name is the whole id.
    pub(crate) fn no_function() -> Id {
        Id::default()
    }

    pub(crate) fn parameter_only(parameter: Option<String>) -> Id {
        Id {
            function: None,
            parameter,
        }
    }
}

impl From<BenchmarkId> for Id {
    fn from(id: BenchmarkId) -> Id {
        Id {
            function: id.function,
            parameter: id.parameter,
        }
    }
}

/// Criterion's full id, `group/function/parameter` without the parts that are absent. costbench
/// ids cannot hold a comma (its CSV has none) nor control characters: those become `;` and ` `.
pub(crate) fn full_id(group: &str, id: &Id) -> String {
    let mut s = group.to_string();
    for part in [&id.function, &id.parameter].into_iter().flatten() {
        s.push('/');
        s.push_str(part);
    }
    s.chars()
        .map(|c| match c {
            ',' => ';',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect::<String>()
        .trim()
        .to_string()
}

/// A group of related benchmarks sharing a name prefix and a throughput.
///
/// ```no_run
/// # extern crate costbench_criterion as criterion;
/// use criterion::{BenchmarkId, Criterion, Throughput};
/// let mut c = Criterion::default();
/// let mut group = c.benchmark_group("parse");
/// for len in [16usize, 1024] {
///     let text = "7".repeat(len);
///     group.throughput(Throughput::Bytes(len as u64));
///     group.bench_with_input(BenchmarkId::new("digits", len), &text, |b, t| {
///         b.iter(|| t.bytes().filter(u8::is_ascii_digit).count())
///     });
/// }
/// group.finish();
/// ```
pub struct BenchmarkGroup<'a, M: Measurement> {
    criterion: &'a mut Criterion<M>,
    name: String,
    throughput: Option<Throughput>,
}

impl<M: Measurement> std::fmt::Debug for BenchmarkGroup<'_, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BenchmarkGroup")
            .field("name", &self.name)
            .field("throughput", &self.throughput)
            .finish_non_exhaustive()
    }
}

/// Group settings that change nothing here, taken and returned by reference as criterion's are.
macro_rules! accepted {
    ($( $(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*); )*) => {
        $(
            $(#[$doc])*
            pub fn $name(&mut self, $($arg: $ty),*) -> &mut Self {
                $( let _ = $arg; )*
                self
            }
        )*
    };
}

impl<'a, M: Measurement> BenchmarkGroup<'a, M> {
    pub(crate) fn new(criterion: &'a mut Criterion<M>, name: String) -> Self {
        BenchmarkGroup {
            criterion,
            name,
            throughput: None,
        }
    }

    /// What one iteration of the following benchmarks processes: their op.
    pub fn throughput(&mut self, throughput: Throughput) -> &mut Self {
        self.throughput = Some(throughput);
        self
    }

    accepted! {
        /// Accepted, no effect (see the crate docs).
        sample_size(n: usize);
        /// Accepted, no effect.
        warm_up_time(dur: Duration);
        /// Accepted, no effect.
        measurement_time(dur: Duration);
        /// Accepted, no effect.
        nresamples(n: usize);
        /// Accepted, no effect.
        noise_threshold(threshold: f64);
        /// Accepted, no effect.
        confidence_level(cl: f64);
        /// Accepted, no effect.
        significance_level(sl: f64);
        /// Accepted, no effect.
        sampling_mode(new_mode: SamplingMode);
        /// Accepted, no effect.
        plot_config(new_config: PlotConfiguration);
    }

    /// One benchmark, with the id `group/id`.
    pub fn bench_function<ID: IntoBenchmarkId, F>(&mut self, id: ID, mut f: F) -> &mut Self
    where
        F: FnMut(&mut Bencher<'_, M>),
    {
        self.run(id.into_benchmark_id().into(), None::<&()>, |b, _| f(b));
        self
    }

    /// One benchmark given `input`, with the id `group/id`.
    pub fn bench_with_input<ID: IntoBenchmarkId, F, I>(
        &mut self,
        id: ID,
        input: &I,
        mut f: F,
    ) -> &mut Self
    where
        F: FnMut(&mut Bencher<'_, M>, &I),
        I: ?Sized,
    {
        self.run(id.into_benchmark_id().into(), Some(input), |b, i| {
            f(b, i.expect("given"))
        });
        self
    }

    /// Ends the group (criterion prints its summary here; costbench reports per run).
    pub fn finish(self) {}

    pub(crate) fn run<I: ?Sized, F>(&mut self, id: Id, input: Option<&I>, mut f: F)
    where
        F: FnMut(&mut Bencher<'_, M>, Option<&I>),
    {
        let name = full_id(&self.name, &id);
        let ops = ops(self.throughput.as_ref());
        let measurement = &self.criterion.measurement;
        with_session(|session| {
            session.bench(&name, ops, &mut |b| {
                let mut bencher = Bencher::new(b, measurement);
                f(&mut bencher, input);
            })
        });
    }
}

/// The benchmarks declared on a [`Criterion`] itself: each is a group of one.
impl<M: Measurement> Criterion<M> {
    /// Starts a group of benchmarks named `group/...`.
    pub fn benchmark_group<S: Into<String>>(&mut self, group_name: S) -> BenchmarkGroup<'_, M> {
        BenchmarkGroup::new(self, group_name.into())
    }

    /// One benchmark with the id `id`.
    pub fn bench_function<F>(&mut self, id: &str, mut f: F) -> &mut Criterion<M>
    where
        F: FnMut(&mut Bencher<'_, M>),
    {
        self.benchmark_group(id)
            .run(Id::no_function(), None::<&()>, |b, _| f(b));
        self
    }

    /// One benchmark with the id `function/parameter`, given `input`.
    ///
    /// # Panics
    /// When `id` was made with [`BenchmarkId::from_parameter`], as criterion does: use
    /// [`BenchmarkId::new`] here, or a group.
    pub fn bench_with_input<F, I>(&mut self, id: BenchmarkId, input: &I, mut f: F) -> &mut Self
    where
        F: FnMut(&mut Bencher<'_, M>, &I),
    {
        let (function, parameter) = id.into_parts();
        let group = function.expect(
            "Cannot use BenchmarkId::from_parameter with Criterion::bench_with_input. \
             Consider using a BenchmarkGroup or BenchmarkId::new instead.",
        );
        self.benchmark_group(group)
            .run(Id::parameter_only(parameter), Some(input), |b, i| {
                f(b, i.expect("given"))
            });
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_criterions() {
        let id = |g: &str, f: Option<&str>, p: Option<&str>| {
            full_id(
                g,
                &Id {
                    function: f.map(str::to_string),
                    parameter: p.map(str::to_string),
                },
            )
        };
        assert_eq!(id("fib 20", None, None), "fib 20");
        assert_eq!(id("sort", Some("std"), Some("1000")), "sort/std/1000");
        assert_eq!(id("sort", None, Some("1000")), "sort/1000");
        assert_eq!(id("g", Some("f"), None), "g/f");
        assert_eq!(id("tuple", None, Some("(1, 2)")), "tuple/(1; 2)");
    }

    #[test]
    fn the_op_is_the_throughput_else_an_iteration() {
        let o = ops(Some(&Throughput::Bytes(4096)));
        assert_eq!((o.count(), o.unit()), (4096, "bytes"));
        let o = ops(Some(&Throughput::BytesDecimal(10)));
        assert_eq!((o.count(), o.unit()), (10, "bytes"));
        let o = ops(Some(&Throughput::Elements(7)));
        assert_eq!((o.count(), o.unit()), (7, "elements"));
        let o = ops(Some(&Throughput::ElementsAndBytes {
            elements: 3,
            bytes: 9,
        }));
        assert_eq!((o.count(), o.unit()), (3, "elements"));
        let o = ops(None);
        assert_eq!((o.count(), o.unit()), (1, "iterations"));
        let o = ops(Some(&Throughput::Elements(0)));
        assert_eq!((o.count(), o.unit()), (1, "iterations"));
    }
}
