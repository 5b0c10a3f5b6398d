//! Exit codes, documented in `costbench --help` and the book (docs/reference/exit-codes.md):
//! the one place that numbers them. Which one a command returns is the command's to choose.

/// Everything asked for ran and was written.
pub const OK: i32 = 0;
/// A scenario failed, or an error stopped the run (the message says which); for `check`, also
/// an instrument asked for that could not run (without `--allow-missing-instrument`).
pub const FAILURE: i32 = 1;
/// The command line was wrong: a value, a name that does not exist, a filter that selects
/// nothing, a wrong costbench.toml ([`of_error`]).
pub const USAGE: i32 = 2;
/// `costbench check` found a significant regression, a broken hard limit, a broken budget or an
/// instrument's finding costbench.toml did not accept; `costbench run` and `costbench variants`
/// a broken budget or such a finding.
pub const REGRESSION: i32 = 3;

/// The exit code of a command that ended in `error`: [`USAGE`] when the command line was wrong
/// (a value the layers below refused as bad input, `costbench_record::error::BadInput`, or a
/// format the command does not print, `crate::output::Unsupported`), else [`FAILURE`].
pub fn of_error(error: &anyhow::Error) -> i32 {
    let usage = error.chain().any(|c| {
        c.is::<costbench_record::error::BadInput>()
            || c.is::<crate::output::Unsupported>()
            // Asking to take a run that did not finish for one that did.
            || c.is::<costbench_record::model::Unfinished>()
    });
    if usage {
        USAGE
    } else {
        FAILURE
    }
}

/// Returns early with a usage error (exit 2): `anyhow::bail!` for a wrong command line.
macro_rules! usage {
    ($($arg:tt)*) => {
        costbench_record::bad_input!($($arg)*)
    };
}
pub(crate) use usage;
