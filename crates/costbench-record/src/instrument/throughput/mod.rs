//! Throughput's slice of the run record: a result has its figure when it has throughput
//! figures (the rows `SCENARIO@Nc`);
//! its compared figures are the time per op at the measured throughput and the p99 latency;
//! its file is `throughput.csv`. Its figure's type is [`figure`]'s ([`Throughput`]); rows under
//! load for tests are built in `testing` (with the `testing` feature).

pub mod figure;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

pub use figure::{load_id, Interval, Latency, LoadPairing, LoadSlice, Throughput};

use super::slice::Slice;
use super::{Figure, FigureSpec, Judged};
use crate::csv::{row, text, writer, SliceFile};
use crate::fmt::{fmt_ns, fmt_ops_per_sec};
use crate::model::RunRecord;

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| r.throughput.is_some()),
    csv: Some(SliceFile {
        name: "throughput.csv",
        always: false,
        text: throughput_csv,
    }),
    figures: &[
        FigureSpec {
            figure: Figure::Throughput,
            evidence: "one figure per run",
            name: "throughput",
            title: "Throughput under load (time per op)",
            short_title: "time per op under load",
            unit: None,
            judged: Judged::UnderLoad,
            history: None,
            fmt_value: |v| format!("{} ({})", fmt_ns(v), fmt_ops_per_sec(1e9 / v)),
            per_op: |r| {
                r.throughput
                    .as_ref()
                    .filter(|t| t.ops_per_sec > 0.0)
                    .map(|t| 1e9 / t.ops_per_sec)
            },
        },
        FigureSpec {
            figure: Figure::P99,
            evidence: "one figure per run",
            name: "p99",
            title: "p99 latency under load",
            short_title: "p99 under load",
            unit: None,
            judged: Judged::UnderLoad,
            history: None,
            fmt_value: fmt_ns,
            per_op: |r| r.throughput.as_ref().map(|t| t.latency.p99_ns),
        },
    ],
    ..Slice::NONE
};

/// `throughput.csv`: one line per service scenario under load from one number of clients (the
/// rows `SCENARIO@Nc` of `--instrument throughput`): the load (`closed` or `open`, with the rate
/// asked for), ops per second over all clients with its repeat interval, latency percentiles in
/// nanoseconds and the requests measured. Empty cells where a figure is absent (no target rate in
/// a closed loop, no interval with fewer than 3 rounds). Rows without throughput figures (a
/// failed load) are left out, as other files leave out what was not measured.
fn throughput_csv(run: &RunRecord) -> String {
    // Three decimals, as wall time's file: rates and latencies are means and HDR bucket values, not
    // exact to more.
    let num = |v: f64| ((v * 1000.0).round() / 1000.0).to_string();
    let opt = |v: Option<f64>| v.map(num).unwrap_or_default();
    let mut w = writer();
    row(
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
        row(
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
    text(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{assert_snapshot, record, scenario, with_icount};

    #[test]
    fn csv_snapshot() {
        assert_snapshot!(
            "throughput_csv",
            &throughput_csv(&testing::service_run())
        );
    }

    #[test]
    fn throughput_csv_has_a_row_per_load_and_empty_cells_where_absent() {
        let csv = throughput_csv(&testing::service_run());
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
    fn throughput_csv_is_written_with_throughput_and_a_stale_one_removed_without() {
        use crate::csv::files::CsvFile;
        use crate::output::OutputDir;
        use super::testing::service_run;
        let dir = tempfile::tempdir().unwrap();
        let out = OutputDir::prepare(dir.path()).unwrap();
        let file = dir.path().join("throughput.csv");
        out.write_all(&service_run()).unwrap();
        let written = std::fs::read_to_string(&file).unwrap();
        assert_eq!(
            written,
            CsvFile::named("throughput.csv")
                .unwrap()
                .text(&service_run())
        );
        // A later run into the same directory without throughput leaves no file of the last one.
        out.write_all(&record("plain", vec![with_icount(scenario("a"), 1.0)]))
            .unwrap();
        assert!(!file.exists());
        assert!(dir.path().join("icounts.csv").exists());
        // Nor does a run whose only load failed (a row without figures).
        out.write_all(&service_run()).unwrap();
        let mut failed = service_run();
        failed.results.retain(|r| r.throughput.is_none());
        out.write_all(&failed).unwrap();
        assert!(!file.exists());
    }
}
