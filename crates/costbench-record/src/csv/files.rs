//! Which CSV files a run writes, in the order the output directory writes them: each
//! instrument's own file ([`Slice::csv`]) and the two that several slices fill, at the place of
//! the first of them in the registry: `counters.csv` (one line per counter, [`Slice::counters_csv`])
//! and `memory.csv` (one line per measured id, columns from [`Slice::memory_csv`]). A file is
//! written when its instruments have figures in the run (or always, for ci-bench's), and
//! removed otherwise: none is left over from an earlier run into the same directory (issue 29),
//! where a `memory.csv` beside a run.json without memory figures would read as figures of this
//! run. Loops over the registry and names no instrument.

use super::{row, text, writer};
use crate::instrument::{Instrument, Slice};
use crate::model::{RunRecord, ScenarioResult};

/// One CSV file of an output directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsvFile {
    /// The file of one instrument's own ([`Slice::csv`]).
    Own(Instrument),
    /// `counters.csv`: `name,source,counter,total,per_op`, the lines of every slice with
    /// [`Slice::counters_csv`].
    Counters,
    /// `memory.csv`: one line per measured id, the columns of every slice's
    /// [`Slice::memory_csv`].
    Memory,
}

/// What an output directory does with one CSV file of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// Write it.
    Write,
    /// Remove a file an earlier run left.
    Remove,
}

impl CsvFile {
    /// Every CSV file, in the order the output directory writes them: the registry's, a shared
    /// file at the place of its first instrument.
    pub fn all() -> Vec<CsvFile> {
        let mut files = Vec::new();
        for i in Instrument::ALL {
            let slice = i.slice();
            let mut add = |f: CsvFile| {
                if !files.contains(&f) {
                    files.push(f);
                }
            };
            if slice.csv.is_some() {
                add(CsvFile::Own(i));
            }
            if slice.counters_csv.is_some() {
                add(CsvFile::Counters);
            }
            if !slice.memory_csv.is_empty() {
                add(CsvFile::Memory);
            }
        }
        files
    }

    /// The file called `name` in an output directory, if any.
    pub fn named(name: &str) -> Option<CsvFile> {
        CsvFile::all().into_iter().find(|f| f.file_name() == name)
    }

    /// The file's name in the output directory.
    pub fn file_name(self) -> &'static str {
        match self {
            CsvFile::Own(i) => own(i).name,
            CsvFile::Counters => "counters.csv",
            CsvFile::Memory => "memory.csv",
        }
    }

    /// The instruments whose figures the file holds.
    fn instruments(self) -> impl Iterator<Item = Instrument> {
        Instrument::ALL.into_iter().filter(move |&i| {
            let slice = i.slice();
            match self {
                CsvFile::Own(own) => i == own,
                CsvFile::Counters => slice.counters_csv.is_some(),
                CsvFile::Memory => !slice.memory_csv.is_empty(),
            }
        })
    }

    /// Whether `run` writes this file: always for an instrument's own file that says so, else
    /// when some row has a figure of its instruments.
    pub fn presence(self, run: &RunRecord) -> Presence {
        let always = matches!(self, CsvFile::Own(i) if own(i).always);
        if always || run.results.iter().any(|r| self.has_line(r)) {
            Presence::Write
        } else {
            Presence::Remove
        }
    }

    /// Whether a result has figures of the file's instruments.
    fn has_line(self, r: &ScenarioResult) -> bool {
        self.instruments().any(|i| r.has_figure(i.name()))
    }

    /// The file's text for `run`.
    pub fn text(self, run: &RunRecord) -> String {
        match self {
            CsvFile::Own(i) => (own(i).text)(run),
            CsvFile::Counters => counters_csv(run),
            CsvFile::Memory => memory_csv(run),
        }
    }
}

/// The file of an instrument's own.
fn own(i: Instrument) -> &'static super::SliceFile {
    i.slice()
        .csv
        .as_ref()
        .expect("CsvFile::Own is made only for a slice with a file")
}

/// `counters.csv`: `name,source,counter,total,per_op`, for each result the lines of each slice
/// in the registry's order.
pub fn counters_csv(run: &RunRecord) -> String {
    let mut w = writer();
    row(&mut w, ["name", "source", "counter", "total", "per_op"]);
    let slices: Vec<&Slice> = CsvFile::Counters
        .instruments()
        .map(Instrument::slice)
        .collect();
    for r in &run.results {
        for lines in slices.iter().filter_map(|s| s.counters_csv) {
            for line in lines(r) {
                row(&mut w, std::iter::once(&r.id).chain(line.iter()));
            }
        }
    }
    text(w)
}

