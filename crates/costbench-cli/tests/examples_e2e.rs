//! End-to-end tests of the examples under `examples/` (issue 17): each is its own crate with its
//! own lock file, built from crates.io dependencies (rustls with ring, capnp, regex with
//! mimalloc), and each is run once here with the real binary under instruction counting. They
//! share one target directory, `target/examples`, so a second test run rebuilds nothing. Tests
//! that need valgrind (or Miri) say so and pass when it is missing.

mod common;
use common::*;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The manifest of example `name`.
fn manifest(name: &str) -> PathBuf {
    workspace().join("examples").join(name).join("Cargo.toml")
}

/// The examples' shared target directory, under the workspace's own.
fn target_dir() -> PathBuf {
    workspace().join("target").join("examples")
}

/// `costbench ARGS --manifest-path examples/NAME/Cargo.toml` with the shared target directory.
fn on_example(name: &str, args: &[&str]) -> Output {
    let manifest = manifest(name);
    let target = target_dir();
    let mut all = args.to_vec();
    all.extend(["--manifest-path", manifest.to_str().unwrap()]);
    costbench(&all)
        .envs(&[("CARGO_TARGET_DIR", target.to_str().unwrap())])
        .output()
}

/// `costbench run` of example `name`, instruction counts only, results in `dir`.
fn run_icount(name: &str, dir: &Path, filter: &str) -> Value {
    let out = on_example(
        name,
        &[
            "run",
            "--instrument",
            "icount",
            "--no-history",
            "--filter",
            filter,
            "--output-dir",
            dir.to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "costbench run of examples/{name} failed:\n{}",
        stderr(&out)
    );
    run_json(dir)
}

/// Every measured id of a run record with its instruction count.
fn counts(run: &Value) -> Vec<(String, u64)> {
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let id = r["id"].as_str().unwrap().to_string();
            let ir = r["icount"]["ir"]
                .as_u64()
                .unwrap_or_else(|| panic!("no icount for {id}: {r:#}"));
            (id, ir)
        })
        .collect()
}

