//! End-to-end tests of the HTML report (`costbench report`, `costbench run --html`): reports of
//! real runs of the selftest suite, opened in headless Chromium. The tests add a probe script
//! to a copy of the page (errors are collected from before the page's own script runs; at the
//! end the probe counts charts and series, sorts a table by clicking its headings, and writes
//! what it saw as JSON into the DOM, which `--dump-dom` returns). Tests that need Chromium or
//! valgrind say so and pass when they are missing.

mod common;
use common::browser::chromium;
use common::scratch::{scratch_repo, set_knob};
use common::*;

use serde_json::Value;
use std::path::Path;
use std::process::Output;

const INJECTED: &str = "<script>alert(1)</script>";

/// Runs after the page's own script: what a reader would see and do.
const PROBE_TAIL: &str = r#"<script>
(function () {
  function all(sel) { return Array.prototype.slice.call(document.querySelectorAll(sel)); }
  function charts(kind) {
    return all('svg[data-chart="' + kind + '"]').map(function (s) {
      return { series: +s.getAttribute('data-series'), drawn: s.querySelectorAll('.series').length };
    });
  }
  var out = {
    errors: window.__errors,
    distribution: charts('distribution'),
    history: charts('history'),
    heatmap: charts('heatmap'),
    percentiles: charts('percentiles'),
    heatmapCells: all('svg[data-chart="heatmap"] g.cell').length,
    flames: all('details.flame svg[data-chart="flame"]').map(function (s) {
      return { frames: +s.getAttribute('data-frames'), drawn: s.querySelectorAll('g.frame > rect').length };
    }),
    flameTitles: all('svg[data-chart="flame"] g.frame > title').map(function (t) { return t.textContent; }),
    titles: all('section.scenario h3').map(function (h) { return h.textContent; }),
    injectedScripts: all('script').filter(function (s) { return s.textContent.indexOf('alert(1)') >= 0 && s.textContent.indexOf('window.__errors') < 0; }).length,
    elementsInTitles: all('section.scenario h3 *').length
  };
  var t = document.getElementById('overview-table');
  var heads = Array.prototype.slice.call(t.tHead.rows[0].cells);
  var col = heads.findIndex(function (h) { return h.textContent.indexOf('time/op') === 0; });
  function column() {
    return Array.prototype.map.call(t.tBodies[0].rows, function (r) { return parseFloat(r.cells[col].getAttribute('data-v')); });
  }
  heads[col].click();
  out.ascending = column();
  out.ariaAfterOne = heads[col].getAttribute('aria-sort');
  heads[col].click();
  out.descending = column();
  heads[0].click();
  out.byName = Array.prototype.map.call(t.tBodies[0].rows, function (r) { return r.cells[0].textContent; });
  var pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"#;

/// Opens a copy of `report` with the probe in headless Chromium and returns what the probe saw.
fn probe(browser: &str, report: &Path, tmp: &Path) -> Value {
    common::browser::probe(
        browser,
        report,
        tmp,
        common::browser::ERRORS_PROBE,
        PROBE_TAIL,
        &[],
    )
}

fn run_selftest(out: &Path, db: &Path, instruments: &str, extra: &[&str]) -> Output {
    let manifest = workspace().join("suites/selftest/Cargo.toml");
    let mut args = vec![
        "run",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bench",
        "selftest",
        "--filter",
        "^(empty|calibrate/1000|sort/10000)$",
        "--iterations-per-scenario",
        "10",
        "--instrument",
        instruments,
        "--output-dir",
        out.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    costbench(&args).output()
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

#[test]
fn report_renders_in_a_browser_with_charts_sorting_and_escaped_names() {
    let Some(browser) = chromium() else {
        return;
    };
    let instruments = if valgrind_installed() {
        "icount,walltime"
    } else {
        eprintln!("note: valgrind is not installed; the report shows wall time only");
        "walltime"
    };
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        tmp.path().join("a"),
        tmp.path().join("b"),
        tmp.path().join("c"),
    );
    let db = tmp.path().join("history.sqlite");
    let o = run_selftest(&a, &db, instruments, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run_selftest(&b, &db, instruments, &["--html"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page =
        std::fs::read_to_string(b.join("report.html")).expect("run --html writes report.html");
    // The run before it in history is its baseline: both distributions in every wall-time chart.
    assert_eq!(
        page.matches(r#"data-chart="distribution" data-series="2""#)
            .count(),
        3,
        "{page}"
    );
    assert!(page.contains(r#"data-chart="history" data-series="1" data-points="2""#));

    // A run of another variant whose first scenario has a hostile name.
    let mut run: Value =
        serde_json::from_str(&std::fs::read_to_string(b.join("run.json")).unwrap()).unwrap();
    run["run_id"] = Value::from(format!("{}-injected", run["run_id"].as_str().unwrap()));
    run["variant"] = Value::from("<b>v2</b>");
    run["results"][0]["id"] = Value::from(INJECTED);
    run["results"][0]["scenario"] = Value::from(INJECTED);
    std::fs::create_dir_all(&c).unwrap();
    std::fs::write(c.join("run.json"), run.to_string()).unwrap();

    // Two runs of one variant, with history: changes, paired distributions, history charts.
    let r1 = tmp.path().join("r1.html");
    let o = costbench([
        "report",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--output",
        r1.to_str().unwrap(),
    ])
    .output();
    assert!(o.status.success(), "{}", stderr(&o));
    let seen = probe(browser, &r1, tmp.path());
    assert_eq!(seen["errors"], Value::Array(vec![]), "{seen}");
    let dist = seen["distribution"].as_array().unwrap();
    assert_eq!(dist.len(), 3, "one wall-time chart per scenario: {seen}");
    for d in dist {
        assert_eq!(d["series"], 2, "baseline and candidate: {seen}");
        assert_eq!(d["drawn"], 2, "{seen}");
    }
    let per_scenario = if instruments.starts_with("icount") {
        2
    } else {
        1
    };
    let hist = seen["history"].as_array().unwrap();
    // Per scenario and metric, and the bench binary's size and build time (issue 28), which
    // both runs recorded.
    assert_eq!(hist.len(), 3 * per_scenario + 2, "{seen}");
    assert!(
        hist.iter().all(|h| h["series"] == 1 && h["drawn"] == 1),
        "{seen}"
    );
    assert_eq!(
        seen["heatmap"],
        Value::Array(vec![]),
        "one variant: no matrix"
    );
    let asc = numbers(&seen["ascending"]);
    let desc = numbers(&seen["descending"]);
    assert_eq!(asc.len(), 3);
    assert!(asc.windows(2).all(|w| w[0] <= w[1]), "{asc:?}");
    assert!(desc.windows(2).all(|w| w[0] >= w[1]), "{desc:?}");
    assert!(
        asc[0] < asc[2],
        "three different scenarios take different times: {asc:?}"
    );
    assert_eq!(seen["ariaAfterOne"], "ascending");
    assert_eq!(
        seen["byName"],
        serde_json::json!(["calibrate/1000", "empty", "sort/10000"])
    );

    // Runs of two variants: the heat map, and the hostile name shown as text.
    let r2 = tmp.path().join("r2.html");
    let o = costbench([
        "report",
        b.to_str().unwrap(),
        c.to_str().unwrap(),
        "--no-history",
        "--output",
        r2.to_str().unwrap(),
    ])
    .output();
    assert!(o.status.success(), "{}", stderr(&o));
    let seen = probe(browser, &r2, tmp.path());
    assert_eq!(seen["errors"], Value::Array(vec![]), "{seen}");
    let heat = seen["heatmap"].as_array().unwrap();
    assert_eq!(heat.len(), per_scenario, "{seen}");
    assert!(heat.iter().all(|h| h["series"] == 2), "{seen}");
    // Rows: the injected id (only in v2), the id it replaced (only in default), and two shared.
    assert_eq!(seen["heatmapCells"], 4 * 2 * per_scenario, "{seen}");
    assert_eq!(seen["injectedScripts"], 0, "{seen}");
    assert_eq!(seen["elementsInTitles"], 0, "{seen}");
    assert!(
        seen["titles"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == INJECTED),
        "the name shows as text: {seen}"
    );
    assert_eq!(seen["history"], Value::Array(vec![]), "--no-history");
}

/// Issue 27: a real change (the selftest suite's knob turned in a scratch repository, checked
/// with `check --baseline-rev HEAD`), and the report of the two output directories `check`
/// kept: the changed scenario's section has its differential flame graph, whose widest red
/// frame is the function that spins more, with both sides' cost per op in its tooltip; the
/// unchanged scenario has none; Chromium renders it without errors.
#[test]
fn a_real_change_gets_its_differential_flame_graph() {
    if !valgrind_available() {
        return;
    }
    let repo = scratch_repo();
    set_knob(repo.path(), 5);
    let out = tempfile::tempdir().unwrap();
    let o = costbench(["check", "--manifest-path"])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .arg(repo.path().join("Cargo.toml"))
        .args([
            "-p",
            "costbench-selftest",
            "--bench",
            "selftest",
            "--baseline-rev",
            "HEAD",
            "--instrument",
            "icount",
            "--no-history",
            "--quiet",
            "--filter",
            "^(knob/spin|calibrate/1000)$",
            "--output-dir",
        ])
        .arg(out.path())
        .output();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let page = out.path().join("report.html");
    let o = costbench(["report"])
        .arg(out.path().join("baseline"))
        .arg(out.path().join("candidate"))
        .args(["--no-history", "--output"])
        .arg(&page)
        .output();
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html.matches(r#"data-chart="flame""#).count(), 1, "{html}");
    let start = html.find(r#"data-scenario="knob/spin""#).unwrap();
    let section = &html[start..start + html[start..].find("</section>").unwrap()];
    assert!(section.contains("<details class=\"flame\">"), "{section}");
    // The frame with the largest change of its own cost is full red, and it is the spin (the
    // knob adds 500 steps to 100,000: its own cost per op grew, the region's with it).
    let red = section
        .split("<g class=\"frame\"")
        .find(|g| g.contains(r#"fill="rgb(255,0,0)""#))
        .unwrap_or_else(|| panic!("no full-red frame: {section}"));
    assert!(red.contains("spin"), "{red}");
    assert!(red.contains("inclusive per op: "), "{red}");
    let Some(browser) = chromium() else {
        return;
    };
    let seen = probe(browser, &page, out.path());
    assert_eq!(seen["errors"], Value::Array(vec![]), "{seen}");
    let flames = seen["flames"].as_array().unwrap();
    assert_eq!(flames.len(), 1, "{seen}");
    assert!(flames[0]["frames"].as_u64().unwrap() >= 3, "{seen}");
    assert_eq!(flames[0]["frames"], flames[0]["drawn"], "{seen}");
    // The root's tooltip, as the browser reads it: both sides per op, the candidate's larger.
    let root = seen["flameTitles"][0].as_str().unwrap();
    assert!(
        root.starts_with("costbench_measured_region\ninclusive per op: "),
        "{root}"
    );
    let (base, cand) = root
        .lines()
        .nth(1)
        .and_then(|l| l.strip_prefix("inclusive per op: "))
        .and_then(|l| l.split_once(" → "))
        .map(|(b, rest)| (b.to_string(), rest.split(' ').next().unwrap().to_string()))
        .unwrap();
    let num = |s: &str| s.replace(',', "").parse::<f64>().unwrap();
    assert!(num(&cand) > num(&base), "{root}");
}

/// One service scenario under load from one client, the shortest load the options allow (about
/// 3 s): its row in throughput.csv and the run's table, and its percentile chart in the page.
#[test]
fn throughput_run_draws_a_percentile_chart_and_writes_throughput_csv() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t");
    let manifest = selftest_manifest();
    let o = costbench([
        "run",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bench",
        "service",
        "--filter",
        "^echo/plain$",
        "--instrument",
        "throughput",
        "--clients",
        "1",
        "--load-rounds",
        "3",
        "--slices",
        "3",
        "--slice-ms",
        "100",
        "--output-dir",
        out.to_str().unwrap(),
        "--no-history",
        "--html",
    ])
    .output();
    assert!(o.status.success(), "{}", stderr(&o));
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(
        table.contains("\nthroughput: service scenarios under load"),
        "{table}"
    );
    assert!(
        table.lines().any(|l| l.starts_with("echo/plain        1  ")
            && l.contains(" ops/s (")
            && l.ends_with("closed loop")),
        "{table}"
    );
    assert!(
        !table.contains("echo/plain@1c"),
        "not in the main table: {table}"
    );
    let csv = std::fs::read_to_string(out.join("throughput.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 2, "{csv}");
    assert!(
        lines[1].starts_with("echo/plain@1c,echo/plain,1,closed,,"),
        "{csv}"
    );
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(page.contains(r#"data-chart="percentiles" data-series="1""#));
    let Some(browser) = chromium() else {
        return;
    };
    let seen = probe(browser, &out.join("report.html"), tmp.path());
    assert_eq!(seen["errors"], Value::Array(vec![]), "{seen}");
    assert_eq!(
        seen["percentiles"],
        serde_json::json!([{ "series": 1, "drawn": 1 }]),
        "{seen}"
    );
}

#[test]
fn report_without_runs_or_history_says_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("none.sqlite");
    let out = tmp.path().join("r.html");
    let o = costbench([
        "report",
        "--db",
        db.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
    ])
    .output();
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("no history database at") && e.contains("name the runs"),
        "{e}"
    );
    assert!(!out.exists());
    // A directory that is not a run.
    let o = costbench([
        "report",
        tmp.path().to_str().unwrap(),
        "--no-history",
        "--output",
        out.to_str().unwrap(),
    ])
    .output();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no run.json"), "{}", stderr(&o));
    let o = costbench(["report", "--history", "--no-history"]).output();
    assert_eq!(
        o.status.code(),
        Some(2),
        "conflicting flags are a usage error"
    );
}
