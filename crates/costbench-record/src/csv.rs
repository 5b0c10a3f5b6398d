//! The CSV tables of an output directory (`icounts.csv`, `walltime.csv`, `counters.csv`,
//! `memory.csv`, `throughput.csv`): the run record as CSV, one [`CsvFile`] each, and when each
//! file is written. They are not a format of the output layer (`costbench_report::render`): the
//! measuring crate rewrites them after every scenario, below the report crate, and no command
//! prints them. The output directory
//! ([`crate::output::OutputDir`]) writes them; this module only renders text and must not touch
//! files.

use crate::instrument::Instrument;
use crate::model::{RunRecord, ScenarioResult};

/// One CSV file of an output directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsvFile {
    /// `icounts.csv`.
    Icounts,
    /// `walltime.csv`.
    Walltime,
    /// `counters.csv`.
    Counters,
    /// `memory.csv`.
    Memory,
    /// `throughput.csv`.
    Throughput,
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
    /// Every CSV file, in the order the output directory writes them.
    pub const ALL: [CsvFile; 5] = [
        CsvFile::Icounts,
        CsvFile::Walltime,
        CsvFile::Counters,
        CsvFile::Memory,
        CsvFile::Throughput,
    ];

    /// The file's name in the output directory.
    pub fn file_name(self) -> &'static str {
        match self {
            CsvFile::Icounts => "icounts.csv",
            CsvFile::Walltime => "walltime.csv",
            CsvFile::Counters => "counters.csv",
            CsvFile::Memory => "memory.csv",
            CsvFile::Throughput => "throughput.csv",
        }
    }

    /// Whether `run` writes this file. Instruction counts and wall time always (ci-bench's
    /// files); counters, memory and throughput only when some row has their figures. None of
    /// them is left over from an earlier run into the same directory (issue 29): a `memory.csv`
    /// beside a run.json without memory figures would read as figures of this run.
    pub fn presence(self, run: &RunRecord) -> Presence {
        let any = |f: fn(&crate::model::ScenarioResult) -> bool| run.results.iter().any(f);
        match self {
            CsvFile::Icounts | CsvFile::Walltime => Presence::Write,
            CsvFile::Counters
                if any(|r| r.counters.cache.is_some() || r.counters.perf.is_some()) =>
            {
                Presence::Write
            }
            CsvFile::Memory if run.results.iter().any(has_memory_columns) => Presence::Write,
            CsvFile::Throughput if any(|r| r.throughput.is_some()) => Presence::Write,
            CsvFile::Counters | CsvFile::Memory | CsvFile::Throughput => Presence::Remove,
        }
    }

    /// The file's text for `run`.
    pub fn text(self, run: &RunRecord) -> String {
        match self {
            CsvFile::Icounts => icounts_csv(run),
            CsvFile::Walltime => walltime_csv(run),
            CsvFile::Counters => counters_csv(run),
            CsvFile::Memory => memory_csv(run),
            CsvFile::Throughput => throughput_csv(run),
        }
    }
}

/// A CSV writer into memory (the `csv` crate): fields quoted only where CSV needs it (a comma, a
/// quote, a line break), which leaves every file byte for byte as ci-bench writes it unless a
/// name needs quoting; rows of any length (`walltime.csv` has one column per sample).
fn csv_writer() -> ::csv::Writer<Vec<u8>> {
    ::csv::WriterBuilder::new()
        .flexible(true)
        .from_writer(Vec::new())
}

/// Writes one row; writing into memory cannot fail.
fn csv_row<I, F>(w: &mut ::csv::Writer<Vec<u8>>, row: I)
where
    I: IntoIterator<Item = F>,
    F: AsRef<[u8]>,
{
    w.write_record(row)
        .expect("a CSV row is written into memory");
}

/// The text written: UTF-8, since every field was a `str`.
fn csv_text(w: ::csv::Writer<Vec<u8>>) -> String {
    let bytes = w.into_inner().expect("a CSV flush into memory cannot fail");
    String::from_utf8(bytes).expect("CSV of UTF-8 fields is UTF-8")
}

