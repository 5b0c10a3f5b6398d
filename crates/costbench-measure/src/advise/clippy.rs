//! clippy as a source of candidate changes: what to spawn (`cargo clippy --message-format=json`
//! on the package's library and binaries, with the `perf` group and the lints of the classic slow
//! idioms), and how to read what it wrote (its machine-applicable suggestions, each one
//! candidate). The parser is tested on real clippy output in `testdata/`.

use super::edit::Replacement;
use super::Suggestion;
use crate::cargo::{BenchTarget, CargoFlags};
use anyhow::{bail, Context, Result};
use serde::Deserialize;
use std::path::Path;

/// Lints outside the `perf` group that match the classic slow idioms (a clone, a collect, a
/// string built or copied where none is needed, a regex compiled again and again). The `perf`
/// group is asked for as a whole, and its members are read from clippy itself ([`perf_group`]),
/// since they change from release to release.
pub const IDIOM_LINTS: &[&str] = &[
    "redundant_clone",
    "needless_collect",
    "format_in_format_args",
    "to_string_in_format_args",
    "unnecessary_to_owned",
    "slow_vector_initialization",
    "single_char_pattern",
    "regex_creation_in_loops",
    "manual_memcpy",
    "extend_with_drain",
    "manual_str_repeat",
    "iter_overeager_cloned",
    "inefficient_to_string",
    "redundant_allocation",
    "format_collect",
    "or_fun_call",
    "expect_fun_call",
    "useless_vec",
    "unnecessary_join",
    "trivial_regex",
    "manual_retain",
    "collapsible_str_replace",
];

/// The members of clippy's `perf` group, from `clippy-driver -W help` (names with `_`).
pub fn perf_group() -> Result<Vec<String>> {
    let out = std::process::Command::new("clippy-driver")
        .args(["-W", "help"])
        .output()
        .context(
            "cannot run clippy-driver: advise needs clippy (rustup component add clippy), or \
             pass --only build",
        )?;
    let text = String::from_utf8_lossy(&out.stdout);
    let group = parse_group(&text, "clippy::perf");
    if group.is_empty() {
        bail!("`clippy-driver -W help` lists no clippy::perf group; is clippy installed?");
    }
    Ok(group)
}

