//! Turning result files written by other tools into run records, so that their history joins
//! ours: rustls ci-bench's `icounts.csv` (`name,count`) and its wall-time CSV
//! (`name,ns_1,...,ns_N`, written as `walltime.csv` or `walltimes.csv`). Pure parsing: the
//! caller reads the files and records the result.

use anyhow::{bail, Context, Result};
use costbench_record::model::{self, Icount, RunRecord, ScenarioResult};
use std::path::Path;

/// What the files themselves do not say about the run.
#[derive(Debug, Clone, Default)]
pub struct ImportMeta {
    /// The commit the run measured, as history records it; None when unknown.
    pub commit: Option<String>,
    /// The branch the run measured; None when unknown.
    pub branch: Option<String>,
    /// The build variant the run measured; None for the plain build.
    pub variant: Option<String>,
    /// RFC 3339; defaults to now.
    pub started_at: Option<String>,
}

/// Parses `name,count` rows; `file` names the file in errors.
pub fn parse_icounts(text: &str, file: &str) -> Result<Vec<(String, u64)>> {
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let Some((name, count)) = line.rsplit_once(',') else {
            bail!("{file}:{}: expected `name,count`, found {line:?}", n + 1);
        };
        let count: u64 = count.trim().parse().with_context(|| {
            format!(
                "{file}:{}: the count {count:?} is not a whole number",
                n + 1
            )
        })?;
        if name.is_empty() {
            bail!("{file}:{}: empty scenario name", n + 1);
        }
        rows.push((name.to_string(), count));
    }
    Ok(rows)
}

/// Parses `name,ns_1,...,ns_N` rows.
pub fn parse_walltimes(text: &str, file: &str) -> Result<Vec<(String, Vec<f64>)>> {
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut fields = line.split(',');
        let name = fields.next().unwrap_or_default();
        if name.is_empty() {
            bail!("{file}:{}: empty scenario name", n + 1);
        }
        let values = fields
            .map(|f| {
                f.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v >= 0.0)
                    .with_context(|| {
                        format!("{file}:{}: {f:?} is not a duration in nanoseconds", n + 1)
                    })
            })
            .collect::<Result<Vec<f64>>>()?;
        if values.is_empty() {
            bail!("{file}:{}: {name:?} has no samples", n + 1);
        }
        rows.push((name.to_string(), values));
    }
    Ok(rows)
}

