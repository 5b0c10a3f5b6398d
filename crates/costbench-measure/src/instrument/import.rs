//! Figures another harness measured, imported as an instrument's: the shape of one file of
//! rustls ci-bench's output (`CiBenchFile`: the instrument whose figure it holds, the names it
//! is written as, how its rows become that figure) and the rows it fills (`Rows`). Each file's
//! format is its instrument's, in its folder (`icount::ci_bench`, `walltime::ci_bench`); the
//! list of them is the registry's other half, `super::CI_BENCH`. Pure parsing: reading the
//! files and building the run record around the rows are `costbench import`'s, which loops over
//! the list and names no instrument.

use anyhow::Result;
use costbench_record::instrument::Instrument;
use costbench_record::model::ScenarioResult;

/// One file of rustls ci-bench's output that holds one instrument's figure.
#[derive(Debug)]
pub struct CiBenchFile {
    /// The instrument whose figure its rows are.
    pub instrument: Instrument,
    /// The names it is written as, tried in this order (the first that exists is read).
    pub names: &'static [&'static str],
    /// Reads `text` (the contents of the file named `file`, named in errors) into `rows`: one
    /// scenario per row, whose whole run is one op.
    pub read: fn(text: &str, file: &str, rows: &mut Rows) -> Result<()>,
}

/// The scenarios of an imported run, in the order the files first name them.
#[derive(Debug, Default)]
pub struct Rows(pub Vec<ScenarioResult>);

impl Rows {
    /// The result of scenario `name`, added (one op per run) the first time a file names it.
    pub fn row(&mut self, name: &str) -> &mut ScenarioResult {
        let i = match self.0.iter().position(|r| r.id == name) {
            Some(i) => i,
            None => {
                self.0
                    .push(ScenarioResult::empty(name, name, None, 1, "runs"));
                self.0.len() - 1
            }
        };
        &mut self.0[i]
    }
}
