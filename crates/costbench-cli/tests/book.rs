//! The guide book (issue 41): `book.toml` at the repository root builds `docs/` with mdBook, in
//! the order of `docs/SUMMARY.md`. mdBook itself does not fail on a broken link, so this test
//! does: every relative link and `#anchor` of README.md and of every Markdown file under docs/
//! must resolve (anchors by the slug rules GitHub and mdBook share), every chapter file must be
//! in SUMMARY.md, and SUMMARY.md must name only files that exist.
//!
//! It also holds the book's reference true to the code: `docs/reference/cli.md` is every
//! command's `--help`, generated from the clap definitions (`COSTBENCH_BLESS=1` rewrites it),
//! and every `costbench.toml` sample in the book parses as `costbench.toml`. The other samples
//! are tested elsewhere: shell lines by `docs_commands.rs`, Rust samples as doctests of
//! `suites/selftest` (see docs/contributing.md).

mod common;
use common::*;

use clap::CommandFactory;
use costbench_cli::args::Cli;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Markdown text without its fenced code blocks (each line kept, blanked, so line numbers stay).
fn prose_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fence: Option<String> = None;
    for (k, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker: String = trimmed
            .chars()
            .take_while(|c| *c == '`' || *c == '~')
            .collect();
        if marker.len() >= 3 {
            match &fence {
                Some(open) if marker.starts_with(open.as_str()) => fence = None,
                Some(_) => {}
                None => fence = Some(marker),
            }
            continue;
        }
        if fence.is_none() {
            out.push((k + 1, line.to_string()));
        }
    }
    out
}

/// `line` with inline code spans removed (a link inside backticks is not a link).
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let ticks = rest[start..].chars().take_while(|c| *c == '`').count();
        let after = &rest[start + ticks..];
        match after.find(&"`".repeat(ticks)) {
            Some(end) => rest = &after[end + ticks..],
            None => {
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The anchor of a heading, as GitHub and mdBook make it: the heading's text (links, code marks
/// and emphasis stripped), lower-cased, letters, digits, `-` and `_` kept, each blank a `-`,
/// anything else dropped.
fn slug(heading: &str) -> String {
    let link = regex::Regex::new(r"\[([^\]]*)\]\([^)]*\)").unwrap();
    let text = link.replace_all(heading, "$1");
    text.trim()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c.to_lowercase().next().unwrap_or(c))
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// Every anchor of a Markdown file: its headings' slugs (a repeated one gets `-1`, `-2`, ...)
/// and the `id`s of HTML anchors written in it.
fn anchors(text: &str) -> BTreeSet<String> {
    let html = regex::Regex::new(r#"<a\s+(?:id|name)="([^"]+)""#).unwrap();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        if let Some(heading) = line
            .strip_prefix('#')
            .map(|h| h.trim_start_matches('#'))
            .and_then(|h| h.strip_prefix(' '))
        {
            let s = slug(heading);
            let n = seen.entry(s.clone()).or_insert(0);
            out.insert(if *n == 0 {
                s.clone()
            } else {
                format!("{s}-{n}")
            });
            *n += 1;
        }
        for cap in html.captures_iter(&line) {
            out.insert(cap[1].to_string());
        }
    }
    out
}

/// One link of a Markdown file.
#[derive(Debug)]
struct Link {
    line: usize,
    target: String,
}

/// The links of a Markdown file outside code: inline `[text](target)`, images, and reference
/// definitions `[name]: target`.
fn links(text: &str) -> Vec<Link> {
    let inline = regex::Regex::new(r"\]\(\s*<?([^)\s>]+)>?(?:\s+[^)]*)?\)").unwrap();
    let definition = regex::Regex::new(r"^\s*\[[^\]]+\]:\s+<?(\S+?)>?(?:\s.*)?$").unwrap();
    let mut out = Vec::new();
    for (line, text) in prose_lines(text) {
        let text = without_code_spans(&text);
        for cap in inline.captures_iter(&text) {
            out.push(Link {
                line,
                target: cap[1].to_string(),
            });
        }
        if let Some(cap) = definition.captures(&text) {
            out.push(Link {
                line,
                target: cap[1].to_string(),
            });
        }
    }
    out
}

/// What is wrong with the links of `files` (paths relative to `root`): each broken link with
/// its place. A link to a web address is not followed.
fn broken_links(root: &Path, files: &[PathBuf]) -> Vec<String> {
    let mut cache: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    let mut anchors_of = |path: &Path| -> Option<BTreeSet<String>> {
        if let Some(a) = cache.get(path) {
            return Some(a.clone());
        }
        let text = std::fs::read_to_string(root.join(path)).ok()?;
        let a = anchors(&text);
        cache.insert(path.to_path_buf(), a.clone());
        Some(a)
    };
    let mut broken = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let dir = file.parent().unwrap_or(Path::new(""));
        for link in links(&text) {
            let place = format!("{}:{}", file.display(), link.line);
            let t = &link.target;
            if t.contains("://") || t.starts_with("mailto:") {
                continue;
            }
            let (path, fragment) = match t.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (t.as_str(), None),
            };
            let target = if path.is_empty() {
                file.clone()
            } else {
                match normalise(&dir.join(path)) {
                    Some(p) => p,
                    None => {
                        broken.push(format!("{place}: `{t}` leaves the repository"));
                        continue;
                    }
                }
            };
            if !root.join(&target).exists() {
                broken.push(format!("{place}: `{t}`: no file {}", target.display()));
                continue;
            }
            if let Some(fragment) = fragment {
                if target.extension().is_some_and(|e| e == "md") {
                    let known = anchors_of(&target).unwrap_or_default();
                    if !known.contains(fragment) {
                        broken.push(format!(
                            "{place}: `{t}`: {} has no heading `#{fragment}`",
                            target.display()
                        ));
                    }
                }
            }
        }
    }
    broken
}

