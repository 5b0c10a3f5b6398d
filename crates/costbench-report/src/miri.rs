//! The terminal report of `costbench miri`: one line per scenario with its verdict and time,
//! the details of every finding below, then the totals.

use costbench_record::model::miri::{Finding, MiriReport, MiriResult};
use std::fmt::Write;

fn verdict_text(f: &Finding) -> &'static str {
    match f {
        Finding::Clean => "clean",
        Finding::UndefinedBehavior { .. } => "UNDEFINED BEHAVIOUR",
        Finding::NotRunnable { .. } => "not runnable",
        Finding::Failed { .. } => "FAILED",
    }
}

/// One line for `--quiet`: scenario, verdict, message and location.
pub fn one_line(r: &MiriResult) -> String {
    let detail = match &r.finding {
        Finding::Clean => String::new(),
        Finding::UndefinedBehavior {
            message, location, ..
        }
        | Finding::NotRunnable {
            message, location, ..
        }
        | Finding::Failed {
            message, location, ..
        } => match location {
            Some(l) => format!(": {message} at {l}"),
            None => format!(": {message}"),
        },
    };
    format!("{} {}{detail}", verdict_text(&r.finding), r.scenario)
}

/// Backtrace frames in the workspace's own code (relative paths), without the costbench
/// library's harness frames: std's generic frames run to hundreds of characters each and say
/// little about where the scenario went wrong.
fn own_frames(backtrace: &[String]) -> Vec<&str> {
    backtrace
        .iter()
        .map(String::as_str)
        .filter(|f| {
            let at = f.rsplit_once(" at ").map_or("", |(_, at)| at);
            !at.is_empty() && !at.starts_with('/') && !f.starts_with("costbench::")
        })
        .collect()
}

