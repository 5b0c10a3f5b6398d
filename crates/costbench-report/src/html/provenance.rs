//! The provenance table: for every run shown, where it came from (commit, tool and library
//! versions, rustc, valgrind, host, instruments), so that a reader can tell what was compared.

use super::escape::escape;
use super::git_label;
use costbench_record::model::RunRecord;
use std::fmt::Write as _;

/// The provenance section of `runs`.
pub(super) fn provenance(page: &mut String, runs: &[RunRecord]) {
    page.push_str(
        "<h2 id=\"provenance\">Provenance</h2><table class=\"sortable\" id=\"provenance-table\"><thead><tr>\
         <th>run</th><th class=\"text\">variant</th><th class=\"text\">started</th><th class=\"text\">commit</th>\
         <th class=\"text\">tool</th><th class=\"text\">rustc</th><th class=\"text\">valgrind</th>\
         <th class=\"text\">host</th><th class=\"text\">instruments</th><th>results</th></tr></thead><tbody>",
    );
    for r in runs {
        let h = &r.environment.host;
        let host = format!(
            "{} · {} cores · {} · {} · {}",
            h.cpu.as_deref().unwrap_or("unknown CPU"),
            h.cores,
            h.os.as_deref().unwrap_or("unknown OS"),
            h.kernel.as_deref().unwrap_or("unknown kernel"),
            h.arch
        );
        let _ = write!(
            page,
            "<tr><td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td>\
             <td class=\"text\">{} {} (library {}, {} {})</td><td class=\"text\">{}</td><td class=\"text\">{}</td>\
             <td class=\"text\">{}</td><td class=\"text\">{}</td><td data-v=\"{}\">{}</td></tr>",
            escape(&r.run_id),
            escape(&r.variant),
            escape(&r.started_at),
            escape(&git_label(r)),
            escape(&r.tool.name),
            escape(&r.tool.version),
            escape(&r.suite.library_version),
            escape(&r.suite.package),
            escape(&r.suite.bench),
            escape(r.environment.rustc.as_deref().unwrap_or("unknown")),
            escape(r.environment.valgrind.as_deref().unwrap_or("not used")),
            escape(&host),
            escape(&r.settings.instruments.join(", ")),
            r.results.len(),
            r.results.len()
        );
    }
    page.push_str("</tbody></table>");
}
