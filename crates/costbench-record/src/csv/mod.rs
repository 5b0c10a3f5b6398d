//! The CSV tables of an output directory, as text: what every file shares (a writer that
//! quotes as CSV says, [`writer`], [`row`], [`text`]) and what an instrument's slice gives to
//! them ([`SliceFile`], a file of its own; [`CounterRow`], its lines of `counters.csv`).
//! Which files a run writes, and the files several slices share, are [`files`]'s, which loops
//! over the registry. They are not a format of the output layer (`costbench_report::render`):
//! the measuring crate rewrites them after every scenario, below the report crate, and no
//! command prints them. The output directory ([`crate::output::OutputDir`]) writes them; this
//! module only renders text and must not touch files.

pub mod files;

use crate::model::RunRecord;

/// A CSV file of one instrument's own, named in its slice
/// ([`Slice::csv`](crate::instrument::Slice::csv)).
#[derive(Debug)]
pub struct SliceFile {
    /// The file's name in the output directory.
    pub name: &'static str,
    /// Whether every run writes it (ci-bench's files); otherwise a run writes it when some row
    /// has its instrument's figure and removes one an earlier run left (issue 29).
    pub always: bool,
    /// The file's text for a run.
    pub text: fn(&RunRecord) -> String,
}

/// One line of `counters.csv` after the result's id: the source (`simulated`, `hardware`),
/// the counter, its total and its value per op.
pub type CounterRow = [String; 4];

/// A CSV writer into memory (the `csv` crate): fields quoted only where CSV needs it (a comma, a
/// quote, a line break), which leaves every file byte for byte as ci-bench writes it unless a
/// name needs quoting; rows of any length (a file may have one column per sample).
pub fn writer() -> ::csv::Writer<Vec<u8>> {
    ::csv::WriterBuilder::new()
        .flexible(true)
        .from_writer(Vec::new())
}

/// Writes one row; writing into memory cannot fail.
pub fn row<I, F>(w: &mut ::csv::Writer<Vec<u8>>, fields: I)
where
    I: IntoIterator<Item = F>,
    F: AsRef<[u8]>,
{
    w.write_record(fields)
        .expect("a CSV row is written into memory");
}

/// The text written: UTF-8, since every field was a `str`.
pub fn text(w: ::csv::Writer<Vec<u8>>) -> String {
    let bytes = w.into_inner().expect("a CSV flush into memory cannot fail");
    String::from_utf8(bytes).expect("CSV of UTF-8 fields is UTF-8")
}