/// The rustls example: ci-bench's names and CSV shape, both parties of every scenario, and every
/// count identical across two runs (the target of issue 17 is all rows identical across runs).
#[test]
fn rustls_example_counts_repeat_exactly_in_ci_bench_shape() {
    if !valgrind_available() {
        return;
    }
    // One parameter set per protocol version, plus ECDSA (whose signatures draw a random nonce
    // inside ring): every kind of scenario, a third of the rows.
    let filter = r"_ring_1\.(2_rsa_aes|3_ecdsap256_aes)$";
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let runs: Vec<Vec<(String, u64)>> = dirs
        .iter()
        .map(|d| counts(&run_icount("rustls", d.path(), filter)))
        .collect();
    let mut expected = Vec::new();
    for label in ["1.2_rsa_aes", "1.3_ecdsap256_aes"] {
        for kind in [
            "handshake_no_resume",
            "handshake_session_id",
            "handshake_tickets",
            "transfer_no_resume",
        ] {
            for side in ["client", "server"] {
                expected.push(format!("{kind}_ring_{label}_{side}"));
            }
        }
    }
    let mut ids: Vec<&str> = runs[0].iter().map(|(id, _)| id.as_str()).collect();
    ids.sort_unstable();
    expected.sort_unstable();
    assert_eq!(ids, expected);
    for (id, ir) in &runs[0] {
        // A full handshake is hundreds of thousands of instructions at least (RSA, ECDHE).
        assert!(*ir > 100_000, "{id}: {ir} instructions");
    }
    assert_eq!(
        runs[0], runs[1],
        "every row's instruction count repeats run to run"
    );
    // The 30 resumed handshakes each cost less than a full one.
    let ir = |id: &str| runs[0].iter().find(|(i, _)| i == id).unwrap().1;
    assert!(
        ir("handshake_tickets_ring_1.3_ecdsap256_aes_server") / 30
            < ir("handshake_no_resume_ring_1.3_ecdsap256_aes_server")
    );
    // icounts.csv is ci-bench's: `name,count` per row.
    let csv = std::fs::read_to_string(dirs[0].path().join("icounts.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), expected.len(), "{csv}");
    for (id, ir) in &runs[0] {
        assert!(
            lines.contains(&format!("{id},{ir}").as_str()),
            "{id} in {csv}"
        );
    }
}

/// The capnp example: the variant pair of its costbench.toml, and the `unaligned` feature's
/// per-message difference read exactly off the matrix (instruction counts are exact, so the
/// per-op figures of the two columns times the messages per run are whole numbers).
#[test]
fn capnp_example_shows_the_unaligned_features_exact_cost_per_message() {
    if !valgrind_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = on_example(
        "capnp",
        &[
            "variants",
            "--instrument",
            "icount",
            "--no-history",
            "--placement-runs",
            "0",
            "--format",
            "json",
            "--output-dir",
            dir.path().to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let m: Value = serde_json::from_slice(&out.stdout).expect("the matrix as JSON");
    assert_eq!(m["baseline"], "aligned");
    let row = |id: &str| {
        m["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("no row {id}: {m:#}"))
            .clone()
    };
    let aligned = row("read/aligned");
    let ops = aligned["ops"].as_f64().unwrap();
    assert_eq!(ops, 64.0);
    let total = |variant: &str| {
        let cell = aligned["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["variant"] == variant)
            .unwrap_or_else(|| panic!("no cell for {variant}"));
        let t = cell["icount"]["per_op"].as_f64().unwrap() * ops;
        assert!((t - t.round()).abs() < 1e-6, "{variant}: {t} is not whole");
        t.round() as i64
    };
    let (a, u) = (total("aligned"), total("unaligned"));
    assert!(a > 64 * 1000, "reading 64 messages: {a} instructions");
    // The default build checks the segment's alignment for every pointer it follows
    // (`ReaderArenaImpl::get_segment`); the unaligned build has no such check. (3,554
    // instructions per message with capnp 0.27.3 and Rust 1.95: the figure docs/guide/experiments.md quotes.)
    assert!(u < a, "unaligned {u} is cheaper than aligned {a}");
    // The misaligned read exists only where capnp accepts it.
    let mis = row("read/misaligned");
    let has = |variant: &str| {
        mis["cells"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["variant"] == variant && c["icount"]["per_op"].as_f64().is_some())
    };
    assert!(has("unaligned") && !has("aligned"), "{mis:#}");
}

/// Miri over the capnp example's unaligned side: clean, misaligned buffers included.
#[test]
fn capnp_example_unaligned_side_is_clean_under_miri() {
    if !miri_available() {
        return;
    }
    let out = on_example(
        "capnp",
        &["miri", "--features", "unaligned", "--format", "json"],
    );
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}); stderr:\n{}", stderr(&out)));
    assert!(out.status.success(), "{}", stderr(&out));
    let results = report["results"].as_array().unwrap();
    let names: Vec<&str> = results
        .iter()
        .map(|r| r["scenario"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["read/aligned", "read/misaligned"], "{report:#}");
    for r in results {
        assert_eq!(r["verdict"], "clean", "{r:#}");
    }
}

/// The logscan example: every scenario measured, and a scan costs what parsing and matching
/// cost together plus freeing the records.
#[test]
fn logscan_example_measures_parse_match_and_scan() {
    if !valgrind_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run = run_icount("logscan", dir.path(), ".");
    let c = counts(&run);
    let ir = |id: &str| {
        c.iter()
            .find(|(i, _)| i == id)
            .unwrap_or_else(|| panic!("no {id} in {c:?}"))
            .1
    };
    let (parse, matching, scan) = (ir("logscan/parse"), ir("logscan/match"), ir("logscan/scan"));
    assert_eq!(c.len(), 3, "{c:?}");
    // 2,000 lines: parsing allocates and hashes every field, matching runs 8 rules per line.
    assert!(parse > 2_000 * 500, "parse: {parse}");
    assert!(matching > 2_000 * 500, "match: {matching}");
    // The scan parses, matches and then frees the records inside the measured body (the parse
    // scenario's records are dropped after it): more than both, and not by half again.
    let sum = parse + matching;
    assert!(
        scan > sum && scan < sum + sum / 2,
        "scan {scan} vs parse + match {sum}"
    );
}