/// `path` with `.` and `..` resolved lexically, or `None` when it climbs above its root.
fn normalise(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// Every Markdown file under `dir` (relative to `root`), sorted.
fn markdown_under(root: &Path, dir: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.join(dir)];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// The chapter files SUMMARY.md names, relative to docs/.
fn summary_chapters(summary: &str) -> Vec<String> {
    let link = regex::Regex::new(r"\]\(([^)]+)\)").unwrap();
    summary
        .lines()
        .flat_map(|l| {
            link.captures_iter(l)
                .map(|c| c[1].to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn issue_41_every_link_and_anchor_of_the_readme_and_the_book_resolves() {
    let root = workspace();
    let mut files = vec![PathBuf::from("README.md")];
    files.extend(markdown_under(&root, "docs"));
    assert!(files.len() > 20, "{files:?}");
    let broken = broken_links(&root, &files);
    assert!(
        broken.is_empty(),
        "broken links in the README and the book:\n{}",
        broken.join("\n")
    );
}

#[test]
fn issue_41_summary_names_every_chapter_and_only_files_that_exist() {
    let root = workspace();
    let summary = std::fs::read_to_string(root.join("docs/SUMMARY.md")).unwrap();
    let chapters: BTreeSet<String> = summary_chapters(&summary).into_iter().collect();
    let missing: Vec<&String> = chapters
        .iter()
        .filter(|c| !root.join("docs").join(c).is_file())
        .collect();
    assert!(
        missing.is_empty(),
        "SUMMARY.md names missing files: {missing:?}"
    );
    let orphans: Vec<String> = markdown_under(&root, "docs")
        .into_iter()
        .map(|p| {
            p.strip_prefix("docs")
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|p| p != "SUMMARY.md" && !chapters.contains(p))
        .collect();
    assert!(
        orphans.is_empty(),
        "Markdown files under docs/ that are no chapter of the book (add them to \
         docs/SUMMARY.md): {orphans:?}"
    );
}

/// The checker finds what it is there to find: a missing file, a missing heading, a link out
/// of the repository; and it follows neither code nor web addresses.
#[test]
fn issue_41_the_link_check_catches_broken_links() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("docs/guide")).unwrap();
    std::fs::write(
        root.join("docs/guide/a.md"),
        "# Page A\n\n## `costbench run`: the run\n\n## Twice\n\n## Twice\n\n\
         [ok](../b.md#b-heading) [ok](#costbench-run-the-run) [ok](#twice-1)\n\
         [gone](../nowhere.md) [bad anchor](../b.md#no-such-heading) [out](../../../x.md)\n\
         `[in code](nowhere.md)` [web](https://example.org/x#y)\n\n\
         ```sh\n[in a block](nowhere.md)\n```\n",
    )
    .unwrap();
    std::fs::write(root.join("docs/b.md"), "# B heading\n").unwrap();
    let broken = broken_links(root, &[PathBuf::from("docs/guide/a.md")]);
    assert_eq!(broken.len(), 3, "{broken:#?}");
    assert!(broken[0].starts_with("docs/guide/a.md:10: `../nowhere.md`: no file"));
    assert!(broken[1].contains("docs/b.md has no heading `#no-such-heading`"));
    assert!(broken[2].contains("leaves the repository"));
    assert_eq!(
        slug("`costbench variants`: the price of every build choice"),
        "costbench-variants-the-price-of-every-build-choice"
    );
    assert_eq!(
        slug(
            "Watching main: every commit's cost, change points at their commit, drift, a dashboard"
        ),
        "watching-main-every-commits-cost-change-points-at-their-commit-drift-a-dashboard"
    );
}

/// The generated reference: one section per command, its whole `--help`.
fn cli_reference() -> String {
    let mut cli = Cli::command().disable_help_subcommand(true);
    cli.build();
    let mut out = String::from(
        "# Every command and option\n\n\
         <!-- Generated from the command-line definitions by crates/costbench-cli/tests/book.rs; \
         rewrite it with `COSTBENCH_BLESS=1 cargo test -p costbench-cli --test book`. -->\n\n\
         This page is `costbench --help` and each command's `--help`, generated from the \
         definitions the runner parses its command line with, so it is exactly what the \
         installed runner says on an 80-column terminal. [Commands at a glance](commands.md) \
         says what each command is for; the guide's chapters say how to use them.\n",
    );
    fn section(cmd: &clap::Command, path: &str, out: &mut String) {
        // An environment variable's value is never shown: the page must not depend on the
        // environment it was generated in. Wrapped at 80 columns, to fit the book's page.
        let mut cmd = cmd
            .clone()
            .term_width(80)
            .mut_args(|a| a.hide_env_values(true));
        let help = cmd.render_long_help().to_string();
        let help: Vec<&str> = help.lines().map(str::trim_end).collect();
        out.push_str(&format!(
            "\n## `{path}`\n\n```text\n{}\n```\n",
            help.join("\n")
        ));
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            section(sub, &format!("{path} {}", sub.get_name()), out);
        }
    }
    section(&cli, "costbench", &mut out);
    out
}

#[test]
fn issue_41_the_cli_reference_is_every_commands_help() {
    let path = workspace().join("docs/reference/cli.md");
    let want = cli_reference();
    if std::env::var_os("COSTBENCH_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        let first = have
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(have.lines().count().min(want.lines().count()));
        panic!(
            "docs/reference/cli.md is not the runner's --help any more (first difference at line \
             {}); rewrite it with `COSTBENCH_BLESS=1 cargo test -p costbench-cli --test book` \
             and review the diff",
            first + 1
        );
    }
    let cli = Cli::command();
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        assert!(
            want.contains(&format!("## `costbench {}`", sub.get_name())),
            "{}",
            sub.get_name()
        );
    }
}

/// Cargo's tables: a TOML sample with one of them is a `Cargo.toml`, any other is a
/// `costbench.toml`.
const CARGO_TABLES: &[&str] = &[
    "package",
    "dependencies",
    "dev-dependencies",
    "build-dependencies",
    "bench",
    "profile",
    "features",
    "workspace",
    "lib",
    "target",
];

/// Every `toml` block of the README and the book.
fn toml_samples(root: &Path) -> Vec<(String, String)> {
    let mut files = vec![PathBuf::from("README.md")];
    files.extend(markdown_under(root, "docs"));
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(root.join(&file)).unwrap();
        // (first line, language, indent of the fence, body)
        let mut block: Option<(usize, String, usize, String)> = None;
        for (k, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            let indent = line.len() - trimmed.len();
            if let Some(lang) = trimmed.strip_prefix("```") {
                match block.take() {
                    Some((n, lang, _, body)) => {
                        if lang == "toml" {
                            out.push((format!("{}:{n}", file.display()), body));
                        }
                    }
                    None => block = Some((k + 1, lang.trim().to_string(), indent, String::new())),
                }
                continue;
            }
            if let Some((_, _, fence_indent, body)) = &mut block {
                // A block inside a list item is indented as its fence is.
                body.push_str(&line[indent.min(*fence_indent)..]);
                body.push('\n');
            }
        }
    }
    out
}

#[test]
fn issue_41_every_costbench_toml_sample_in_the_book_parses() {
    let root = workspace();
    let samples = toml_samples(&root);
    let mut checked = 0;
    let mut broken = Vec::new();
    for (place, body) in &samples {
        let table: toml::Table = match body.parse() {
            Ok(t) => t,
            Err(e) => {
                broken.push(format!("{place}: not TOML: {e}"));
                continue;
            }
        };
        if table.keys().any(|k| CARGO_TABLES.contains(&k.as_str())) {
            continue;
        }
        checked += 1;
        if let Err(e) = costbench_measure::config::Config::parse(body) {
            broken.push(format!("{place}: not a costbench.toml: {e:#}"));
        }
    }
    assert!(
        checked >= 5,
        "too few costbench.toml samples found: {checked}"
    );
    assert!(
        broken.is_empty(),
        "TOML samples in the README and the book that costbench would refuse:\n{}",
        broken.join("\n")
    );
}

#[test]
fn issue_41_the_exit_codes_page_names_every_exit_code() {
    use costbench_cli::exit;
    let page = std::fs::read_to_string(workspace().join("docs/reference/exit-codes.md")).unwrap();
    for code in [
        exit::OK,
        exit::FAILURE,
        exit::USAGE,
        exit::REGRESSION,
        130,
        143,
    ] {
        assert!(
            page.contains(&format!("| **{code}**")) || page.contains(&format!("/ **{code}**")),
            "docs/reference/exit-codes.md does not say what exit code {code} means"
        );
    }
}

/// Every JSON schema the code writes (`"schema": "costbench-..."`, or a `SCHEMA` constant) has
/// a row in the book's table of output documents.
#[test]
fn issue_41_the_output_page_names_every_json_schema() {
    let root = workspace();
    let page = std::fs::read_to_string(root.join("docs/reference/output.md")).unwrap();
    let written =
        regex::Regex::new(r#"(?:"schema": |SCHEMA: &str = )"(costbench-[a-z-]+)""#).unwrap();
    let mut schemas = BTreeSet::new();
    let mut stack = vec![root.join("crates")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && path.components().any(|c| c.as_os_str() == "src")
            {
                let text = std::fs::read_to_string(&path).unwrap();
                for cap in written.captures_iter(&text) {
                    schemas.insert(cap[1].to_string());
                }
            }
        }
    }
    assert!(schemas.len() >= 8, "{schemas:?}");
    let missing: Vec<&String> = schemas
        .iter()
        .filter(|s| !page.contains(&format!("| `{s}` |")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/reference/output.md has no row for the JSON schemas {missing:?}"
    );
}

/// Every repository path a shell sample of the README or the book names (`scripts/...`,
/// `crates/...`, `examples/...`, ...) exists, and a script it runs is executable: the command
/// lines themselves are parsed by docs_commands.rs.
#[test]
fn issue_41_the_paths_in_the_books_shell_samples_exist() {
    let root = workspace();
    let mut files = vec![PathBuf::from("README.md")];
    files.extend(markdown_under(&root, "docs"));
    let path = regex::Regex::new(
        r"(?:^|[\s=])((?:scripts|crates|examples|suites|fuzz|docs)/[A-Za-z0-9_./-]*[A-Za-z0-9_])",
    )
    .unwrap();
    let mut checked = 0;
    let mut broken = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let mut lang: Option<String> = None;
        for (k, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            if let Some(l) = trimmed.strip_prefix("```") {
                lang = match lang {
                    Some(_) => None,
                    None => Some(l.trim().to_string()),
                };
                continue;
            }
            if !matches!(lang.as_deref(), Some("sh" | "shell" | "bash" | "console")) {
                continue;
            }
            // Only the command, not its comment.
            let command = trimmed.split(" #").next().unwrap_or_default();
            for cap in path.captures_iter(command) {
                checked += 1;
                let p = root.join(&cap[1]);
                let place = format!("{}:{}", file.display(), k + 1);
                if !p.exists() {
                    broken.push(format!("{place}: `{}` does not exist", &cap[1]));
                } else if command.trim_start().starts_with(&cap[1]) {
                    use std::os::unix::fs::PermissionsExt;
                    let mode = p.metadata().unwrap().permissions().mode();
                    if mode & 0o111 == 0 {
                        broken.push(format!("{place}: `{}` is not executable", &cap[1]));
                    }
                }
            }
        }
    }
    assert!(
        checked >= 5,
        "too few paths found in shell samples: {checked}"
    );
    assert!(
        broken.is_empty(),
        "shell samples that name what is not in the repository:\n{}",
        broken.join("\n")
    );
}
