//! The documentation's command lines checked against the real command-line definitions (issue
//! 16): every `costbench ...`, `cargo costbench ...` and `cargo run -- ...` line shown in
//! README.md and in every chapter of the book, docs/**/*.md (docs/github-actions.md aside: it
//! describes CI, written elsewhere; the generated docs/reference/cli.md has no command line)
//! must parse with `Cli::try_parse_from`, and the cheap ones (`--help`, `--list`) are run for real
//! from the repository root. A line that no longer parses fails with its file and line.
//!
//! Lines in shell code blocks are examples to copy: they must parse whole. Inline code in prose
//! and tables is often a synopsis (`costbench compare BASE CAND`, `--format json|bmf`): when it
//! does not parse whole, its command and every option it names must still exist.

mod common;
use common::*;

use clap::{CommandFactory, Parser};
use costbench_cli::args::Cli;
use std::path::Path;

/// One command line found in the docs.
#[derive(Debug)]
struct DocCommand {
    /// `README.md:123`.
    place: String,
    /// The line as written.
    text: String,
    /// Arguments as a shell would split them, program name first (`costbench`).
    argv: Vec<String>,
    /// From a shell code block (must parse whole), not inline code.
    example: bool,
}

/// Splits a shell line into words (quotes, backslashes), stopping at a comment, a pipe, a
/// redirection or a command separator: what the first command of the line gets.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            '#' if !in_word => break,
            '|' | ';' | '&' | '>' | '<' => break,
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The costbench arguments of a shell command, program name first, or `None` when the command is
/// not costbench: `costbench ARGS`, `cargo costbench ARGS`, `cargo run [--release] -- ARGS`, with
/// `NAME=VALUE` variables in front allowed.
fn costbench_argv(words: &[String]) -> Option<Vec<String>> {
    let words: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .skip_while(|w| *w == "$" || w.split_once('=').is_some_and(|(k, _)| is_env_name(k)))
        .collect();
    let rest: &[&str] = match words.as_slice() {
        ["costbench", rest @ ..] | ["cargo", "costbench", rest @ ..] => rest,
        ["cargo", "run", tail @ ..] => {
            let dashes = tail.iter().position(|w| *w == "--")?;
            &tail[dashes + 1..]
        }
        _ => return None,
    };
    let mut argv = vec!["costbench".to_string()];
    argv.extend(rest.iter().map(|w| w.to_string()));
    Some(argv)
}

fn is_env_name(k: &str) -> bool {
    !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Every costbench command line of one markdown file.
fn commands_in(file: &str, text: &str) -> Vec<DocCommand> {
    let inline = regex::Regex::new(r"`((?:cargo )?costbench [^`]+)`").unwrap();
    let mut out = Vec::new();
    let mut fence: Option<String> = None;
    let mut pending = String::new();
    let mut pending_line = 0;
    for (k, line) in text.lines().enumerate() {
        let n = k + 1;
        let trimmed = line.trim_start();
        if let Some(lang) = trimmed.strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(lang.trim().to_string()),
            };
            continue;
        }
        match &fence {
            Some(lang) if matches!(lang.as_str(), "sh" | "shell" | "bash" | "console" | "") => {
                if pending.is_empty() {
                    pending_line = n;
                }
                // A line continued with a backslash goes on.
                match trimmed.strip_suffix('\\') {
                    Some(head) => {
                        pending.push_str(head);
                        pending.push(' ');
                        continue;
                    }
                    None => pending.push_str(trimmed),
                }
                let whole = std::mem::take(&mut pending);
                if let Some(argv) = costbench_argv(&shell_words(&whole)) {
                    out.push(DocCommand {
                        place: format!("{file}:{pending_line}"),
                        text: whole.trim().to_string(),
                        argv,
                        example: true,
                    });
                }
            }
            Some(_) => {}
            None => {
                for cap in inline.captures_iter(line) {
                    // In a markdown table, `\|` is a `|` inside a cell.
                    let span = cap[1].replace("\\|", "|");
                    let argv =
                        costbench_argv(&synopsis_words(&span)).expect("starts with costbench");
                    out.push(DocCommand {
                        place: format!("{file}:{n}"),
                        text: span,
                        argv,
                        example: false,
                    });
                }
            }
        }
    }
    out
}

/// Inline code split at blanks only: a synopsis's `a|b` and `[X]` are words, not shell syntax.
fn synopsis_words(span: &str) -> Vec<String> {
    span.split_whitespace()
        .map(|w| w.trim_matches('\'').to_string())
        .collect()
}

/// For a synopsis that does not parse whole: its command exists, and every option it names is
/// one of that command's (or a global one).
fn names_exist(argv: &[String]) -> Result<(), String> {
    let cli = Cli::command();
    let Some(name) = argv.get(1) else {
        return Ok(());
    };
    if name.starts_with('-') {
        return Ok(());
    }
    let sub = cli
        .find_subcommand(name)
        .ok_or_else(|| format!("no command `{name}`"))?;
    for word in &argv[2..] {
        let flag = word.split('=').next().unwrap_or_default();
        let known = if let Some(long) = flag.strip_prefix("--") {
            long.is_empty()
                || ["help", "color"].contains(&long)
                || sub.get_arguments().any(|a| a.get_long() == Some(long))
        } else if let Some(short) = flag.strip_prefix('-') {
            let mut chars = short.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => {
                    c == 'h' || sub.get_arguments().any(|a| a.get_short() == Some(c))
                }
                // Not an option: a negative number, a `-NAME` value.
                _ => true,
            }
        } else {
            true
        };
        if !known {
            return Err(format!("`{name}` has no option `{flag}`"));
        }
    }
    Ok(())
}