/// The members of lint group `name` in the text of `-W help` (its lint groups table: the
/// group's name, then its members comma-separated, dashes turned to underscores).
pub fn parse_group(help: &str, name: &str) -> Vec<String> {
    help.lines()
        .find_map(|l| l.trim_start().strip_prefix(name)?.strip_prefix("  "))
        .map(|rest| {
            rest.split(',')
                .map(|m| m.trim().trim_start_matches("clippy::").replace('-', "_"))
                .filter(|m| !m.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// Runs clippy on the library and binaries of `target`'s package (cargo's default targets,
/// never the benches) with its own build directory `TARGET/costbench/build/advise-clippy`, and
/// returns the text it wrote on stdout (JSON lines) and the lints it asked for. A package that
/// does not compile is an error with the compiler's messages.
pub fn run(target: &BenchTarget, flags: &CargoFlags, lints: &[String]) -> Result<String> {
    let mut cmd = super::cargo_on_package(
        &["clippy", "--message-format=json"],
        target,
        flags,
        "advise-clippy",
    );
    cmd.arg("--")
        // Only the lints asked for, whatever the crate's own clippy settings turn on elsewhere.
        .args(["-A", "clippy::all"]);
    for l in lints {
        cmd.arg("-W").arg(format!("clippy::{l}"));
    }
    let out = cmd
        .output()
        .context("cannot run `cargo clippy`: advise needs clippy (rustup component add clippy)")?;
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    if !out.status.success() {
        let errors: Vec<String> = stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Line>(l).ok()?.message)
            .filter(|m| m.level == "error")
            .map(|m| m.rendered.unwrap_or(m.message))
            .collect();
        bail!(
            "`cargo clippy` failed on package {} ({}):\n{}{}",
            target.package,
            out.status,
            errors.join("\n"),
            String::from_utf8_lossy(&out.stderr).trim_end()
        );
    }
    Ok(stdout)
}

/// What one line of `--message-format=json` holds, as far as suggestions go.
#[derive(Debug, Deserialize)]
struct Line {
    reason: String,
    message: Option<Diagnostic>,
}

#[derive(Debug, Deserialize)]
struct Diagnostic {
    message: String,
    code: Option<Code>,
    level: String,
    spans: Vec<Span>,
    children: Vec<Diagnostic>,
    rendered: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Code {
    code: String,
}

#[derive(Debug, Deserialize)]
struct Span {
    file_name: String,
    byte_start: usize,
    byte_end: usize,
    line_start: u32,
    is_primary: bool,
    suggested_replacement: Option<String>,
    suggestion_applicability: Option<String>,
}

/// The machine-applicable suggestions of `lints` (names without `clippy::`) in clippy's JSON
/// lines, each diagnostic one suggestion, in the order clippy gave them; duplicates (the same
/// code checked for the library and a binary) once. Spans outside the workspace (absolute paths:
/// the registry, the toolchain) are never edited: a suggestion with such a span is left out.
pub fn parse(json_lines: &str, lints: &[String]) -> Vec<Suggestion> {
    let mut out: Vec<Suggestion> = Vec::new();
    for line in json_lines.lines() {
        let Ok(Line {
            reason,
            message: Some(d),
        }) = serde_json::from_str::<Line>(line)
        else {
            continue;
        };
        if reason != "compiler-message" {
            continue;
        }
        let Some(lint) = d.code.as_ref().map(|c| c.code.as_str()) else {
            continue;
        };
        let Some(name) = lint.strip_prefix("clippy::") else {
            continue;
        };
        if !lints.iter().any(|l| l == name) {
            continue;
        }
        let mut replacements = Vec::new();
        let mut outside = false;
        for s in d.children.iter().flat_map(|c| &c.spans).chain(&d.spans) {
            let (Some(text), Some("MachineApplicable")) = (
                s.suggested_replacement.as_ref(),
                s.suggestion_applicability.as_deref(),
            ) else {
                continue;
            };
            outside |= Path::new(&s.file_name).is_absolute();
            replacements.push(Replacement {
                file: s.file_name.clone(),
                start: s.byte_start,
                end: s.byte_end,
                text: text.clone(),
            });
        }
        if replacements.is_empty() || outside {
            continue;
        }
        let primary = d.spans.iter().find(|s| s.is_primary).or(d.spans.first());
        let s = Suggestion {
            rule: lint.to_string(),
            function: String::new(),
            lines: (0, 0),
            message: d.message,
            file: primary.map_or_else(|| replacements[0].file.clone(), |p| p.file_name.clone()),
            line: primary.map_or(0, |p| p.line_start),
            replacements,
        };
        if !out.iter().any(|o| o.replacements == s.replacements) {
            out.push(s);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real clippy 0.1.95 output (`cargo clippy --message-format=json -- -A clippy::all -W
    /// clippy::PERF_LINT... -W clippy::redundant_clone -W clippy::single_char_pattern`) on a small
    /// crate whose lib.rs is `testdata/clippy-fixture.rs`, its directory renamed to a made-up one.
    #[test]
    fn machine_applicable_suggestions_of_the_asked_lints() {
        let json = include_str!("testdata/clippy.json");
        let src = include_str!("testdata/clippy-fixture.rs");
        let lints: Vec<String> = IDIOM_LINTS.iter().map(|l| l.to_string()).collect();
        let found = parse(json, &lints);
        let lint_names: Vec<&str> = found.iter().map(|s| s.rule.as_str()).collect();
        assert_eq!(
            lint_names,
            [
                "clippy::redundant_clone",
                "clippy::to_string_in_format_args",
                "clippy::single_char_pattern",
                "clippy::slow_vector_initialization",
            ]
        );
        // Each applies to the file it names, as `cargo fix` would apply it.
        let applied: Vec<String> = found
            .iter()
            .map(|s| {
                super::super::edit::apply(src, &s.replacements.iter().collect::<Vec<_>>()).unwrap()
            })
            .collect();
        assert!(applied[0].contains("consume(owned)\n"), "{}", applied[0]);
        assert!(applied[2].contains("split('x')"), "{}", applied[2]);
        assert!(applied[3].contains("vec![0; n]"), "{}", applied[3]);
        assert_eq!(found[0].file, "src/lib.rs");
        // Only the lints asked for.
        assert!(parse(json, &["single_char_pattern".into()]).len() == 1);
        // A line that is not JSON, or not a message, is skipped.
        assert!(parse("not json\n{\"reason\":\"build-finished\"}\n", &lints).is_empty());
    }

    #[test]
    fn the_perf_group_is_read_from_the_help_text() {
        let help = "Lint groups provided by plugins loaded by this crate:\n\n\
                    name  sub-lints\n\
                    ----  ---------\n\
                    clippy::nursery  clippy::as-ptr-cast-mut, clippy::redundant-clone\n\
                    clippy::perf  clippy::box-collection, clippy::slow-vector-initialization\n";
        assert_eq!(
            parse_group(help, "clippy::perf"),
            ["box_collection", "slow_vector_initialization"]
        );
        assert!(parse_group(help, "clippy::pedantic").is_empty());
    }
}
