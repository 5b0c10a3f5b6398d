//! End-to-end tests of the criterion and divan compatibility crates (issue 26) on
//! `suites/compat`: its bench target `criterion` is written with criterion's API through
//! `costbench-criterion`, `divan` with divan's through `costbench-divan`, and `native` has the
//! same bodies written with costbench's own. The real binary, real builds, real valgrind.

mod common;
use common::*;

use serde_json::Value;

fn compat_manifest() -> std::path::PathBuf {
    workspace().join("suites/compat/Cargo.toml")
}

fn measure(bench: &str, extra: &[&str]) -> (std::process::Output, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let out = costbench(["run", "--manifest-path"])
        .arg(compat_manifest())
        .args(["--bench", bench, "--output-dir"])
        .arg(dir.path())
        .arg("--quiet")
        .args(extra)
        .output();
    (out, dir)
}

fn ids(run: &Value) -> Vec<String> {
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn issue_26_criterion_and_divan_benchmarks_count_what_the_same_bodies_count_with_costbench() {
    if !valgrind_available() {
        return;
    }
    let (out, dir) = measure("native", &["--instrument", "icount"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let native = run_json(dir.path());
    let (out, dir) = measure("criterion", &["--instrument", "icount"]);
    // `timed_by_itself` (iter_custom) is refused by the icount instrument: the run says so.
    assert!(
        !out.status.success(),
        "the iter_custom benchmark must fail icount"
    );
    let compat = run_json(dir.path());

    // criterion's ids and ops, as criterion names them.
    assert_eq!(
        ids(&compat),
        [
            "sum",
            "digits/64",
            "digits/4096",
            "sort/batched",
            "sort/batched_ref/1000",
            "timed_by_itself"
        ]
    );
    for (id, ops, unit) in [
        ("sum", 1, "iterations"),
        ("digits/4096", 4096, "bytes"),
        ("sort/batched_ref/1000", 1000, "elements"),
    ] {
        assert_eq!(result(&compat, id)["ops"], ops, "{id}");
        assert_eq!(result(&compat, id)["unit"], unit, "{id}");
    }

    let residual = compat["harness_residual_ir"].as_u64().unwrap();
    assert_eq!(residual, native["harness_residual_ir"].as_u64().unwrap());
    for id in ids(&native) {
        let (c, n) = (ir(&compat, &id), ir(&native, &id));
        assert!(
            c.abs_diff(n) <= residual,
            "{id}: {c} instructions through criterion's API, {n} through costbench's \
             (residual {residual})"
        );
        assert!(n > 100, "{id} measured nothing: {n}");
    }

    // divan's ids: module paths with `::`, then `/` before each argument, type and const.
    let (out, dir) = measure("divan", &["--instrument", "icount"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let divan = run_json(dir.path());
    assert_eq!(
        ids(&divan),
        [
            "sum",
            "digits/64",
            "digits/4096",
            "fill/u64/16",
            "fill/u64/256",
            "fill/Vec<u8>/16",
            "fill/Vec<u8>/256",
            "sort::batched",
            "sort::batched_ref"
        ]
    );
    // Counters set in the function, by the attribute, from an input, and none.
    for (id, ops, unit) in [
        ("digits/4096", 4096, "bytes"),
        ("sort::batched", 1000, "items"),
        ("sort::batched_ref", 1000, "items"),
        ("fill/u64/256", 1, "iterations"),
    ] {
        assert_eq!(result(&divan, id)["ops"], ops, "{id}");
        assert_eq!(result(&divan, id)["unit"], unit, "{id}");
    }
    for (d, n) in [
        ("sum", "sum"),
        ("digits/64", "digits/64"),
        ("digits/4096", "digits/4096"),
        ("sort::batched", "sort/batched"),
        ("sort::batched_ref", "sort/batched_ref/1000"),
    ] {
        let (di, ni) = (ir(&divan, d), ir(&native, n));
        assert!(
            di.abs_diff(ni) <= residual,
            "{d}: {di} instructions through divan's API, {ni} through costbench's ({n})"
        );
    }
    assert!(ir(&divan, "fill/u64/256") > ir(&divan, "fill/u64/16"));

    let refused = &result(&compat, "timed_by_itself")["failures"][0];
    assert_eq!(refused["instrument"], "icount");
    let tail = refused["stderr_tail"].as_str().unwrap();
    assert!(
        tail.contains("\"timed_by_itself\"") && tail.contains("wall time only"),
        "{tail}"
    );
}

#[test]
fn issue_26_iter_custom_is_timed_by_its_own_durations() {
    let (out, dir) = measure(
        "criterion",
        &[
            "--instrument",
            "walltime",
            "--filter",
            "^timed_by_itself$",
            "--iterations-per-scenario",
            "10",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let run = run_json(dir.path());
    let w = &result(&run, "timed_by_itself")["walltime"];
    assert_eq!(w["samples"], 10, "{w}");
    assert!(w["ns_per_op"]["median"].as_f64().unwrap() > 0.0, "{w}");
}

#[test]
fn issue_26_cargo_test_lists_and_runs_criterion_benchmarks_once() {
    let bench = |args: &[&str]| {
        std::process::Command::new(env!("CARGO"))
            .args(["test", "--manifest-path"])
            .arg(compat_manifest())
            .args(["--bench", "criterion", "--"])
            .args(args)
            .output()
            .unwrap()
    };
    let out = bench(&["--list", "--format", "terse"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "sum: test\ndigits/64: test\ndigits/4096: test\nsort/batched: test\n\
         sort/batched_ref/1000: test\ntimed_by_itself: test\n"
    );
    // As `cargo test --benches` runs it: every benchmark once.
    let out = bench(&["digits"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("scenario digits/64 ... ok") && text.contains("2 passed, 0 failed"),
        "{text}"
    );
}

/// Issue 41: `costbench run` without `--bench` measures every bench target of the package that
/// depends on costbench, as `cargo bench` runs them all: `suites/compat`'s three targets in one
/// run record. Their ids collide (`sum` is in each), so each is named by its target; an id only
/// one target has (divan's `sort::batched`) stays as it is. The same body counts the same
/// through each target's binary, so every count lands on the right one. `--bench`, repeated,
/// chooses. Instruction counts of five tiny scenarios: seconds once built (the builds are the
/// other tests' of this file).
#[test]
fn issue_41_every_bench_target_in_one_run_with_colliding_ids_named_by_target() {
    if !valgrind_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let filter = ["--filter", "(^|/)sum$|^sort::batched$"];
    let out = costbench(["run", "--manifest-path"])
        .arg(compat_manifest())
        .args(["--instrument", "icount", "--no-history", "--output-dir"])
        .arg(dir.path())
        .args(filter)
        .output();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Measuring bench targets criterion, divan, native: icount"),
        "{}",
        stderr(&out)
    );
    let run = run_json(dir.path());
    assert_eq!(run["suite"]["bench"], "criterion,divan,native");
    let mut got = ids(&run);
    got.sort();
    assert_eq!(
        got,
        ["criterion/sum", "divan/sum", "native/sum", "sort::batched"]
    );
    let residual = run["harness_residual_ir"].as_u64().unwrap();
    let native = ir(&run, "native/sum");
    for id in ["criterion/sum", "divan/sum"] {
        assert!(
            ir(&run, id).abs_diff(native) <= residual,
            "{id}: {} against native/sum's {native}",
            ir(&run, id)
        );
    }
    // `sort::batched` sorts 1000 elements: a count far above `sum`'s, from divan's binary.
    assert!(ir(&run, "sort::batched") > 10 * native, "{run:#}");

    // Two chosen by name: only theirs, in one record, `sum` still named by target.
    let out = costbench(["run", "--manifest-path"])
        .arg(compat_manifest())
        .args(["--bench", "native", "--bench", "divan", "--list"])
        .args(filter)
        .output();
    assert!(out.status.success(), "{}", stderr(&out));
    let listing = stdout(&out);
    let listed: Vec<&str> = listing
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .collect();
    assert_eq!(listed, ["native/sum", "divan/sum", "sort::batched"]);
}

/// Issue 41: `costbench census` without `--bench` reads every bench target that depends on
/// costbench, one census per target's binary in cargo's order (as JSON, one document each);
/// `--bench` still chooses one. The builds are the ones `run` made above.
#[test]
fn issue_41_census_reads_every_bench_target() {
    let census = |extra: &[&str]| {
        let out = costbench(["census", "--manifest-path"])
            .arg(compat_manifest())
            .args(["--format", "json"])
            .args(extra)
            .output();
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::Deserializer::from_slice(&out.stdout)
            .into_iter::<Value>()
            .map(|d| d.unwrap())
            .collect::<Vec<_>>()
    };
    let docs = census(&[]);
    let binaries: Vec<String> = docs
        .iter()
        .map(|d| {
            assert_eq!(d["schema"], "costbench-census");
            let b = d["binary"].as_str().unwrap();
            let file = std::path::Path::new(b)
                .file_name()
                .unwrap()
                .to_string_lossy();
            file.split('-').next().unwrap().to_string()
        })
        .collect();
    assert_eq!(binaries, ["criterion", "divan", "native"]);
    assert_eq!(census(&["--bench", "divan"]).len(), 1);
}
