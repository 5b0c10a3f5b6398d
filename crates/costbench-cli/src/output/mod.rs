//! The runner's output layer: one [`Sink`] per command, which takes the document the command
//! produced (a `Render` of `costbench_report::render` or `costbench_record::csv`), the format
//! stdout gets (none under `--quiet`), and every file asked for (`check --markdown`/`--junit`,
//! `compare --junit`, `report`'s and `run --html`'s report.html, a variants root's
//! matrix.json), writes each file atomically and then prints; [`formats`] lists the values of
//! each command's `--format`. What the HTML page shows is gathered and judged in the command
//! core (`core::page`): this layer only renders it, like every other format.
//!
//! Commands build a sink from their flags and never match on formats themselves: a format a
//! document does not render is refused here ([`accept`], before anything is built, and again
//! when emitting), as a usage error ([`Unsupported`]). This module must not render (the
//! documents do) nor choose exit codes beyond that refusal.

pub mod formats;

use anyhow::{Context, Result};
use costbench_report::render::{self, Doc, Format, Render};
use std::path::PathBuf;

/// A format asked for on the command line that the command's document does not render: a usage
/// error (exit 2).
#[derive(Debug)]
pub struct Unsupported {
    /// What prints, as the message names it (`costbench run without variants`).
    pub what: String,
    /// The format asked for.
    pub asked: Format,
    /// The formats it has.
    pub offered: Vec<Format>,
    /// How to get the format asked for, if there is a way.
    pub hint: &'static str,
}

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "--format {}: {} prints {}{}",
            self.asked,
            self.what,
            render::list(&self.offered),
            self.hint
        )
    }
}

impl std::error::Error for Unsupported {}

/// Refuses `format` unless the document `doc` renders it, naming what prints as `what`; `hint`
/// ends the message (say how to get the format).
pub fn accept(what: &str, format: Format, doc: Doc, hint: &'static str) -> Result<(), Unsupported> {
    let offered = doc.formats();
    if offered.contains(&format) {
        return Ok(());
    }
    Err(Unsupported {
        what: what.to_string(),
        asked: format,
        offered,
        hint,
    })
}

/// One file asked for.
#[derive(Debug)]
struct Request {
    path: PathBuf,
    format: Format,
    /// How an error names the file (`--junit FILE`); `None`: the writer's own message.
    context: Option<String>,
}

/// Where a document goes: stdout in one format (or nowhere), stderr in one format (or nowhere:
/// GitHub's workflow commands, which GitHub reads there as on stdout, so that a JSON report on
/// stdout stays JSON) and every file asked for.
#[derive(Debug, Default)]
pub struct Sink {
    stdout: Option<Format>,
    stderr: Option<Format>,
    files: Vec<Request>,
}

impl Sink {
    /// A sink printing in `stdout` (`None`: nothing on stdout).
    pub fn new(stdout: Option<Format>) -> Sink {
        Sink {
            stdout,
            stderr: None,
            files: Vec::new(),
        }
    }

    /// Also prints the document as `format` on stderr, after stdout.
    pub fn stderr(mut self, format: Option<Format>) -> Sink {
        self.stderr = format;
        self
    }

    /// Also writes the document as `format` to `path`; an error names the file as `context`.
    pub fn file(mut self, path: PathBuf, format: Format, context: Option<String>) -> Sink {
        self.files.push(Request {
            path,
            format,
            context,
        });
        self
    }

    /// `--FLAG FILE`, when given: the document as `format` to that file, errors naming the flag.
    pub fn flag_file(self, flag: &str, path: Option<&PathBuf>, format: Format) -> Sink {
        match path {
            Some(p) => {
                let context = format!("{flag} {}", p.display());
                self.file(p.clone(), format, Some(context))
            }
            None => self,
        }
    }

    /// Writes every file asked for, in the order asked, each atomically; returns each file's
    /// size in bytes, in that order.
    pub fn write_files(&self, doc: &dyn Render) -> Result<Vec<usize>> {
        let mut sizes = Vec::new();
        for f in &self.files {
            let written = text(doc, f.format).and_then(|t| {
                costbench_record::output::write_atomic(&f.path, t.as_bytes()).map(|()| t.len())
            });
            sizes.push(match &f.context {
                Some(c) => written.with_context(|| c.clone())?,
                None => written?,
            });
        }
        Ok(sizes)
    }

    /// Prints the document in the stdout format, if any, then in the stderr format, if any.
    /// JSON gets a closing line break on a terminal, which its files do not hold.
    pub fn print(&self, doc: &dyn Render) -> Result<()> {
        if let Some(format) = self.stdout {
            let t = text(doc, format)?;
            // Through anstream: styled tables lose their colours where stdout cannot show them.
            anstream::print!("{t}");
            if format.needs_line_break() {
                anstream::println!();
            }
        }
        if let Some(format) = self.stderr {
            use std::io::Write as _;
            let t = text(doc, format)?;
            // What stdout holds comes first where both go to one log.
            let _ = std::io::stdout().flush();
            eprint!("{t}");
        }
        Ok(())
    }

    /// Writes the files, then prints; returns the files' sizes as [`Sink::write_files`] does.
    pub fn emit(&self, doc: &dyn Render) -> Result<Vec<usize>> {
        let sizes = self.write_files(doc)?;
        self.print(doc)?;
        Ok(sizes)
    }
}

/// What stdout gets of a document asked for as `format`: `--quiet` silences the table for
/// people, never a document a program asked for.
pub fn stdout(format: Format, quiet: bool) -> Option<Format> {
    (!quiet || format != Format::Table).then_some(format)
}

/// `doc` as `format`, or the usage error of a format it does not render.
fn text(doc: &dyn Render, format: Format) -> Result<String> {
    doc.render(format).ok_or_else(|| {
        Unsupported {
            what: "this document".into(),
            asked: format,
            offered: doc.formats(),
            hint: "",
        }
        .into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A document of two formats, one of them JSON.
    struct Text;

    impl Render for Text {
        fn formats(&self) -> Vec<Format> {
            vec![Format::Table, Format::Json]
        }

        fn render(&self, format: Format) -> Option<String> {
            match format {
                Format::Table => Some("table\n".into()),
                Format::Json => Some("{}".into()),
                _ => None,
            }
        }
    }

    #[test]
    fn every_file_gets_its_format_and_a_missing_format_is_a_usage_error() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.json"), dir.path().join("b.txt"));
        Sink::new(None)
            .flag_file("--json", Some(&a), Format::Json)
            .flag_file("--none", None, Format::Markdown)
            .file(b.clone(), Format::Table, None)
            .emit(&Text)
            .unwrap();
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "{}");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "table\n");
        let e = Sink::new(None)
            .flag_file("--junit", Some(&a), Format::Junit)
            .emit(&Text)
            .unwrap_err();
        assert!(e.chain().any(|c| c.is::<Unsupported>()), "{e:#}");
        assert_eq!(
            format!("{e:#}"),
            format!(
                "--junit {}: --format junit: this document prints table or json",
                a.display()
            )
        );
        let refused = accept("run", Format::Markdown, Doc::Run, "; add --variant").unwrap_err();
        assert_eq!(
            refused.to_string(),
            "--format markdown: run prints table or json; add --variant"
        );
        assert!(accept("run", Format::Json, Doc::Run, "").is_ok());
    }
}
