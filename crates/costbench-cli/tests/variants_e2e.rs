//! End-to-end tests of `costbench variants` on the selftest and built-in suites: the real binary,
//! real cargo builds of each variant, real valgrind. Tests that need valgrind say so and pass
//! when it is missing.

mod common;
use common::*;

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// `costbench variants` on the selftest crate with `extra` arguments; results in `dir`.
fn variants(dir: &Path, extra: &[&str]) -> Output {
    let manifest = selftest_manifest();
    let mut args = vec![
        "variants",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bench",
        "selftest",
        "--output-dir",
        dir.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    costbench(&args).output()
}

fn matrix_cell<'a>(m: &'a Value, id: &str, variant: &str) -> &'a Value {
    m["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no row {id}"))["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["variant"] == variant)
        .unwrap_or_else(|| panic!("no cell {id} {variant}"))
}

#[test]
fn variants_change_exact_counts_skip_a_broken_build_and_rebuild_nothing_the_second_time() {
    if !valgrind_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.sqlite");
    let db = db.to_str().unwrap();
    let out_dir = dir.path().join("out");
    let common = [
        "--variant",
        "e2e-release:",
        "--variant",
        "e2e-oc:overflow-checks=true",
        "--variant",
        "e2e-longer:features=longer",
        "--variant",
        "e2e-mimalloc:allocator=mimalloc",
        "--filter",
        "^(calibrate/1000|checked/sum|feature/loop|alloc/strings)$",
        "--instrument",
        "icount",
        "--db",
        db,
        "--format",
        "json",
    ];
    let mut first = common.to_vec();
    first.extend([
        "--variant",
        "e2e-broken:rustflags=-C no-such-codegen-option=1",
    ]);
    let out = variants(&out_dir, &first);
    let err = stderr(&out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a variant failed to build: {err}"
    );
    assert!(
        err.contains("variant e2e-broken") && err.contains("unknown codegen option"),
        "the compiler's error is shown: {err}"
    );
    let m: Value = serde_json::from_slice(&out.stdout).expect("the matrix as JSON");
    assert_eq!(m["schema"], "costbench-variants");
    assert_eq!(m["baseline"], "e2e-release");
    let broken = &m["columns"][4];
    assert_eq!(broken["name"], "e2e-broken");
    assert!(broken["build_error"]
        .as_str()
        .unwrap()
        .contains("no-such-codegen-option"));
    let count = |id: &str, v: &str| {
        let cell = matrix_cell(&m, id, v);
        let per_op = cell["icount"]["per_op"].as_f64().unwrap();
        (per_op
            * m["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["id"] == id)
                .unwrap()["ops"]
                .as_f64()
                .unwrap())
        .round() as u64
    };
    // The feature doubles a calibrated loop: exactly 2 * 1000 more instructions.
    assert_eq!(
        count("feature/loop", "e2e-longer") - count("feature/loop", "e2e-release"),
        2000
    );
    assert_eq!(
        count("feature/loop", "e2e-oc"),
        count("feature/loop", "e2e-release")
    );
    // Overflow checks add work to checked arithmetic and nothing to the asm loop.
    assert!(
        count("checked/sum", "e2e-oc") > count("checked/sum", "e2e-release") + 1000,
        "{} vs {}",
        count("checked/sum", "e2e-oc"),
        count("checked/sum", "e2e-release")
    );
    assert_eq!(
        count("checked/sum", "e2e-longer"),
        count("checked/sum", "e2e-release")
    );
    assert_eq!(
        count("calibrate/1000", "e2e-oc"),
        count("calibrate/1000", "e2e-release")
    );
    // The allocator variant swaps the global allocator (costbench's mimalloc feature), without
    // a line of the suite changed: allocation-heavy work moves, the asm loop does not.
    assert!(
        count("alloc/strings", "e2e-mimalloc") < count("alloc/strings", "e2e-release"),
        "{} vs {}",
        count("alloc/strings", "e2e-mimalloc"),
        count("alloc/strings", "e2e-release")
    );
    assert_eq!(
        count("calibrate/1000", "e2e-mimalloc"),
        count("calibrate/1000", "e2e-release")
    );
    assert_eq!(
        matrix_cell(&m, "checked/sum", "e2e-oc")["icount"]["verdict"],
        "regression"
    );
    assert_eq!(
        matrix_cell(&m, "calibrate/1000", "e2e-oc")["icount"]["verdict"],
        "unchanged"
    );
    // Each measured variant has its own output directory, and the matrix is on disk too.
    let longer = run_json(&out_dir.join("e2e-longer"));
    assert_eq!(longer["variant"], "e2e-longer");
    assert_eq!(
        count("feature/loop", "e2e-longer"),
        ir(&longer, "feature/loop")
    );
    assert!(!out_dir.join("e2e-broken").join("run.json").exists());
    let on_disk: Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("matrix.json")).unwrap())
            .unwrap();
    assert_eq!(on_disk["rows"], m["rows"]);
    // Every measured variant is in history under its name.
    let h = costbench(["history", "--db", db, "--variant", "e2e-oc"]).output();
    assert!(h.status.success(), "{}", stderr(&h));
    assert!(
        String::from_utf8_lossy(&h.stdout).contains(m["columns"][1]["run_id"].as_str().unwrap())
    );

    // The same variants again, with nothing changed: nothing is rebuilt, counts are identical.
    let again = variants(&out_dir, &common);
    assert!(again.status.success(), "{}", stderr(&again));
    let m2: Value = serde_json::from_slice(&again.stdout).unwrap();
    for c in m2["columns"].as_array().unwrap() {
        assert_eq!(c["build"]["compiled"], 0, "{} was rebuilt", c["name"]);
        assert!(c["build"]["fresh"].as_u64().unwrap() > 0);
    }
    assert!(stderr(&again).contains("nothing rebuilt"));
    for v in ["e2e-release", "e2e-oc", "e2e-longer", "e2e-mimalloc"] {
        assert_eq!(
            matrix_cell(&m2, "checked/sum", v)["icount"]["per_op"],
            matrix_cell(&m, "checked/sum", v)["icount"]["per_op"]
        );
    }

    // Issue 41: each variant builds and measures every chosen bench target, one record per
    // variant holding them all, and the matrix pairs the variants by id across the targets.
    // Two of the variants above, with one more (small) bench target each.
    let two = variants(
        &dir.path().join("two"),
        &[
            "--variant",
            "e2e-release:",
            "--variant",
            "e2e-oc:overflow-checks=true",
            "--bench",
            "growth",
            "--filter",
            "^(checked/sum|scan/128)$",
            "--instrument",
            "icount",
            "--no-history",
            "--format",
            "json",
        ],
    );
    assert!(two.status.success(), "{}", stderr(&two));
    let m3: Value = serde_json::from_slice(&two.stdout).unwrap();
    for v in ["e2e-release", "e2e-oc"] {
        let run = run_json(&dir.path().join("two").join(v));
        assert_eq!(run["suite"]["bench"], "selftest,growth", "{v}");
        assert!(ir(&run, "scan/128") > 0, "{v}");
        assert!(
            matrix_cell(&m3, "scan/128", v)["icount"]["per_op"]
                .as_f64()
                .unwrap()
                > 0.0
        );
    }
    assert_eq!(
        matrix_cell(&m3, "checked/sum", "e2e-oc")["icount"]["per_op"],
        matrix_cell(&m, "checked/sum", "e2e-oc")["icount"]["per_op"]
    );
}