/// `memory.csv`: one line per measured id with the columns of each instrument's slice that has
/// some (empty cells when not measured).
pub fn memory_csv(run: &RunRecord) -> String {
    let mut w = writer();
    let columns: Vec<_> = CsvFile::Memory
        .instruments()
        .flat_map(|i| i.slice().memory_csv)
        .collect();
    row(
        &mut w,
        std::iter::once("name").chain(columns.iter().map(|c| c.header)),
    );
    for r in run.results.iter().filter(|r| CsvFile::Memory.has_line(r)) {
        row(
            &mut w,
            std::iter::once(r.id.clone())
                .chain(columns.iter().map(|c| (c.cell)(r).unwrap_or_default())),
        );
    }
    text(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{record, scenario, with_icount};

    /// The file named `name`.
    fn file(name: &str) -> CsvFile {
        CsvFile::named(name).unwrap_or_else(|| panic!("no {name}"))
    }

    /// Every CSV file has a snapshot of its text for the run of every figure, where that run
    /// writes it; `throughput.csv`'s is its slice's test (the run has no row under load).
    #[test]
    fn csv_snapshots() {
        use crate::testing::{assert_snapshot, every_figure};
        let run = every_figure();
        for f in CsvFile::all() {
            if f.presence(&run) == Presence::Write {
                let name = f.file_name().replace('.', "_");
                assert_snapshot!(&name, &f.text(&run));
            }
        }
    }

    /// The files keep their names and the order the output directory writes them in.
    #[test]
    fn the_files_and_their_order_stay() {
        let names: Vec<&str> = CsvFile::all().into_iter().map(CsvFile::file_name).collect();
        assert_eq!(
            names,
            [
                "icounts.csv",
                "walltime.csv",
                "counters.csv",
                "memory.csv",
                "throughput.csv"
            ]
        );
    }

    /// Issue 16: a name beginning with `"` (or holding one, or a comma) broke every CSV reader;
    /// each file now quotes such a field as CSV says, and a CSV reader reads the name back whole.
    #[test]
    fn issue_16_a_name_with_a_quote_survives_every_csv_file() {
        use crate::instrument::memory::testing::with_memory;
        use crate::testing::with_walltime;
        let odd = "\"quoted\" start, and a comma";
        let mut scenario_ = with_memory(with_walltime(scenario(odd), &[1.5, 2.0]), 3);
        scenario_.icount = with_icount(scenario(odd), 7.0).icount;
        let run = record("r", vec![scenario_, with_icount(scenario("plain"), 5.0)]);
        let mut checked = 0;
        for f in CsvFile::all() {
            if f.presence(&run) == Presence::Remove {
                continue;
            }
            checked += 1;
            let text = f.text(&run);
            let file = f.file_name();
            assert!(
                text.contains("\"\"\"quoted\"\" start, and a comma\","),
                "{file}: {text}"
            );
            let mut reader = ::csv::ReaderBuilder::new()
                .has_headers(false)
                .flexible(true)
                .from_reader(text.as_bytes());
            let names: Vec<String> = reader
                .records()
                .map(|r| r.unwrap()[0].to_string())
                .collect();
            assert!(names.iter().any(|n| n == odd), "{file}: {names:?}");
        }
        assert_eq!(checked, 3, "the run writes three files");
        assert!(
            file("icounts.csv").text(&run).contains("\nplain,"),
            "plain names stay bare"
        );
    }

    #[test]
    fn memory_csv_leaves_unmeasured_cells_empty() {
        let csv = memory_csv(&crate::instrument::memory::testing::groups());
        assert_eq!(csv.lines().count(), 3, "{csv}");
        assert!(
            csv.contains("\nalloc/wc/owned,system,2,0,0,16,160,2000,,,,\n"),
            "{csv}"
        );
        assert!(
            csv.contains("\nalloc/wc/borrowed,system,,,,,,2000,,,,\n"),
            "{csv}"
        );
    }

    /// Issue 29: a stale file of an earlier run must not stay beside this run's. A run with
    /// instruction counts alone writes ci-bench's files and removes the others.
    #[test]
    fn which_files_a_run_writes_leaves_or_removes() {
        let run = crate::testing::every_figure();
        assert_eq!(file("memory.csv").presence(&run), Presence::Write);
        assert_eq!(file("counters.csv").presence(&run), Presence::Write);
        let plain = record("r", vec![with_icount(scenario("a"), 1.0)]);
        let written: Vec<&str> = CsvFile::all()
            .into_iter()
            .filter(|f| f.presence(&plain) == Presence::Write)
            .map(CsvFile::file_name)
            .collect();
        assert_eq!(written, ["icounts.csv", "walltime.csv"]);
    }
}
