//! End-to-end test of the constant-time instrument (issue 28): the selftest suite's `consttime`
//! bench target has four scenarios that leak a secret on purpose (one in its setup), each on a
//! line marked `// LEAK: ...` in `suites/selftest/benches/consttime.rs`, two constant-time comparisons and
//! one scenario without secrets. `run --instrument constant-time` must find each leak at its
//! exact line, report the clean ones constant time and the plain one not checked, and fail with
//! exit code 3; `check` of that run fails the same way, naming each finding.

mod common;
use common::scratch::scratch_repo;
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

/// `costbench check` of the run in `run` as its own baseline, in `repo` with `config` as its
/// costbench.toml (none when `None`).
fn check_in(
    repo: &std::path::Path,
    config: Option<&str>,
    run: &std::path::Path,
    extra: &[&str],
) -> std::process::Output {
    let file = repo.join("costbench.toml");
    match config {
        Some(c) => std::fs::write(&file, c).unwrap(),
        None => {
            let _ = std::fs::remove_file(&file);
        }
    }
    costbench(["check", "--manifest-path"])
        .arg(repo.join("Cargo.toml"))
        .args(["-p", "costbench-selftest", "--bench", "consttime"])
        .args(["--github", "off", "--baseline"])
        .arg(run)
        .arg("--candidate")
        .arg(run)
        .args(extra)
        .output()
}

/// The ids of a gate's constant-time list (`constant_time` or `constant_time_accepted`).
fn gate_ids<'a>(report: &'a Value, key: &str) -> Vec<&'a str> {
    report["gate"][key]
        .as_array()
        .map(|a| a.iter().map(|v| v["id"].as_str().unwrap()).collect())
        .unwrap_or_default()
}