/// The whole report as a table with details.
pub fn table(report: &MiriReport) -> String {
    let mut s = String::new();
    let width = report
        .results
        .iter()
        .map(|r| r.scenario.len())
        .max()
        .unwrap_or(8)
        .max("scenario".len());
    let _ = writeln!(
        s,
        "{:<width$}  {:<19}  {:>8}  reason",
        "scenario", "Miri", "time"
    );
    for r in &report.results {
        let reason = match &r.finding {
            Finding::NotRunnable { kind, .. } => kind.explanation().to_string(),
            Finding::UndefinedBehavior { location, .. } | Finding::Failed { location, .. } => {
                location
                    .as_deref()
                    .map_or(String::new(), |l| format!("at {l}"))
            }
            Finding::Clean if !r.parties.is_empty() => {
                format!("parties {} as threads", r.parties.join(", "))
            }
            Finding::Clean => String::new(),
        };
        let line = format!(
            "{:<width$}  {:<19}  {:>6.1} s  {reason}",
            r.scenario,
            verdict_text(&r.finding),
            r.seconds
        );
        let _ = writeln!(s, "{}", line.trim_end());
    }
    for r in report
        .results
        .iter()
        .filter(|r| r.finding != Finding::Clean)
    {
        let _ = writeln!(s, "\n{}: {}", r.scenario, verdict_text(&r.finding));
        match &r.finding {
            Finding::Clean => {}
            Finding::UndefinedBehavior {
                message,
                location,
                notes,
                backtrace,
                workspace_frame,
            }
            | Finding::NotRunnable {
                message,
                location,
                notes,
                backtrace,
                workspace_frame,
                ..
            } => {
                let _ = writeln!(s, "    {message}");
                if let Some(l) = location {
                    let _ = writeln!(s, "    at {l}");
                }
                if let Some(w) = workspace_frame {
                    if !location.as_deref().is_some_and(|l| w.ends_with(l)) {
                        let _ = writeln!(s, "    from {w}");
                    }
                }
                for n in notes {
                    let _ = writeln!(s, "    {n}");
                }
                // Where an unsupported operation sits inside std is noise; the workspace frame
                // above says where the scenario asked for it (the JSON keeps the backtrace).
                let undefined = matches!(r.finding, Finding::UndefinedBehavior { .. });
                let own = own_frames(backtrace);
                if undefined && !own.is_empty() {
                    let _ = writeln!(
                        s,
                        "    backtrace (workspace frames; --format json lists the others too):"
                    );
                    for f in own {
                        let _ = writeln!(s, "      {f}");
                    }
                }
            }
            Finding::Failed {
                kind,
                message,
                location,
                stderr_tail,
            } => {
                let _ = writeln!(s, "    {kind}: {message}");
                if let Some(l) = location {
                    let _ = writeln!(s, "    at {l}");
                }
                for l in stderr_tail.lines() {
                    let _ = writeln!(s, "    | {l}");
                }
            }
        }
    }
    let count = |v: &str| {
        report
            .results
            .iter()
            .filter(|r| r.finding.verdict() == v)
            .count()
    };
    let t = &report.timing;
    let _ = writeln!(
        s,
        "\n{} scenario{}: {} clean, {} undefined behaviour, {} not runnable, {} failed",
        report.results.len(),
        if report.results.len() == 1 { "" } else { "s" },
        count("clean"),
        count("undefined-behavior"),
        count("not-runnable"),
        count("failed"),
    );
    let _ = writeln!(
        s,
        "{} ({}); {:.1} s: sysroot {:.1} s, build {:.1} s, listing {:.1} s, scenarios {:.1} s{}",
        report.miri_version,
        report.toolchain,
        t.total_s,
        t.sysroot_s,
        t.build_s,
        t.list_s,
        t.scenarios_s,
        if report.miriflags.is_empty() {
            String::new()
        } else {
            format!("; MIRIFLAGS={}", report.miriflags)
        }
    );
    if let Some(f) = &report.features {
        let _ = writeln!(s, "built with features: {f}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::model::miri::{Timing, Unsupported};

    fn report() -> MiriReport {
        let result = |name: &str, finding: Finding| MiriResult {
            scenario: name.into(),
            parties: vec![],
            seconds: 2.31,
            finding,
        };
        MiriReport {
            schema: costbench_record::model::miri::SCHEMA.into(),
            schema_version: costbench_record::model::miri::SCHEMA_VERSION,
            started_at: "2026-01-01T00:00:00Z".into(),
            tool: costbench_record::model::Tool {
                name: "costbench".into(),
                version: "0.1.0".into(),
                protocol: 1,
            },
            suite: costbench_record::model::SuiteInfo {
                package: "p".into(),
                bench: "b".into(),
                library_version: "0.1.0".into(),
            },
            toolchain: "nightly".into(),
            miri_version: "miri 0.1.0".into(),
            miriflags: String::new(),
            features: None,
            timing: Timing {
                sysroot_s: 0.5,
                build_s: 1.0,
                list_s: 2.0,
                scenarios_s: 6.71,
                total_s: 10.21,
            },
            results: vec![
                result("ok", Finding::Clean),
                result(
                    "oob",
                    Finding::UndefinedBehavior {
                        message: "`assume` called with `false`".into(),
                        location: Some("src/a.rs:3:5".into()),
                        notes: vec!["help: a bug".into()],
                        backtrace: vec![
                            "f at src/a.rs:3:5".into(),
                            "std::g at /rust/library/std/src/g.rs:1:1".into(),
                            "costbench::Bench::iter at crates/costbench/src/bench.rs:1:1".into(),
                            "main at src/a.rs:9:1".into(),
                        ],
                        workspace_frame: Some("f at src/a.rs:3:5".into()),
                    },
                ),
                result(
                    "io",
                    Finding::NotRunnable {
                        kind: Unsupported::Isolation,
                        message: "`open` not available when isolation is enabled".into(),
                        location: Some("/std/fs.rs:1:1".into()),
                        notes: vec![],
                        backtrace: vec![],
                        workspace_frame: Some("g at src/b.rs:9:1".into()),
                    },
                ),
            ],
        }
    }

    #[test]
    fn table_lists_verdicts_details_and_totals() {
        let t = table(&report());
        let expected = "\
scenario  Miri                     time  reason
ok        clean                   2.3 s
oob       UNDEFINED BEHAVIOUR     2.3 s  at src/a.rs:3:5
io        not runnable            2.3 s  Miri's isolation blocks file system, clock and environment access (MIRIFLAGS=-Zmiri-disable-isolation would lift it)

oob: UNDEFINED BEHAVIOUR
    `assume` called with `false`
    at src/a.rs:3:5
    help: a bug
    backtrace (workspace frames; --format json lists the others too):
      f at src/a.rs:3:5
      main at src/a.rs:9:1

io: not runnable
    `open` not available when isolation is enabled
    at /std/fs.rs:1:1
    from g at src/b.rs:9:1

3 scenarios: 1 clean, 1 undefined behaviour, 1 not runnable, 0 failed
miri 0.1.0 (nightly); 10.2 s: sysroot 0.5 s, build 1.0 s, listing 2.0 s, scenarios 6.7 s
";
        assert_eq!(t, expected);
        assert_eq!(
            one_line(&report().results[1]),
            "UNDEFINED BEHAVIOUR oob: `assume` called with `false` at src/a.rs:3:5"
        );
    }

    #[test]
    fn json_is_versioned_and_flat() {
        let v = serde_json::to_value(report()).unwrap();
        assert_eq!(v["schema"], "costbench-miri");
        assert_eq!(v["schema_version"], 1);
        assert_eq!(v["results"][1]["verdict"], "undefined-behavior");
        assert_eq!(v["results"][1]["location"], "src/a.rs:3:5");
        assert_eq!(v["results"][2]["kind"], "isolation");
        let back: MiriReport = serde_json::from_value(v).unwrap();
        assert_eq!(back, report());
    }
}
