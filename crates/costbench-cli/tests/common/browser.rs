//! Headless Chromium for the tests of costbench's HTML pages (the report, the dashboard): finding
//! the browser, and opening a copy of a page with a probe script around it, whose findings the
//! page's serialised DOM carries back as JSON.

use super::{skip, stderr};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// A probe's first part, run before the page's own script: every error, `console.error` and
/// `alert` is kept in `window.__errors` for the probe's last part to report.
pub const ERRORS_PROBE: &str = r#"<script>
window.__errors = [];
window.addEventListener('error', function (e) { window.__errors.push('error: ' + e.message); });
var __ce = console.error;
console.error = function () { window.__errors.push('console.error: ' + Array.prototype.join.call(arguments, ' ')); __ce.apply(console, arguments); };
window.alert = function (m) { window.__errors.push('alert called: ' + m); };
</script>"#;

/// Debian names the browser `chromium`; other distributions `chromium-browser`. `None` (and a
/// SKIPPED line, a failure under COSTBENCH_REQUIRE_TOOLS) when neither runs.
pub fn chromium() -> Option<&'static str> {
    let found = ["chromium", "chromium-browser"].into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if found.is_none() {
        skip("chromium is not installed (apt-get install chromium); this test needs it");
    }
    found
}

/// Opens a copy of `page` (written into `tmp`) with `head` put first in its `<head>` and `tail`
/// last in its `<body>` in headless Chromium, with `extra` arguments, and returns the JSON the
/// probe left in a `<pre id="probe">`.
pub fn probe(
    browser: &str,
    page: &Path,
    tmp: &Path,
    head: &str,
    tail: &str,
    extra: &[&str],
) -> Value {
    let html = std::fs::read_to_string(page).unwrap();
    assert_eq!(html.matches("<head>").count(), 1);
    assert_eq!(html.matches("</body>").count(), 1);
    let probed = html
        .replacen("<head>", &format!("<head>{head}"), 1)
        .replacen("</body>", &format!("{tail}</body>"), 1);
    let copy = tmp.join("probed.html");
    std::fs::write(&copy, probed).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            &format!("--user-data-dir={}", profile.path().display()),
        ])
        .args(extra)
        .args(["--dump-dom", &format!("file://{}", copy.display())])
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom
        .find("<pre id=\"probe\">")
        .unwrap_or_else(|| panic!("the probe did not run: {}\n{dom}", stderr(&out)))
        + "<pre id=\"probe\">".len();
    let end = start + dom[start..].find("</pre>").unwrap();
    // Text in a serialised DOM escapes &, < and > (and nothing else that JSON uses).
    let json = dom[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&");
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"))
}
