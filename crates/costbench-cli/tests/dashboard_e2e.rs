//! End-to-end test of `costbench history dashboard`: a history of 50 commits × 35 scenarios
//! recorded through the store's API (as `run` and `history backfill` record runs, with each
//! commit's parent, position, subject and author date, some carried over), steps planted in a
//! few series, the real binary writing the site, and headless Chromium opening it. A probe added
//! to a copy of the page records every error from before the page's own script runs, waits for
//! the page to say it drew its charts, filters them as a reader would, and writes what it saw
//! as JSON into the DOM, which `--dump-dom` returns. Needs Chromium: says so and passes without
//! it (fails where `COSTBENCH_REQUIRE_TOOLS` is set).

mod common;
use common::browser::chromium;
use common::*;

use costbench_record::model::{Backfill, Git};
use costbench_record::testing::{record, scenario, with_icount, with_walltime};
use serde_json::Value;
use std::path::Path;

const COMMITS: usize = 50;
const IDS: usize = 35;
/// The run at which the planted steps start.
const STEP_AT: usize = 30;
/// A scenario whose name tries to break the page.
const HOSTILE: &str = "bench/<b>&\"x\"</script><script>alert(1)</script>";

/// A commit id of commit `i` that, like a real one, differs from its neighbours at the start.
fn sha(i: usize) -> String {
    let h = (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    format!("{h:016x}{:016x}{i:08x}", h.rotate_left(29))
}

fn id(k: usize) -> String {
    if k == IDS - 1 {
        HOSTILE.to_string()
    } else {
        format!("bench/scenario-{k:02}")
    }
}

/// The history: commit `i` measured once, every ninth from the fifth carried over from the
/// commit before it (same figures, marked). From `STEP_AT` on, the instruction count of every
/// tenth scenario is 25 % higher and the wall time of scenario 7 20 % higher.
fn write_history(db: &Path) {
    let store = costbench_store::Location::Sqlite(db.to_path_buf())
        .open()
        .expect("a fresh SQLite history opens");
    for i in 0..COMMITS {
        let carried = i % 9 == 4;
        let measured = if carried { i - 1 } else { i };
        let results = (0..IDS)
            .map(|k| {
                let stepped = measured >= STEP_AT;
                let ir = 1000.0 * (k + 1) as f64 * if stepped && k % 10 == 0 { 1.25 } else { 1.0 };
                let ns = 250.0 * (k + 1) as f64 * if stepped && k == 7 { 1.2 } else { 1.0 };
                // ±1 % of scatter, different for every run and scenario.
                let samples: Vec<f64> = (0..9)
                    .map(|j| ns * (1.0 + 0.002 * ((j * 7 + measured * 13 + k) % 11) as f64 - 0.01))
                    .collect();
                with_walltime(with_icount(scenario(&id(k)), ir), &samples)
            })
            .collect();
        let mut run = record(&format!("run-{i:03}"), results);
        run.started_at = format!("2026-03-01T10:{i:02}:00Z");
        run.finished_at = None;
        run.environment.host.cpu = Some("Test CPU".into());
        run.environment.git = Some(Git {
            commit: sha(i),
            branch: Some("main".into()),
            dirty: false,
            parent: (i > 0).then(|| sha(i - 1)),
            position: Some(i as u64 + 1),
            author_date: Some(format!("2026-02-{:02}T09:00:00+01:00", 1 + i / 2)),
            subject: Some(format!("Commit {i}: touch the parser")),
        });
        if carried {
            run.backfill = Some(Backfill {
                carried_from: Some(sha(i - 1)),
                failed: None,
            });
        }
        store.record(&run).expect("the run is recorded");
    }
}

/// Runs after the page's own script: waits until the page says it drew its charts (the script
/// draws them a slice at a time), looks at them, then filters by id as a reader would.
const PROBE_TAIL: &str = r#"<script>
(function () {
  function all(sel) { return Array.prototype.slice.call(document.querySelectorAll(sel)); }
  function visible(sel) { return all(sel).filter(function (e) { return !e.closest('[hidden]'); }).length; }
  var tries = 0;
  function look() {
    var body = document.body;
    if (!body.hasAttribute('data-drawn') && !body.hasAttribute('data-error') && tries++ < 500) {
      setTimeout(look, 20);
      return;
    }
    var markers = all('.change-marker');
    var out = {
      errors: window.__errors,
      pageError: body.getAttribute('data-error'),
      series: +body.getAttribute('data-series'),
      changes: +body.getAttribute('data-changes'),
      drawn: body.hasAttribute('data-drawn') ? +body.getAttribute('data-drawn') : null,
      charts: all('svg[data-chart="timeline"]').length,
      lines: all('svg[data-chart="timeline"] path.line').length,
      rings: all('svg[data-chart="timeline"] path.ring').length,
      markers: markers.length,
      markersToRows: markers.filter(function (m) {
        var row = document.getElementById(m.getAttribute('href').slice(1));
        return row && row.tagName === 'TR';
      }).length,
      changeRows: all('tr[id^="change-"]').length,
      captions: all('figure.series figcaption b').map(function (b) { return b.textContent; }),
      elementsInCaptions: all('figure.series figcaption b *').length,
      // Scripts that would run and hold the hostile name's script (the data element holds the
      // name too, as JSON, which never runs).
      injectedScripts: all('script').filter(function (s) { return s.type !== 'application/json' && s.textContent.indexOf('alert(1)') >= 0 && s.textContent.indexOf('window.__errors') < 0; }).length
    };
    var id = document.getElementById('f-id');
    id.value = 'scenario-07';
    id.dispatchEvent(new Event('input'));
    out.filteredCharts = visible('figure.series');
    out.filteredChangeRows = visible('tr[id^="change-"]');
    out.count = document.getElementById('f-count').textContent;
    var pre = document.createElement('pre');
    pre.id = 'probe';
    pre.textContent = JSON.stringify(out);
    body.appendChild(pre);
  }
  look();
})();
</script>"#;

/// What the probe saw of `page` in Chromium.
fn probe(browser: &str, page: &Path, tmp: &Path) -> Value {
    common::browser::probe(
        browser,
        page,
        tmp,
        common::browser::ERRORS_PROBE,
        PROBE_TAIL,
        &[
            // Time for the charts' slices and the probe's waiting, skipped when idle.
            "--virtual-time-budget=20000",
        ],
    )
}

/// The dashboard of a 50-commit history opens in a browser with every chart drawn, the change
/// points marked and linked to their rows, carried-over runs drawn as such, no script error,
/// and the id filter narrowing the charts and change points.
#[test]
fn the_dashboard_of_a_branch_draws_every_series_in_a_browser() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("history.sqlite");
    write_history(&db);
    let site = tmp.path().join("site");
    let o = costbench(["history", "dashboard", "--branch", "main", "--db"])
        .arg(&db)
        .arg("-o")
        .arg(&site)
        .current_dir(tmp.path())
        .output();
    assert_eq!(
        o.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        stdout(&o),
        stderr(&o)
    );
    let page = site.join("index.html");
    assert!(page.is_file(), "no {}: {}", page.display(), stdout(&o));
    assert!(stdout(&o).contains("index.html"), "{}", stdout(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    // Self-contained: nothing is fetched from anywhere.
    for external in ["<link", " src=", "@import", "url(", "https://"] {
        assert!(!html.contains(external), "the page refers to {external}");
    }

    let Some(browser) = chromium() else {
        return;
    };
    let seen = probe(browser, &page, tmp.path());
    assert_eq!(seen["errors"], serde_json::json!([]), "{seen}");
    assert_eq!(seen["pageError"], Value::Null, "{seen}");
    // Every id's instruction count and wall time: one chart each, all drawn.
    assert_eq!(seen["series"], IDS * 2, "{seen}");
    assert_eq!(seen["drawn"], seen["series"], "{seen}");
    assert_eq!(seen["charts"], seen["series"], "{seen}");
    assert_eq!(seen["lines"], seen["series"], "{seen}");
    // Every chart has runs carried over (every ninth from the fifth) drawn as rings.
    assert_eq!(seen["rings"], seen["series"], "{seen}");
    // The planted steps: the instruction counts of scenarios 0, 10, 20 and 30 and the wall time
    // of scenario 7, each a marker linked to its row in the list.
    let changes = seen["changes"].as_u64().unwrap();
    assert!(changes >= 5, "{seen}");
    assert_eq!(seen["markers"], changes, "{seen}");
    assert_eq!(seen["markersToRows"], changes, "{seen}");
    assert_eq!(seen["changeRows"], changes, "{seen}");
    // The hostile name is a caption's text, and nothing it holds became an element or a script.
    assert!(
        seen["captions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == HOSTILE),
        "{seen}"
    );
    assert_eq!(seen["elementsInCaptions"], 0, "{seen}");
    assert_eq!(seen["injectedScripts"], 0, "{seen}");
    // Filtering by part of an id: that scenario's two charts and its wall-time change point.
    assert_eq!(seen["filteredCharts"], 2, "{seen}");
    assert_eq!(seen["filteredChangeRows"], 1, "{seen}");
    assert_eq!(seen["count"], format!("2 of {} series", IDS * 2), "{seen}");
}
