//! criterion's measurement traits. costbench measures with its own instruments, so only
//! [`WallTime`] (criterion's default) is honoured: a benchmark of a `Criterion` with another
//! measurement is refused by name when measured (see the crate docs).

use crate::throughput::Throughput;
use std::time::{Duration, Instant};

/// Formats measured values for criterion's reports (kept so that custom measurements compile).
pub trait ValueFormatter {
    /// Formats one value.
    fn format_value(&self, value: f64) -> String {
        let mut v = [value];
        let unit = self.scale_values(value, &mut v);
        format!("{:>6} {}", v[0], unit)
    }

    /// Formats a throughput.
    fn format_throughput(&self, throughput: &Throughput, value: f64) -> String {
        let mut v = [value];
        let unit = self.scale_throughputs(value, throughput, &mut v);
        format!("{:>6} {}", v[0], unit)
    }

    /// Scales `values` for display and names their unit.
    fn scale_values(&self, typical_value: f64, values: &mut [f64]) -> &'static str;

    /// Scales throughputs for display and names their unit.
    fn scale_throughputs(
        &self,
        typical_value: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str;

    /// Scales `values` for machine-readable output and names their unit.
    fn scale_for_machines(&self, values: &mut [f64]) -> &'static str;
}

/// What criterion measures a benchmark with.
pub trait Measurement {
    /// A reading taken when a measurement starts.
    type Intermediate;
    /// A measured value.
    type Value;
    /// Starts a measurement.
    fn start(&self) -> Self::Intermediate;
    /// Ends it.
    fn end(&self, i: Self::Intermediate) -> Self::Value;
    /// Adds two values.
    fn add(&self, v1: &Self::Value, v2: &Self::Value) -> Self::Value;
    /// The zero value.
    fn zero(&self) -> Self::Value;
    /// A value as a number.
    fn to_f64(&self, value: &Self::Value) -> f64;
    /// The formatter of values.
    fn formatter(&self) -> &dyn ValueFormatter;

    /// A value as a duration, for a measurement costbench can take (wall time); `None` for
    /// any other, whose benchmarks costbench refuses. Not part of criterion's trait.
    #[doc(hidden)]
    fn __as_duration(&self, _value: &Self::Value) -> Option<Duration> {
        None
    }
}

/// Wall time: criterion's default measurement, and the only one costbench honours.
#[derive(Debug, Clone, Copy, Default)]
pub struct WallTime;

struct DurationFormatter;

impl ValueFormatter for DurationFormatter {
    fn scale_values(&self, ns: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = if ns < 1e3 {
            (1.0, "ns")
        } else if ns < 1e6 {
            (1e-3, "µs")
        } else if ns < 1e9 {
            (1e-6, "ms")
        } else {
            (1e-9, "s")
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }

    fn scale_throughputs(&self, ns: f64, t: &Throughput, values: &mut [f64]) -> &'static str {
        let (per, unit) = match t {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) => (*n, "B/s"),
            Throughput::Elements(n) | Throughput::ElementsAndBytes { elements: n, .. } => {
                (*n, "elem/s")
            }
        };
        let _ = ns;
        values
            .iter_mut()
            .for_each(|v| *v = per as f64 * 1e9 / v.max(f64::MIN_POSITIVE));
        unit
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

impl Measurement for WallTime {
    type Intermediate = Instant;
    type Value = Duration;

    fn start(&self) -> Instant {
        Instant::now()
    }

    fn end(&self, i: Instant) -> Duration {
        i.elapsed()
    }

    fn add(&self, v1: &Duration, v2: &Duration) -> Duration {
        *v1 + *v2
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        &DurationFormatter
    }

    fn __as_duration(&self, value: &Duration) -> Option<Duration> {
        Some(*value)
    }
}