/// `name,count` per measured id, as rustls's ci-bench writes it (names hold no commas: the
/// library refuses them; a name with a quote in it is quoted, as CSV says).
pub fn icounts_csv(run: &RunRecord) -> String {
    let mut w = csv_writer();
    for r in &run.results {
        if let Some(ic) = &r.icount {
            csv_row(&mut w, [r.id.clone(), ic.ir.to_string()]);
        }
    }
    csv_text(w)
}

/// `name,ns_1,...,ns_N`: per-iteration nanoseconds of each sample.
pub fn walltime_csv(run: &RunRecord) -> String {
    let mut w = csv_writer();
    for r in &run.results {
        if let Some(wt) = &r.walltime {
            let row = std::iter::once(r.id.clone()).chain(
                wt.iteration_ns
                    .iter()
                    .map(|ns| ((ns * 1000.0).round() / 1000.0).to_string()),
            );
            csv_row(&mut w, row);
        }
    }
    csv_text(w)
}

/// `counters.csv`: `name,source,counter,total,per_op`, where source is `simulated` (callgrind's
/// model) or `hardware` (perf_event_open; total scaled for multiplexing).
pub fn counters_csv(run: &RunRecord) -> String {
    let mut w = csv_writer();
    csv_row(&mut w, ["name", "source", "counter", "total", "per_op"]);
    for r in &run.results {
        if let Some(c) = &r.counters.cache {
            for (k, v) in &c.totals {
                let row = [
                    &r.id,
                    "simulated",
                    k,
                    &v.to_string(),
                    &c.per_op[k].to_string(),
                ];
                csv_row(&mut w, row);
            }
        }
        if let Some(p) = &r.counters.perf {
            for c in &p.counters {
                let row = [
                    &r.id,
                    "hardware",
                    &c.name,
                    &c.scaled.to_string(),
                    &c.per_op.to_string(),
                ];
                csv_row(&mut w, row);
            }
            if let Some(ipc) = p.ipc {
                let ipc = ipc.to_string();
                csv_row(&mut w, [&r.id, "hardware", "ipc", &ipc, &ipc]);
            }
        }
    }
    csv_text(w)
}

/// The instruments that add columns to `memory.csv` (their slices' `memory_csv`), in the
/// registry's order.
fn memory_slices() -> impl Iterator<Item = Instrument> {
    Instrument::ALL
        .into_iter()
        .filter(|i| !i.slice().memory_csv.is_empty())
}

/// Whether a result has a line in `memory.csv`: a figure of an instrument with columns there.
fn has_memory_columns(r: &ScenarioResult) -> bool {
    memory_slices().any(|i| r.has_figure(i.name()))
}

/// `memory.csv`: one line per measured id with the columns of each instrument's slice that has
/// some (empty cells when not measured).
pub fn memory_csv(run: &RunRecord) -> String {
    let mut w = csv_writer();
    let columns: Vec<_> = memory_slices().flat_map(|i| i.slice().memory_csv).collect();
    csv_row(
        &mut w,
        std::iter::once("name").chain(columns.iter().map(|c| c.header)),
    );
    for r in run.results.iter().filter(|r| has_memory_columns(r)) {
        csv_row(
            &mut w,
            std::iter::once(r.id.clone())
                .chain(columns.iter().map(|c| (c.cell)(r).unwrap_or_default())),
        );
    }
    csv_text(w)
}