#[test]
fn variant_mistakes_are_refused_before_anything_is_built() {
    let dir = tempfile::tempdir().unwrap();
    // A spec the command line got wrong is a usage error (exit 2, issue 29); what the package or
    // the machine lacks (a feature, a toolchain) is found by asking them, exit 1.
    let cases: [(&[&str], &str, i32); 7] = [
        (
            &["--variant", "a:", "--variant", "b:frobnicate=1"],
            "--variant b: unknown key \"frobnicate\"",
            2,
        ),
        (&["--variant", "a:lto=fat,lto=thin"], "lto is set twice", 2),
        (
            &["--variant", "a:opt-level=1,rustflags=-C opt-level=3"],
            "opt-level is set both as a key and in rustflags",
            2,
        ),
        (
            &["--variant", "a:features=no-such-feature"],
            "package costbench-selftest has no feature \"no-such-feature\"; its features: extra, longer",
            2,
        ),
        (
            &["--variant", "a:toolchain=no-such-toolchain-1.0"],
            "toolchain \"no-such-toolchain-1.0\" is not installed",
            2,
        ),
        (
            &["--variant", "undeclared"],
            "no [variants.undeclared] in costbench.toml",
            2,
        ),
        (&["--preset", "fastest"], "unknown preset \"fastest\"", 2),
    ];
    let rustup = Command::new("rustup").arg("--version").output().is_ok();
    for (args, want, code) in cases {
        let out = variants(dir.path(), args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        if want.starts_with("toolchain") && !rustup {
            assert!(err.contains("rustup is not available"), "{err}");
            continue;
        }
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(
            !err.contains("Building variant"),
            "{args:?} built something: {err}"
        );
    }
    // `run --variant` is the same command.
    let manifest = selftest_manifest();
    let out = costbench([
        "run",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bench",
        "selftest",
        "--variant",
        "a:lto=medium",
    ])
    .output();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--variant a: lto = \"medium\" is not valid"),
        "{}",
        stderr(&out)
    );
    // Two problems in two variants: both are reported at once.
    let out = variants(
        dir.path(),
        &[
            "--variant",
            "x:features=nope",
            "--variant",
            "y:toolchain=nope-9",
        ],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "a usage error: {err}");
    assert!(
        err.contains("2 problems with the variants, nothing was built"),
        "{err}"
    );
    assert!(
        err.contains("variant x:") && err.contains("variant y:"),
        "{err}"
    );
}

#[test]
fn builtin_unaligned_feature_switches_the_word_reader() {
    if !valgrind_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = workspace().join("Cargo.toml");
    // No --variant: the workspace's costbench.toml declares [variants.release] and
    // [variants.unaligned] (features = ["unaligned"]).
    let out = costbench([
        "variants",
        "--manifest-path",
        root.to_str().unwrap(),
        "--filter",
        "^words/read_u64/",
        "--instrument",
        "icount",
        "--quiet",
        "--no-history",
        "--output-dir",
        dir.path().to_str().unwrap(),
    ])
    .output();
    assert!(out.status.success(), "{}", stderr(&out));
    let release = run_json(&dir.path().join("release"));
    let unaligned = run_json(&dir.path().join("unaligned"));
    // The feature changes read_words and nothing else: without it read_words pays its one
    // alignment check (a few instructions per call), with it it reads with read_unaligned.
    for id in ["words/read_u64/aligned", "words/read_u64/unaligned"] {
        assert_eq!(ir(&unaligned, id), ir(&release, id), "{id}");
    }
    let check = ir(&release, "words/read_u64/feature") as i64
        - ir(&unaligned, "words/read_u64/feature") as i64;
    assert!(
        (1..10).contains(&check),
        "alignment check: {check} instructions"
    );
}
