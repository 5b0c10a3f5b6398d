//! The scenario binary's entry point, [`Suite::main`]: checks the registered scenarios, then
//! answers the costbench runner (`--costbench-child`, [`crate::child`]) or a test runner
//! (`cargo test --benches`, `cargo bench`, `cargo nextest`: [`crate::harness`]).

use crate::suite::Suite;
use costbench_protocol::{CHILD_FLAG, EXIT_SCENARIO_MISUSE};

impl Suite {
    /// Runs the suite as the scenario binary's `main` and exits the process.
    ///
    /// Under `costbench run` it answers the runner. Under `cargo bench` it measures every
    /// scenario's wall time in process and prints a table (an optional argument filters by
    /// substring). Run any other way (`cargo test --benches`, `cargo nextest run --benches`) it
    /// runs every scenario once and reports which panicked; it takes libtest's arguments.
    ///
    /// ```no_run
    /// let mut suite = costbench::Suite::new();
    /// suite.bench("noop", costbench::ops(1, "calls"), |b| b.iter(|| ()));
    /// suite.main();
    /// ```
    pub fn main(self) -> ! {
        let args: Vec<String> = std::env::args().skip(1).collect();
        std::process::exit(dispatch(&self, &args))
    }
}

fn dispatch(suite: &Suite, args: &[String]) -> i32 {
    let errors = suite.validate();
    if !errors.is_empty() {
        for e in &errors {
            eprintln!("costbench: {e}");
        }
        return EXIT_SCENARIO_MISUSE;
    }
    match args.split_first() {
        Some((first, rest)) if first == CHILD_FLAG => crate::child::serve(suite, rest),
        _ => crate::harness::run(suite, args),
    }
}
