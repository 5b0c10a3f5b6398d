//! Service scenarios under load (the rows `SCENARIO@Nc` of `--instrument throughput`) as the
//! run's table prints them: a section of their own after the main table, one line per scenario
//! and number of clients, with ops per second, latency percentiles and the load. Also the
//! spellings of those figures that the HTML report shares ([`fmt_rate`], [`rate_cell`],
//! [`p99_cell`], [`load_label`]).
//!
//! Throughput rows have none of the per-op figures of the main table (their per-request costs
//! are on the scenario's `_client` and `_server` rows), so the main table leaves them out
//! ([`is_load_row`]) and this section shows them. Formats only: nothing here judges a change.

use crate::escape::clean;
use crate::table::{Align, TextTable};
use costbench_record::fmt::{fmt_confidence, fmt_ir_grouped, fmt_ns};
use costbench_record::model::{RunRecord, ScenarioResult, Throughput};
use std::fmt::Write as _;

/// Whether `r` is a row of the throughput instrument (`SCENARIO@Nc`), measured or failed.
pub fn is_load_row(r: &ScenarioResult) -> bool {
    r.clients.is_some()
}

/// Operations per second: whole and grouped from 1,000 up ("99,091"), a few decimals below.
pub fn fmt_rate(v: f64) -> String {
    fmt_ir_grouped(v)
}

/// "99,091 ops/s (95,968 – 102,317)": ops per second with the repeat interval where there is
/// one.
pub fn rate_cell(t: &Throughput) -> String {
    let mut s = format!("{} ops/s", fmt_rate(t.ops_per_sec));
    if let Some(i) = &t.ops_per_sec_repeat {
        let _ = write!(s, " ({} – {})", fmt_rate(i.low), fmt_rate(i.high));
    }
    s
}

/// "66.28 µs (59.66 µs – 72.91 µs)": the 99th percentile of latency with its repeat interval
/// where there is one.
pub fn p99_cell(t: &Throughput) -> String {
    let mut s = fmt_ns(t.latency.p99_ns);
    if let Some(i) = &t.p99_repeat {
        let _ = write!(s, " ({} – {})", fmt_ns(i.low), fmt_ns(i.high));
    }
    s
}

/// "closed loop", or "open loop at 20,000 ops/s" (the rate asked for).
pub fn load_label(t: &Throughput) -> String {
    match (t.load.as_str(), t.target_rate) {
        ("open", Some(rate)) => format!("open loop at {} ops/s", fmt_rate(rate)),
        (load, _) => format!("{load} loop"),
    }
}

/// The throughput section of the run's table: empty when the run has no throughput rows. A
/// failed row shows `FAILED`; its message is with the run's other failures.
pub fn section(run: &RunRecord) -> String {
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
    use costbench_record::testing::{load_row, record, scenario, service_run, with_icount};

    #[test]
    fn cells_spell_rates_latencies_and_loads() {
        let r = load_row("s", 4, 99_091.4, 40_511.0);
        let t = r.throughput.as_ref().unwrap();
        assert_eq!(rate_cell(t), "99,091 ops/s (95,128 – 103,055)");
        assert_eq!(p99_cell(t), "121.5 µs (109.4 µs – 133.7 µs)");
        assert_eq!(load_label(t), "closed loop");
        let mut t = t.clone();
        t.load = "open".into();
        t.target_rate = Some(20_000.0);
        t.ops_per_sec_repeat = None;
        t.p99_repeat = None;
        t.ops_per_sec = 543.21;
        assert_eq!(load_label(&t), "open loop at 20,000 ops/s");
        assert_eq!(rate_cell(&t), "543.21 ops/s");
        assert_eq!(p99_cell(&t), "121.5 µs");
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
