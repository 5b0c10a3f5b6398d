//! Turning result files written by other tools into run records, so that their history joins
//! ours: rustls ci-bench's files, one per instrument whose figure it holds. Each file's format
//! is its instrument's, in the measuring crate's folder of it (`CiBenchFile`, listed in
//! [`CI_BENCH`]); this module builds the run around their rows (its identity, its settings, what
//! the files do not say) and names no instrument but in the entry points the fuzz target calls
//! (at the end). Pure: the caller reads the files and records the result.
//!
//! The fuzz target `import_csv` compiles this file on its own, with the measuring and record
//! crates and anyhow only: it must import nothing else of the CLI.

use anyhow::{bail, Result};
pub use costbench_measure::instrument::import::CiBenchFile;
use costbench_measure::instrument::import::Rows;
pub use costbench_measure::instrument::CI_BENCH;
use costbench_record::model::{self, RunRecord};
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

/// A run record from the contents of rustls ci-bench's files: `files` pairs each file read with
/// its text and its name (for errors), at most one per entry of [`CI_BENCH`] (none is an
/// error). Each row is one scenario whose whole run is one op.
pub fn from_files(
    files: &[(&CiBenchFile, &str, &str)],
    meta: &ImportMeta,
    source: &Path,
) -> Result<RunRecord> {
    if files.is_empty() {
        let names: Vec<String> = CI_BENCH.iter().map(|f| f.names.join("/")).collect();
        bail!(
            "{} holds neither run.json nor {}: nothing to import",
            source.display(),
            names.join(" nor ")
        );
    }
    // In the list's order, whatever order `files` gives: the rows' order and the run id follow it.
    let texts: Vec<Option<(&str, &str)>> = CI_BENCH
        .iter()
        .map(|f| {
            files
                .iter()
                .find(|(g, ..)| g.instrument == f.instrument)
                .map(|&(_, text, file)| (text, file))
        })
        .collect();
    let mut rows = Rows::default();
    let mut instruments = Vec::new();
    for (f, text) in CI_BENCH.iter().zip(&texts) {
        if let Some((text, file)) = text {
            instruments.push(f.instrument.name().to_string());
            (f.read)(text, file, &mut rows)?;
        }
    }
    let results = rows.0;
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
            Some(_) => content_id(&texts, meta),
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
/// contents (`texts`, one per entry of [`CI_BENCH`]) and of what `meta` says of them (commit,
/// branch, variant). FNV-1a rather than std's
/// hasher, whose algorithm may change between Rust releases: the id must not.
fn content_id(texts: &[Option<(&str, &str)>], meta: &ImportMeta) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |part: &str| {
        // Each part ends with a byte no text holds, so that ("ab", "c") and ("a", "bc") differ.
        for b in part.bytes().chain([0xff]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    // One part per file of the list, empty when absent.
    for text in texts {
        feed(text.map_or("", |(text, _)| text));
    }
    for m in [&meta.commit, &meta.branch, &meta.variant] {
        feed(m.as_deref().unwrap_or(""));
    }
    format!("import-{h:016x}")
}

/// Parses rustls ci-bench's `icounts.csv`, as the fuzz target calls it (the format is
/// instruction counts', `costbench_measure::instrument::icount::ci_bench`).
pub use costbench_measure::instrument::icount::ci_bench::parse as parse_icounts;
/// Parses rustls ci-bench's wall-time CSV, as the fuzz target calls it (the format is wall
/// time's, `costbench_measure::instrument::walltime::ci_bench`).
pub use costbench_measure::instrument::walltime::ci_bench::parse as parse_walltimes;

/// [`from_files`] with the instruction counts' and the wall-time file (text, name), either
/// absent, as the fuzz target calls it.
pub fn from_csv(
    icounts: Option<(&str, &str)>,
    walltimes: Option<(&str, &str)>,
    meta: &ImportMeta,
    source: &Path,
) -> Result<RunRecord> {
    use costbench_measure::instrument::{icount, walltime};
    let files: Vec<(&CiBenchFile, &str, &str)> = [
        (&icount::ci_bench::FILE, icounts),
        (&walltime::ci_bench::FILE, walltimes),
    ]
    .into_iter()
    .filter_map(|(f, read)| read.map(|(text, file)| (f, text, file)))
    .collect();
    from_files(&files, meta, source)
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
        assert!(from_csv(None, None, &ImportMeta::default(), Path::new("d")).is_err());
    }
}