/// A run record from rustls-style CSV contents (either may be absent, not both). Each row is
/// one scenario whose whole run is one op.
pub fn from_csv(
    icounts: Option<(&str, &str)>,
    walltimes: Option<(&str, &str)>,
    meta: &ImportMeta,
    source: &Path,
) -> Result<RunRecord> {
    if icounts.is_none() && walltimes.is_none() {
        bail!(
            "{} holds neither run.json nor icounts.csv nor walltime.csv/walltimes.csv: nothing to import",
            source.display()
        );
    }
    let mut results: Vec<ScenarioResult> = Vec::new();
    let entry = |results: &mut Vec<ScenarioResult>, name: &str| -> usize {
        if let Some(i) = results.iter().position(|r| r.id == name) {
            return i;
        }
        results.push(ScenarioResult::empty(name, name, None, 1, "runs"));
        results.len() - 1
    };
    let mut instruments = Vec::new();
    if let Some((text, file)) = icounts {
        instruments.push("icount".to_string());
        for (name, count) in parse_icounts(text, file)? {
            let i = entry(&mut results, &name);
            results[i].icount = Some(Icount {
                ir: count,
                ir_per_op: count as f64,
                callgrind_out: String::new(),
                placement: None,
            });
        }
    }
    if let Some((text, file)) = walltimes {
        instruments.push("walltime".to_string());
        for (name, ns) in parse_walltimes(text, file)? {
            let i = entry(&mut results, &name);
            results[i].walltime = Some(model::Walltime {
                clock: "monotonic".into(),
                samples: ns.len(),
                iterations_per_sample: 1,
                warmup_iterations: 0,
                clock_overhead_ns: 0.0,
                ns_per_op: costbench_record::stats::summarize(&ns),
                iteration_ns: ns,
                paired: None,
                step: None,
            });
        }
    }
    let name = source.file_name().map_or_else(
        || "imported".to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut record = RunRecord::new(
        // With --commit the files are results of that commit: their identity is what they hold
        // and what they are said to be, so a retried CI job importing them again records one
        // run. Without it a CSV carries no identity of its own, and identical results of two
        // runs are history too (a steady scenario's unchanged count is the evidence that it is
        // steady): every import is a run of its own.
        match meta.commit {
            Some(_) => content_id(icounts, walltimes, meta),
            None => costbench_measure::environment::new_run_id(),
        },
        meta.started_at
            .clone()
            .unwrap_or_else(costbench_measure::environment::now_rfc3339),
        model::Tool {
            name: "imported".into(),
            version: "unknown".into(),
            protocol: 0,
        },
        model::SuiteInfo {
            package: "imported".into(),
            bench: name,
            library_version: "unknown".into(),
        },
        model::Environment {
            rustc: None,
            valgrind: None,
            host: model::Host {
                name: None,
                cpu: None,
                cores: 0,
                os: None,
                kernel: None,
                arch: "unknown".into(),
            },
            git: (meta.commit.is_some() || meta.branch.is_some()).then(|| model::Git {
                commit: meta.commit.clone().unwrap_or_else(|| "unknown".into()),
                branch: meta.branch.clone(),
                dirty: false,
                ..Default::default()
            }),
        },
        model::Settings {
            instruments,
            filter: None,
            jobs: 0,
            timeout_secs: 0,
            samples: None,
            walltime_cpu: None,
            code_align: None,
            features: Vec::new(),
            all_features: false,
            no_default_features: false,
            profile: None,
        },
        results,
    );
    // CSV files say nothing of how their run ended: what they hold is taken as the whole.
    record.completion = Some(model::Completion::finished());
    record.variant = meta.variant.clone().unwrap_or_else(|| "default".into());
    Ok(record)
}

/// The run id of an import of a known commit: `import-` and a 64-bit FNV-1a hash of the files'
/// contents and of what `meta` says of them (commit, branch, variant). FNV-1a rather than std's
/// hasher, whose algorithm may change between Rust releases: the id must not.
fn content_id(
    icounts: Option<(&str, &str)>,
    walltimes: Option<(&str, &str)>,
    meta: &ImportMeta,
) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |part: &str| {
        // Each part ends with a byte no text holds, so that ("ab", "c") and ("a", "bc") differ.
        for b in part.bytes().chain([0xff]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    feed(icounts.map_or("", |(text, _)| text));
    feed(walltimes.map_or("", |(text, _)| text));
    for m in [&meta.commit, &meta.branch, &meta.variant] {
        feed(m.as_deref().unwrap_or(""));
    }
    format!("import-{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn importing_the_same_files_of_a_commit_twice_gives_one_run_id() {
        let meta = ImportMeta {
            commit: Some("abc".into()),
            ..ImportMeta::default()
        };
        let src = Path::new("ci-bench");
        let id = |ic: &str, m: &ImportMeta| {
            from_csv(Some((ic, "icounts.csv")), None, m, src)
                .unwrap()
                .run_id
        };
        let a = id(ICOUNTS, &meta);
        assert!(a.starts_with("import-"), "{a}");
        assert_eq!(a, id(ICOUNTS, &meta));
        // Other counts, or the same counts said to be of another commit, are another run.
        assert_ne!(a, id(&ICOUNTS.replace("11548343", "11548344"), &meta));
        let other = ImportMeta {
            commit: Some("abd".into()),
            ..ImportMeta::default()
        };
        assert_ne!(a, id(ICOUNTS, &other));
        // Without a commit, every import is a run of its own.
        let none = ImportMeta::default();
        assert_ne!(id(ICOUNTS, &none), id(ICOUNTS, &none));
    }

    // Rows as rustls's ci-bench writes them.
    const ICOUNTS: &str = "handshake_no_resume_1.2_rsa_aes_client,11548343\n\
                           handshake_no_resume_1.2_rsa_aes_server,11882090\n\
                           transfer_no_resume_1.3_rsa_aes_client,8478573\n";
    const WALLTIMES: &str = "handshake_no_resume_1.2_rsa_aes,1208203,1199914,1213771\n\
                             transfer_no_resume_1.3_rsa_aes,4513012,4601822,4500015\n";

    #[test]
    fn rustls_files_become_a_run() {
        let meta = ImportMeta {
            commit: Some("abc".into()),
            branch: Some("main".into()),
            ..ImportMeta::default()
        };
        let run = from_csv(
            Some((ICOUNTS, "icounts.csv")),
            Some((WALLTIMES, "walltimes.csv")),
            &meta,
            Path::new("ci-bench-out"),
        )
        .unwrap();
        assert_eq!(run.results.len(), 5);
        assert_eq!(run.results[0].icount.as_ref().unwrap().ir, 11_548_343);
        let w = run.results[3].walltime.as_ref().unwrap();
        assert_eq!(w.samples, 3);
        assert_eq!(w.ns_per_op.median, 1_208_203.0);
        assert_eq!(
            run.environment.git.as_ref().unwrap().branch.as_deref(),
            Some("main")
        );
        assert_eq!(run.suite.bench, "ci-bench-out");
    }

    #[test]
    fn malformed_rows_name_file_and_line() {
        let e = parse_icounts("a,1\nb,x\n", "icounts.csv").unwrap_err();
        assert_eq!(
            format!("{e:#}").split(':').take(2).collect::<Vec<_>>(),
            ["icounts.csv", "2"]
        );
        let e = parse_icounts("a,1\ntruncated", "icounts.csv").unwrap_err();
        assert!(e.to_string().starts_with("icounts.csv:2:"), "{e}");
        let e = parse_walltimes("a,1,2\nb,3,\n", "w.csv").unwrap_err();
        assert!(format!("{e:#}").starts_with("w.csv:2:"), "{e:#}");
        let e = parse_walltimes("a\n", "w.csv").unwrap_err();
        assert!(e.to_string().contains("no samples"), "{e}");
        assert!(from_csv(None, None, &ImportMeta::default(), Path::new("d")).is_err());
    }
}
