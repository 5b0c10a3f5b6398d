//! Service scenarios under load as the run's table prints them: a section of their own after
//! its results table, one line per scenario and number of clients, with ops per second, latency
//! percentiles and the load. The results table leaves these rows out (the slice's `own_rows`).

use super::{is_load_row, load_label, p99_cell, rate_cell};
use crate::escape::clean;
use crate::table::{Align, TextTable};
use costbench_record::fmt::{fmt_confidence, fmt_ns};
use costbench_record::model::{RunRecord, ScenarioResult};
use std::fmt::Write as _;

/// The throughput section of the run's table: empty when the run has no throughput rows. A
/// failed row shows `FAILED`; its message is with the run's other failures.
pub(super) fn section(run: &RunRecord) -> String {
    let rows: Vec<&ScenarioResult> = run.results.iter().filter(|r| is_load_row(r)).collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut t = TextTable::new(
        [
            "scenario", "clients", "ops/s", "p50", "p99", "p99.9", "max", "load",
        ],
        &[
            Align::Left,
            Align::Right,
            Align::Left,
            Align::Right,
            Align::Left,
            Align::Right,
            Align::Right,
            Align::Left,
        ],
    );
    let mut level = None;
    for r in &rows {
        let name = clean(&r.scenario);
        let clients = r.clients.map_or("-".into(), |c| c.to_string());
        match &r.throughput {
            _ if !r.failures.is_empty() => {
                t.row([name, clients, "FAILED".into()]);
            }
            Some(tp) => {
                level = level
                    .or(tp.ops_per_sec_repeat.map(|i| i.level))
                    .or(tp.p99_repeat.map(|i| i.level));
                let l = &tp.latency;
                t.row([
                    name,
                    clients,
                    rate_cell(tp),
                    fmt_ns(l.p50_ns),
                    p99_cell(tp),
                    fmt_ns(l.p999_ns),
                    fmt_ns(l.max_ns),
                    load_label(tp),
                ]);
            }
            None => {
                t.row([name, clients, "-".into()]);
            }
        }
    }
    let mut out = String::from(
        "\nthroughput: service scenarios under load (ops/s of all clients together; \
         latency per request, from sending it, or in an open loop from when it was due)\n",
    );
    out.push_str(&t.render());
    if let Some(level) = level {
        let _ = writeln!(
            out,
            "(low – high): {} repeat interval, where a repeat run of this build on this \
             machine is expected to land (from the spread of the rounds)",
            fmt_confidence(level)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::instrument::throughput::testing::{load_row, service_run};
    use costbench_record::testing::{assert_snapshot, record, scenario, with_icount};

    /// Service scenarios: party rows in the run's table, loads in their section after it, the
    /// failed load's message with the failures.
    #[test]
    fn run_table_snapshot() {
        assert_snapshot!("run_table_service", &crate::terminal::table(&service_run()));
    }

    #[test]
    fn load_rows_get_a_section_of_their_own() {
        let got = section(&service_run());
        let want = "
throughput: service scenarios under load (ops/s of all clients together; latency per request, from sending it, or in an open loop from when it was due)
scenario    clients  ops/s                                 p50  p99                                p99.9       max  load
echo/plain        1  43,170 ops/s (41,443 – 44,897)   22.09 µs  66.28 µs (59.66 µs – 72.91 µs)  110.5 µs  441.9 µs  closed loop
echo/plain        4  99,091 ops/s (95,128 – 103,055)  40.51 µs  121.5 µs (109.4 µs – 133.7 µs)  202.6 µs  810.2 µs  closed loop
echo/loop         1  19,987 ops/s                     48.00 µs  144.0 µs                        240.0 µs  960.0 µs  open loop at 20,000 ops/s
echo/loop         4  FAILED
(low – high): 95 % repeat interval, where a repeat run of this build on this machine is expected to land (from the spread of the rounds)
";
        assert_eq!(got, want, "\n{got}");
        // No throughput rows, no section.
        assert_eq!(
            section(&record("r", vec![with_icount(scenario("a"), 1.0)])),
            ""
        );
    }

    #[test]
    fn names_cannot_act_on_the_terminal() {
        let run = record("r", vec![load_row("evil\u{1b}[2J", 1, 10.0, 1.0)]);
        let got = section(&run);
        assert!(got.contains("evil\\u{1b}[2J"), "{got}");
        assert!(!got.contains('\u{1b}'));
    }
}
