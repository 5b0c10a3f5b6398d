//! [`Throughput`]: what one iteration of a benchmark processes, and so the scenario's op (the
//! group turns it into costbench's `Ops`; a `Measurement` formats it).

/// What one iteration of a benchmark processes; it becomes the scenario's op.
///
/// ```
/// # extern crate costbench_criterion as criterion;
/// use criterion::Throughput;
/// let t = Throughput::Bytes(4096);
/// # let _ = t;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Throughput {
    /// Bytes per iteration: the op is a byte.
    Bytes(u64),
    /// Bytes per iteration, which criterion prints in decimal units: the op is a byte.
    BytesDecimal(u64),
    /// Elements per iteration: the op is an element.
    Elements(u64),
    /// Both (criterion 0.6): the op is an element.
    ElementsAndBytes {
        /// Elements per iteration.
        elements: u64,
        /// Bytes per iteration.
        bytes: u64,
    },
}

/// The scenario's declared operations: the throughput's count and unit, else one iteration.
/// A throughput of 0 would make every per-op figure infinite: it counts as one iteration.
pub(crate) fn ops(t: Option<&Throughput>) -> costbench::Ops {
    let (n, unit) = match t {
        Some(Throughput::Bytes(n) | Throughput::BytesDecimal(n)) => (*n, "bytes"),
        Some(Throughput::Elements(n) | Throughput::ElementsAndBytes { elements: n, .. }) => {
            (*n, "elements")
        }
        None => (1, "iterations"),
    };
    if n == 0 {
        costbench::ops(1, "iterations")
    } else {
        costbench::ops(n, unit)
    }
}