/// `throughput.csv`: one line per service scenario under load from one number of clients (the
/// rows `SCENARIO@Nc` of `--instrument throughput`): the load (`closed` or `open`, with the rate
/// asked for), ops per second over all clients with its repeat interval, latency percentiles in
/// nanoseconds and the requests measured. Empty cells where a figure is absent (no target rate in
/// a closed loop, no interval with fewer than 3 rounds). Rows without throughput figures (a
/// failed load) are left out, as other files leave out what was not measured.
pub fn throughput_csv(run: &RunRecord) -> String {
    // Three decimals, as walltime.csv: rates and latencies are means and HDR bucket values, not
    // exact to more.
    let num = |v: f64| ((v * 1000.0).round() / 1000.0).to_string();
    let opt = |v: Option<f64>| v.map(num).unwrap_or_default();
    let mut w = csv_writer();
    csv_row(
        &mut w,
        [
            "id",
            "scenario",
            "clients",
            "load",
            "target_rate",
            "ops_per_sec",
            "ops_per_sec_low",
            "ops_per_sec_high",
            "p50_ns",
            "p90_ns",
            "p99_ns",
            "p999_ns",
            "max_ns",
            "requests",
        ],
    );
    for r in &run.results {
        let Some(t) = &r.throughput else {
            continue;
        };
        let repeat = t.ops_per_sec_repeat.as_ref();
        let l = &t.latency;
        csv_row(
            &mut w,
            [
                r.id.clone(),
                r.scenario.clone(),
                t.clients.to_string(),
                t.load.clone(),
                opt(t.target_rate),
                num(t.ops_per_sec),
                opt(repeat.map(|i| i.low)),
                opt(repeat.map(|i| i.high)),
                num(l.p50_ns),
                num(l.p90_ns),
                num(l.p99_ns),
                num(l.p999_ns),
                num(l.max_ns),
                t.requests.to_string(),
            ],
        );
    }
    csv_text(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{record, scenario, with_icount};

    /// Issue 16: a name beginning with `"` (or holding one, or a comma) broke every CSV reader;
    /// each file now quotes such a field as CSV says, and a CSV reader reads the name back whole.
    #[test]
    fn issue_16_a_name_with_a_quote_survives_every_csv_file() {
        use crate::testing::{with_memory, with_walltime};
        let odd = "\"quoted\" start, and a comma";
        let mut scenario_ = with_memory(with_walltime(scenario(odd), &[1.5, 2.0]), 3);
        scenario_.icount = with_icount(scenario(odd), 7.0).icount;
        let run = record("r", vec![scenario_, with_icount(scenario("plain"), 5.0)]);
        for (file, text) in [
            ("icounts.csv", icounts_csv(&run)),
            ("walltime.csv", walltime_csv(&run)),
            ("memory.csv", memory_csv(&run)),
        ] {
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
        assert!(
            icounts_csv(&run).contains("\nplain,"),
            "plain names stay bare"
        );
    }

    #[test]
    fn csv_snapshots() {
        use crate::testing::{assert_snapshot, every_figure};
        let run = every_figure();
        assert_snapshot!("icounts_csv", &icounts_csv(&run));
        assert_snapshot!("walltime_csv", &walltime_csv(&run));
        assert_snapshot!("counters_csv", &counters_csv(&run));
        assert_snapshot!("memory_csv", &memory_csv(&run));
        assert_snapshot!(
            "throughput_csv",
            &throughput_csv(&crate::testing::service_run())
        );
    }

    #[test]
    fn throughput_csv_has_a_row_per_load_and_empty_cells_where_absent() {
        let csv = throughput_csv(&crate::testing::service_run());
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines[0],
            "id,scenario,clients,load,target_rate,ops_per_sec,ops_per_sec_low,\
             ops_per_sec_high,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,requests"
        );
        // Party rows have no throughput and the failed 4-client load has none either.
        assert_eq!(lines.len(), 4, "{csv}");
        assert_eq!(
            lines[1],
            "echo/plain@1c,echo/plain,1,closed,,43170,41443.2,44896.8,\
             22095,33143,66285,110475,441900,38853"
        );
        // An open loop: its rate asked for; fewer than 3 rounds: no interval.
        assert_eq!(
            lines[3],
            "echo/loop@1c,echo/loop,1,open,20000,19987.4,,,48000,72000,144000,240000,960000,17989"
        );
        // Without throughput figures, only the header.
        let none = record("r", vec![with_icount(scenario("a"), 1.0)]);
        assert_eq!(throughput_csv(&none).lines().count(), 1);
    }

    #[test]
    fn memory_csv_leaves_unmeasured_cells_empty() {
        let csv = memory_csv(&crate::testing::memory_groups());
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

    #[test]
    fn which_files_a_run_writes_leaves_or_removes() {
        let run = crate::testing::every_figure();
        assert_eq!(CsvFile::Memory.presence(&run), Presence::Write);
        let plain = record("r", vec![with_icount(scenario("a"), 1.0)]);
        // Issue 29: a stale memory.csv of an earlier run must not stay beside this run's.
        assert_eq!(CsvFile::Memory.presence(&plain), Presence::Remove);
        assert_eq!(CsvFile::Counters.presence(&plain), Presence::Remove);
        assert_eq!(CsvFile::Throughput.presence(&plain), Presence::Remove);
    }
}