/// Issue 28: `[[constant-time.allow]]` in costbench.toml accepts reviewed findings. One real
/// memcheck run (a scratch copy of the selftest suite, allowing `leak/branch`'s line only, plus
/// an entry for a line with no finding) is then held by `check` and `report` to several
/// costbench.toml files: the accepted finding is reported with its reason everywhere and fails
/// nothing, the others still fail, the unused entry is warned about, and a bad entry is a usage
/// error before any build.
#[test]
fn issue_28_accepted_findings_are_reported_and_do_not_fail() {
    if !valgrind_available() {
        return;
    }
    let repo = scratch_repo();
    let file = "suites/selftest/benches/consttime.rs";
    let branch = marked_line("// LEAK: branch");
    let setup = marked_line("// LEAK: setup");
    let no_finding = marked_line("fn fold_eq(");
    let why = "reviewed: the key's parity is public in this test";
    let one = format!(
        "# accepted constant-time findings\n\
         [[constant-time.allow]]\nscenario = \"leak/branch\"\nat = \"{file}:{branch}\"\nwhy = \"{why}\"\n\n\
         [[constant-time.allow]]\nscenario = \"leak/*\"\nat = \"benches/consttime.rs:{no_finding}\"\n\
         why = \"a line with no finding\"\n"
    );
    std::fs::write(repo.path().join("costbench.toml"), &one).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = |out: &std::path::Path| {
        costbench(["run", "--manifest-path"])
            .arg(repo.path().join("Cargo.toml"))
            .args(["-p", "costbench-selftest", "--bench", "consttime"])
            .args(["--instrument", "constant-time", "--no-history", "--quiet"])
            .arg("--output-dir")
            .arg(out)
            .output()
    };
    let out = run(dir.path());
    let err = stderr(&out);
    // The other three leaks still fail the run.
    assert_eq!(out.status.code(), Some(3), "{err}");
    let accepted: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("CONSTANT-TIME ACCEPTED "))
        .collect();
    assert_eq!(accepted.len(), 1, "{err}");
    let want = format!(
        "CONSTANT-TIME ACCEPTED leak/branch: secret-dependent branch at {file}:{branch} in \
         consttime::branch_on_secret (body, "
    );
    assert!(accepted[0].starts_with(&want), "{want}\n{err}");
    assert!(
        accepted[0].ends_with(&format!("×), accepted: {why} (costbench.toml:2)")),
        "{err}"
    );
    for id in ["leak/table", "leak/early_exit", "leak/in_setup"] {
        assert!(
            err.contains(&format!("CONSTANT-TIME {id}: ")),
            "{id}\n{err}"
        );
    }
    assert!(!err.contains("CONSTANT-TIME leak/branch:"), "{err}");
    let stale = format!(
        "warning: [[constant-time.allow]] costbench.toml:7 (at = \"benches/consttime.rs:{no_finding}\") \
         matched no finding"
    );
    assert!(err.contains(&stale), "{stale}\n{err}");
    // The record keeps which entry accepted the finding, and why.
    let record = run_json(dir.path());
    let f = &ct(&record, "leak/branch")["findings"][0];
    assert_eq!(f["accepted"]["entry"], "costbench.toml:2", "{f}");
    assert_eq!(f["accepted"]["why"], why, "{f}");
    assert!(ct(&record, "leak/table")["findings"][0]["accepted"].is_null());

    // check with the same file: still exit 3, the accepted finding listed apart, the unused
    // entry warned about.
    let o = check_in(repo.path(), Some(&one), dir.path(), &["--format", "json"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains(&stale), "{}", stderr(&o));
    let report = stdout_json(&o, "check --format json");
    assert_eq!(
        gate_ids(&report, "constant_time"),
        ["leak/table", "leak/early_exit", "leak/in_setup"]
    );
    assert_eq!(gate_ids(&report, "constant_time_accepted"), ["leak/branch"]);
    assert_eq!(
        report["gate"]["constant_time_accepted"][0]["finding"]["accepted"]["why"],
        why
    );

    // Every leak allowed, by each form of `at` (FILE:LINE, a function of the chain, FILE):
    // exit 0, each shown accepted with its reason, nothing stale.
    let all = format!(
        "{one}\
         [[constant-time.allow]]\nscenario = \"leak/table\"\nat = \"table_lookup\"\nwhy = \"S-box on public data\"\n\n\
         [[constant-time.allow]]\nscenario = \"leak/early_exit\"\nat = \"benches/consttime.rs\"\nwhy = \"tag is public\"\n\n\
         [[constant-time.allow]]\nat = \"consttime.rs:{setup}\"\nwhy = \"setup only\"\n"
    )
    .replace("scenario = \"leak/*\"\nat = \"benches/consttime.rs:", "scenario = \"plain/*\"\nat = \"benches/consttime.rs:");
    let o = check_in(repo.path(), Some(&all), dir.path(), &[]);
    let (table, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{table}\n{err}");
    assert!(table.contains("\ncheck: passed\n"), "{table}");
    for (id, why) in [
        ("leak/branch", why),
        ("leak/table", "S-box on public data"),
        ("leak/early_exit", "tag is public"),
        ("leak/in_setup", "setup only"),
    ] {
        let line = table
            .lines()
            .find(|l| l.starts_with(&format!("accepted (constant-time): {id}: ")))
            .unwrap_or_else(|| panic!("{id} is not listed as accepted:\n{table}"));
        assert!(
            line.contains(&format!(", accepted: {why} (costbench.toml:")),
            "{line}"
        );
    }
    // `plain/*` never had a finding: that entry is stale; the others all matched.
    assert_eq!(err.matches("matched no finding").count(), 1, "{err}");
    let junit = dir.path().join("junit.xml");
    let o = check_in(
        repo.path(),
        Some(&all),
        dir.path(),
        &["--format", "markdown", "--junit", junit.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(0));
    let md = stdout(&o);
    assert!(md.contains("### costbench check: passed"), "{md}");
    assert!(
        md.contains("| leak/table | accepted | secret-dependent address at "),
        "{md}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(
        xml.matches("<skipped message=\"secret-dependent").count(),
        4,
        "{xml}"
    );

    // With costbench.toml, its entries as they are now decide: leak/branch's entry removed, the
    // finding the run accepted fails again (and the entry left is stale).
    let removed = one.replacen("scenario = \"leak/branch\"", "scenario = \"gone/*\"", 1);
    assert_ne!(removed, one);
    let o = check_in(
        repo.path(),
        Some(&removed),
        dir.path(),
        &["--format", "json"],
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let report = stdout_json(&o, "check --format json");
    assert!(gate_ids(&report, "constant_time_accepted").is_empty());
    assert_eq!(gate_ids(&report, "constant_time").len(), 4);
    // `kind` narrows an entry: leak/branch's line, addresses only, does not accept its branch;
    // branches only does.
    for (kind, accepted) in [("address", 0), ("branch", 1)] {
        let narrowed = one.replacen(
            &format!("at = \"{file}:{branch}\"\n"),
            &format!("at = \"{file}:{branch}\"\nkind = \"{kind}\"\n"),
            1,
        );
        assert_ne!(narrowed, one);
        let o = check_in(
            repo.path(),
            Some(&narrowed),
            dir.path(),
            &["--format", "json"],
        );
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
        let report = stdout_json(&o, "check --format json");
        assert_eq!(
            gate_ids(&report, "constant_time_accepted").len(),
            accepted,
            "{kind}"
        );
    }

    // Without costbench.toml, the record's acceptance stands: what run said, check says.
    let o = check_in(repo.path(), None, dir.path(), &["--format", "json"]);
    assert_eq!(o.status.code(), Some(3));
    let report = stdout_json(&o, "check --format json");
    assert_eq!(gate_ids(&report, "constant_time_accepted"), ["leak/branch"]);
    assert_eq!(gate_ids(&report, "constant_time").len(), 3);
    assert!(!stderr(&o).contains("matched no finding"));
    let html = dir.path().join("report.html");
    let o = costbench(["report", "--no-history", "-o"])
        .arg(&html)
        .arg(dir.path())
        .output();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("<td class=\"accepted\">1 accepted finding, not constant time</td>"),
        "no accepted verdict in the HTML report"
    );
    assert!(page.contains(&format!(
        ", accepted: {} (costbench.toml:2)",
        why.replace('\'', "&#39;")
    )));

    // A bad entry is a usage error naming it, said before anything is built.
    for (bad, needle) in [
        (
            "[[constant-time.allow]]\nat = \"benches/consttime.rs:27\"\n",
            "[[constant-time.allow]] at costbench.toml:1: `why` is missing or empty",
        ),
        (
            "\n[[constant-time.allow]]\nat = \"benches/consttime.rs:2x\"\nwhy = \"r\"\n",
            "[[constant-time.allow]] at costbench.toml:2: `at = \"benches/consttime.rs:2x\"`: \"2x\" is not a line number",
        ),
        (
            "[[constant-time.allow]]\nat = \"\"\nwhy = \"r\"\n",
            "`at` is missing or empty",
        ),
    ] {
        std::fs::write(repo.path().join("costbench.toml"), bad).unwrap();
        let never = dir.path().join("never");
        let o = run(&never);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{needle}\n{}", stderr(&o));
        assert!(!never.exists(), "nothing written for a bad costbench.toml");
    }
}