/// The markdown files whose commands are checked: the README and every chapter of the book.
fn doc_files() -> Vec<(String, String)> {
    let root = workspace();
    let mut files = vec!["README.md".to_string()];
    let mut docs = Vec::new();
    let mut stack = vec![root.join("docs")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md")
                && !path.ends_with("docs/github-actions.md")
            {
                let rel = path.strip_prefix(&root).unwrap();
                docs.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    docs.sort();
    assert!(
        docs.iter().any(|d| d.starts_with("docs/guide/")),
        "the book's chapters under docs/guide/ are read: {docs:?}"
    );
    files.extend(docs);
    files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(root.join(&f)).unwrap();
            (f, text)
        })
        .collect()
}

fn all_commands() -> Vec<DocCommand> {
    doc_files()
        .iter()
        .flat_map(|(f, t)| commands_in(f, t))
        .collect()
}

#[test]
fn every_command_line_in_the_docs_parses_with_the_real_definitions() {
    let commands = all_commands();
    assert!(
        commands.iter().filter(|c| c.example).count() >= 15,
        "the extraction found too few examples: {commands:#?}"
    );
    let mut broken = Vec::new();
    for c in &commands {
        let parsed = Cli::try_parse_from(&c.argv);
        let help_or_version = parsed.as_ref().is_err_and(|e| !e.use_stderr());
        match parsed {
            Ok(_) => {}
            Err(_) if help_or_version => {}
            Err(e) if c.example => broken.push(format!(
                "{}: `{}` does not parse: {}",
                c.place,
                c.text,
                e.to_string().lines().next().unwrap_or_default()
            )),
            Err(_) => {
                if let Err(why) = names_exist(&c.argv) {
                    broken.push(format!("{}: `{}`: {why}", c.place, c.text));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "command lines in the docs that the command line no longer takes:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_cheap_commands_in_the_docs_run() {
    let cheap: Vec<DocCommand> = all_commands()
        .into_iter()
        .filter(|c| c.example && c.argv.iter().any(|a| a == "--help" || a == "--list"))
        .collect();
    assert!(
        cheap.iter().any(|c| c.argv.iter().any(|a| a == "--list")),
        "the docs show a --list example: {cheap:#?}"
    );
    for c in &cheap {
        let out = costbench(&c.argv[1..]).current_dir(workspace()).output();
        assert!(
            out.status.success(),
            "{}: `{}` failed: {}",
            c.place,
            c.text,
            stderr(&out)
        );
        assert!(
            !out.stdout.is_empty(),
            "{}: `{}` printed nothing",
            c.place,
            c.text
        );
    }
}

#[test]
fn the_extraction_reads_shell_lines_as_a_shell_would() {
    let md = "text `costbench compare BASE CAND` and `cargo costbench run --format json\\|bmf`\n\
              ```sh\n\
              CARGO_TERM_COLOR=never costbench run --filter '^(a|b)$' | head  # comment\n\
              cargo run --release -- check \\\n  --baseline-rev main\n\
              echo costbench run\n\
              ```\n";
    let found = commands_in("x.md", md);
    let argvs: Vec<Vec<&str>> = found
        .iter()
        .map(|c| c.argv.iter().map(String::as_str).collect())
        .collect();
    assert_eq!(
        argvs,
        [
            vec!["costbench", "compare", "BASE", "CAND"],
            vec!["costbench", "run", "--format", "json|bmf"],
            vec!["costbench", "run", "--filter", "^(a|b)$"],
            vec!["costbench", "check", "--baseline-rev", "main"],
        ]
    );
    assert_eq!(found[3].place, "x.md:4");
    assert!(!found[1].example && found[2].example);
    // A broken example is caught, with its place.
    assert!(Cli::try_parse_from(["costbench", "run", "--no-such-option"]).is_err());
    assert!(names_exist(&found[1].argv).is_ok());
    let bad: Vec<String> = ["costbench", "run", "--no-such-option"]
        .map(String::from)
        .to_vec();
    assert_eq!(
        names_exist(&bad).unwrap_err(),
        "`run` has no option `--no-such-option`"
    );
    let _ = Path::new("");
}

/// The book's "Repository layout" table (docs/contributing.md) names every crate, suite, doc
/// page and script, and every source file directly under a crate's `src/` of the runner (where
/// files are added most).
#[test]
fn the_layout_table_names_everything_in_the_repository() {
    let root = workspace();
    let page = std::fs::read_to_string(root.join("docs/contributing.md")).unwrap();
    let table = page
        .split("## Repository layout")
        .nth(1)
        .and_then(|t| t.split("\n## ").next())
        .expect("docs/contributing.md has a Repository layout section");
    let list = |dir: &str| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with('.'))
            .collect();
        names.sort();
        names
    };
    let mut wanted: Vec<String> = Vec::new();
    for dir in ["crates", "suites", "docs", "scripts"] {
        wanted.extend(list(dir).into_iter().map(|n| format!("{dir}/{n}")));
    }
    wanted.extend(
        [
            ".ci/run",
            "costbench.toml",
            "book.toml",
            "LICENSE-MIT",
            "LICENSE-APACHE",
        ]
        .map(String::from),
    );
    wanted.extend(
        list("crates/costbench-cli/src")
            .into_iter()
            .filter(|n| n.ends_with(".rs") && !["lib.rs", "main.rs"].contains(&n.as_str()))
            .map(|n| format!("`{n}`")),
    );
    let missing: Vec<&String> = wanted
        .iter()
        .filter(|w| {
            let bare = w.trim_matches('`');
            !(table.contains(&format!("`{bare}`")) || table.contains(&format!("`{bare}/")))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/contributing.md's Repository layout table does not name: {missing:?}"
    );
}
