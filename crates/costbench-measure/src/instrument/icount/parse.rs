//! Reading an instruction count: the `Ir` total of a callgrind output file, per op. Pure.

use super::super::callgrind;
use super::super::shape::{Output, Parser};
use anyhow::Context;
use costbench_record::instrument::Instrument;
use costbench_record::model::{Failure, Icount};

/// The instruction count of one party from its callgrind output.
pub(crate) struct Ir;

impl Parser for Ir {
    const INSTRUMENT: Instrument = Instrument::Icount;
    type Figure = Icount;

    fn parse(&self, out: Output<'_>) -> Result<Icount, Failure> {
        out.ended_well(Self::INSTRUMENT)?;
        let ir = out
            .text("callgrind")
            .and_then(|t| {
                callgrind::total_ir(&t)
                    .with_context(|| format!("in callgrind output {}", out.path.display()))
            })
            .map_err(|e| out.failure(Self::INSTRUMENT, "no-measurement", format!("{e:#}")))?;
        Ok(Icount {
            ir,
            ir_per_op: ir as f64 / out.ops as f64,
            callgrind_out: out.kept_as,
            placement: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::shape::testing::*;
    use super::*;

    /// Recorded callgrind 3.19 output of a sort.
    const SORT: &str = include_str!("testdata/sort.callgrind.out");

    #[test]
    fn icount_reads_the_ir_total_and_divides_by_ops() {
        let expected = callgrind::total_ir(SORT).unwrap();
        let ok = ok();
        let mut out = file(&ok, 4, SORT);
        out.kept_as = "callgrind/s.out".into();
        let i = Ir.parse(out).unwrap();
        assert_eq!(i.ir, expected);
        assert_eq!(i.ir_per_op, expected as f64 / 4.0);
        assert_eq!(i.callgrind_out, "callgrind/s.out");
        assert!(i.placement.is_none());
    }

    #[test]
    fn icount_of_a_failed_child_is_its_ending() {
        let panicked = exited(101);
        let f = Ir.parse(file(&panicked, 1, SORT)).unwrap_err();
        assert_eq!(
            (f.instrument.as_str(), f.kind.as_str()),
            ("icount", "panicked")
        );
        assert_eq!(f.stderr_tail, "last lines");
        let killed = timed_out();
        let f = Ir.parse(file(&killed, 1, SORT)).unwrap_err();
        assert_eq!(f.kind, "timed-out");
        assert_eq!(f.message, "killed after 7 s (change with --timeout)");
    }

    #[test]
    fn icount_names_the_file_it_could_not_read_or_parse() {
        let ok = ok();
        let f = Ir.parse(output(&ok, 1, missing())).unwrap_err();
        assert_eq!(f.kind, "no-measurement");
        assert_eq!(f.message, "cannot read callgrind output out/.tmp: gone");
        let m = Ir.parse(file(&ok, 1, "events: Dr\n")).unwrap_err().message;
        assert!(m.starts_with("in callgrind output out/.tmp: "), "{m}");
    }
}
