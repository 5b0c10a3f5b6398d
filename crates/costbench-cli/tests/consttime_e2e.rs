//! End-to-end test of the constant-time instrument (issue 28): the selftest suite's `consttime`
//! bench target has four scenarios that leak a secret on purpose (one in its setup), each on a
//! line marked `// LEAK: ...` in `suites/selftest/benches/consttime.rs`, two constant-time comparisons and
//! one scenario without secrets. `run --instrument constant-time` must find each leak at its
//! exact line, report the clean ones constant time and the plain one not checked, and fail with
//! exit code 3; `check` of that run fails the same way, naming each finding.

mod common;
use common::*;

use serde_json::Value;

/// The line of `suites/selftest/benches/consttime.rs` that carries `marker`.
fn marked_line(marker: &str) -> u64 {
    let src =
        std::fs::read_to_string(workspace().join("suites/selftest/benches/consttime.rs")).unwrap();
    let lines: Vec<usize> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(marker))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(lines.len(), 1, "one line carries {marker:?}");
    lines[0] as u64
}

/// The constant-time record of `id`.
fn ct<'a>(run: &'a Value, id: &str) -> &'a Value {
    let c = &result(run, id)["constant_time"];
    assert!(
        c.is_object(),
        "{id} has no constant_time: {}",
        result(run, id)
    );
    c
}

#[test]
fn issue_28_each_leak_is_found_at_its_line_and_the_clean_ones_are_clean() {
    if !valgrind_available() {
        return;
    }
    let (out, dir) = run_suite(
        "consttime",
        &["--instrument", "constant-time", "--no-history"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let run = run_json(dir.path());
    for (id, kind, marker, in_body) in [
        ("leak/branch", "branch", "// LEAK: branch", true),
        ("leak/table", "address", "// LEAK: address", true),
        ("leak/early_exit", "branch", "// LEAK: early exit", true),
        ("leak/in_setup", "branch", "// LEAK: setup", false),
    ] {
        let c = ct(&run, id);
        assert_eq!(c["secret_marks"], 1, "{id}");
        let findings = c["findings"].as_array().unwrap();
        assert_eq!(findings.len(), 1, "{id}: {findings:#?}");
        let f = &findings[0];
        assert_eq!(f["kind"], kind, "{id}");
        assert_eq!(f["origin"], "secret", "{id}");
        assert_eq!(f["in_body"], in_body, "{id}");
        assert_eq!(
            f["at"]["file"], "suites/selftest/benches/consttime.rs",
            "{id}: {f}"
        );
        assert_eq!(f["at"]["line"], marked_line(marker), "{id}: {f}");
        assert!(f["count"].as_u64().unwrap() >= 1, "{id}");
        // Quiet, the run names each finding on stderr.
        let line = format!("CONSTANT-TIME {id}: secret-dependent {kind} at suites/selftest/benches/consttime.rs:{}", marked_line(marker));
        assert!(stderr(&out).contains(&line), "{line}\n{}", stderr(&out));
    }
    // The table lookup is one finding per byte of the 16-byte key: LLVM unrolled the loop.
    assert_eq!(ct(&run, "leak/table")["findings"][0]["count"], 16);
    for id in ["clean/subtle_ct_eq", "clean/fold_eq"] {
        let c = ct(&run, id);
        assert_eq!(c["secret_marks"], 1, "{id}");
        assert_eq!(c["secret_bytes"], 16, "{id}");
        assert_eq!(c["findings"].as_array().unwrap().len(), 0, "{id}: {c}");
    }
    let plain = ct(&run, "plain/no_secret");
    assert_eq!(plain["secret_marks"], 0);
    assert_eq!(plain["findings"].as_array().unwrap().len(), 0);
    assert!(result(&run, "leak/branch")["failures"]
        .as_array()
        .is_none_or(|f| f.is_empty()));

    // check holds the candidate to the same findings: exit 3, each named in JSON and the table.
    let check = |format: &[&str]| {
        costbench(["check", "--manifest-path"])
            .arg(selftest_manifest())
            .args(["--bench", "consttime", "--github", "off", "--baseline"])
            .arg(dir.path())
            .arg("--candidate")
            .arg(dir.path())
            .args(format)
            .output()
    };
    let o = check(&["--format", "json"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(report["passed"], false);
    let ids: Vec<&str> = report["gate"]["constant_time"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "leak/branch",
            "leak/table",
            "leak/early_exit",
            "leak/in_setup"
        ]
    );
    let o = check(&["--format", "markdown"]);
    assert_eq!(o.status.code(), Some(3));
    let row = format!(
        "| leak/branch | constant time | secret-dependent branch at suites/selftest/benches/consttime.rs:{} ",
        marked_line("// LEAK: branch")
    );
    assert!(stdout(&o).contains(&row), "{row}\n{}", stdout(&o));
    let junit = dir.path().join("junit.xml");
    let o = check(&["--junit", junit.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3));
    let xml = std::fs::read_to_string(&junit).unwrap();
    let case = format!(
        "leak/table (suites/selftest/benches/consttime.rs:{})",
        marked_line("// LEAK: address")
    );
    assert!(
        xml.contains("constant-time") && xml.contains(&case),
        "{case}\n{xml}"
    );
    let table = stdout(&o);
    let want = format!(
        "  leak/table (constant-time): secret-dependent address at suites/selftest/benches/consttime.rs:{}",
        marked_line("// LEAK: address")
    );
    assert!(table.contains(&want), "{want}\n{table}");
}
