//! The output layer: [`Format`], every format costbench prints or writes a document in, declared
//! one line each in the `formats!` registry below, and [`Renderer`], the one trait of a format's
//! renderer, whose hooks (one per document: a run, a run exported, a comparison, the variant
//! matrix, Miri's report, the census, the history listing, the HTML page) default to "not
//! rendered". Each format is one file of this folder: its renderer type, the hooks it
//! implements, and for each the line `--format`'s help gives it.
//!
//! Which formats a document renders, and which values each command's `--format` takes with
//! their help, derive from which hooks are implemented ([`Doc::formats`], [`offered`]): nothing
//! else lists formats. The documents themselves ([`documents`]) implement [`Render`], the one
//! trait the runner's sink writes and prints through.
//!
//! It lives here, in the report crate, because the registry names the renderers and the
//! renderers are this crate's. The CSV files of an output directory are not a format of this
//! layer: the measuring crate rewrites them after every scenario, below this crate, so they are
//! the record crate's own writer (`costbench_record::csv`), and no command offers them on stdout.
//!
//! Rendering is pure: no files, no printing, no clocks. Where the text goes (stdout, files) is
//! the runner's sink.

pub mod documents;

use std::fmt;

pub use crate::changes::ChangesView;
pub use documents::{
    variant_runs, AdviceView, BackfillView, CensusView, ComparisonView, HistoryView, MatrixView,
    MiriView, Page, RunExport, RunView,
};

/// Declares [`Format`], its [`Format::ALL`], its names, its renderers and their modules: one
/// line per format, `Variant = "name" => module::Renderer`.
macro_rules! formats {
    ($($(#[$doc:meta])* $variant:ident = $name:literal => $module:ident :: $renderer:ident,)*) => {
        $(mod $module;)*

        /// A format a document can be rendered in. Each command offers the formats of the
        /// documents it prints; a document renders those whose renderer has its hook.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Format {
            $($(#[$doc])* $variant,)*
        }

        impl Format {
            /// Every format, in the order of the registry (the order `--help` and messages
            /// list a document's formats in).
            pub const ALL: &'static [Format] = &[$(Format::$variant,)*];

            /// The name the command line gives the format (`--format NAME`).
            pub fn name(self) -> &'static str {
                match self {
                    $(Format::$variant => $name,)*
                }
            }

            /// The format's renderer.
            pub fn renderer(self) -> &'static dyn Renderer {
                match self {
                    $(Format::$variant => &$module::$renderer,)*
                }
            }
        }
    };
}

// The registry of formats: a new format is one file in this folder and one line here (see
// docs/extending.md). The order is the order of `--help`'s values.
formats! {
    /// Text for people in a terminal.
    Table = "table" => table::Table,
    /// GitHub-flavoured markdown.
    Markdown = "markdown" => markdown::Markdown,
    /// The document as JSON, schema-versioned.
    Json = "json" => json::Json,
    /// Bencher Metric Format.
    Bmf = "bmf" => bmf::Bmf,
    /// JUnit XML.
    Junit = "junit" => junit::Junit,
    /// A self-contained HTML page.
    Html = "html" => html::Html,
    /// GitHub Actions' workflow commands (annotations).
    Github = "github" => github::Github,
}

impl Format {
    /// The format named `name` (see [`Format::name`]).
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.iter().copied().find(|f| f.name() == name)
    }

    /// Whether a terminal needs a line break after a document in this format (see
    /// [`Renderer::closes_line`]).
    pub fn needs_line_break(self) -> bool {
        !self.renderer().closes_line()
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How one format renders one document `D`: the line `--format`'s help gives the format for
/// the commands that print `D` (`None`: no `--format` value, only a file flag or the command
/// itself asks for it), and the pure function that renders.
pub struct Hook<D> {
    /// `--format`'s help line, if the format is a value of `--format` for this document.
    pub help: Option<&'static str>,
    /// The document as this format: the text a file of it holds.
    pub render: fn(&D) -> String,
}

impl<D> fmt::Debug for Hook<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hook").field("help", &self.help).finish()
    }
}

impl<D> Hook<D> {
    /// A value of `--format` for the commands printing `D`, with its help line.
    pub fn offered(help: &'static str, render: fn(&D) -> String) -> Option<Hook<D>> {
        Some(Hook {
            help: Some(help),
            render,
        })
    }

    /// Rendered only for a file flag or a command's own file, not a value of `--format`.
    pub fn file_only(render: fn(&D) -> String) -> Option<Hook<D>> {
        Some(Hook { help: None, render })
    }
}

/// A format's renderer: one hook per document, each "not rendered" unless the format
/// implements it (the way criterion's `Report` hooks default to doing nothing). The lifetime
/// of each hook is the document's borrow.
pub trait Renderer: Sync {
    /// A finished run (`run`, `merge`).
    fn run<'a>(&self) -> Option<Hook<RunView<'a>>> {
        None
    }

    /// A run exported (`export`).
    fn export<'a>(&self) -> Option<Hook<RunExport<'a>>> {
        None
    }

    /// A comparison, with the gate's verdict for `check` (`compare`, `check`).
    fn comparison<'a>(&self) -> Option<Hook<ComparisonView<'a>>> {
        None
    }

    /// The variant matrix (`variants`, `run --variant`, `merge` of variants).
    fn matrix<'a>(&self) -> Option<Hook<MatrixView<'a>>> {
        None
    }

    /// Miri's report (`miri`).
    fn miri<'a>(&self) -> Option<Hook<MiriView<'a>>> {
        None
    }

    /// The census of a binary (`census`).
    fn census<'a>(&self) -> Option<Hook<CensusView<'a>>> {
        None
    }

    /// The history listing (`history`).
    fn history<'a>(&self) -> Option<Hook<HistoryView<'a>>> {
        None
    }

    /// The HTML page of runs (`report`, `run --html`).
    fn page<'a>(&self) -> Option<Hook<Page<'a>>> {
        None
    }

    /// A branch's change points and drift (`history changes`, `history dashboard`).
    fn changes<'a>(&self) -> Option<Hook<ChangesView<'a>>> {
        None
    }

    /// Candidate changes, each measured alone (`advise`).
    fn advice<'a>(&self) -> Option<Hook<AdviceView<'a>>> {
        None
    }

    /// What a backfill did, commit by commit (`history backfill`).
    fn backfill<'a>(&self) -> Option<Hook<BackfillView<'a>>> {
        None
    }

    /// Whether the rendered text ends with its own line break. JSON (and BMF, which is JSON)
    /// is rendered without one, as a file holds exactly the document, so a terminal adds it.
    fn closes_line(&self) -> bool {
        true
    }
}

/// The kinds of document, one per hook of [`Renderer`]: what a command prints, named before
/// there is a document to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Doc {
    /// [`RunView`].
    Run,
    /// [`RunExport`].
    Export,
    /// [`ComparisonView`].
    Comparison,
    /// [`MatrixView`].
    Matrix,
    /// [`MiriView`].
    Miri,
    /// [`CensusView`].
    Census,
    /// [`HistoryView`].
    History,
    /// [`Page`].
    Page,
    /// [`ChangesView`].
    Changes,
    /// [`AdviceView`].
    Advice,
    /// [`BackfillView`].
    Backfill,
}

impl Doc {
    /// Whether `r` renders this document: `Some(help)` if it does, with its `--format` help.
    fn hook(self, r: &dyn Renderer) -> Option<Option<&'static str>> {
        match self {
            Doc::Run => r.run().map(|h| h.help),
            Doc::Export => r.export().map(|h| h.help),
            Doc::Comparison => r.comparison().map(|h| h.help),
            Doc::Matrix => r.matrix().map(|h| h.help),
            Doc::Miri => r.miri().map(|h| h.help),
            Doc::Census => r.census().map(|h| h.help),
            Doc::History => r.history().map(|h| h.help),
            Doc::Page => r.page().map(|h| h.help),
            Doc::Changes => r.changes().map(|h| h.help),
            Doc::Advice => r.advice().map(|h| h.help),
            Doc::Backfill => r.backfill().map(|h| h.help),
        }
    }

    /// The formats this document renders, in the registry's order.
    pub fn formats(self) -> Vec<Format> {
        Format::ALL
            .iter()
            .copied()
            .filter(|f| self.hook(f.renderer()).is_some())
            .collect()
    }
}

/// The values of `--format` for a command printing `docs` (the first document's first), each
/// with its help line: every format with a help line for one of them, the first help found.
pub fn offered(docs: &[Doc]) -> Vec<(Format, &'static str)> {
    let mut out: Vec<(Format, &'static str)> = Vec::new();
    for doc in docs {
        for &f in Format::ALL {
            if let Some(Some(help)) = doc.hook(f.renderer()) {
                if !out.iter().any(|(g, _)| *g == f) {
                    out.push((f, help));
                }
            }
        }
    }
    out
}

/// A document that renders itself in one or more [`Format`]s: what the runner's sink writes
/// and prints.
pub trait Render {
    /// The formats this document renders.
    fn formats(&self) -> Vec<Format>;

    /// The document as `format`: the text a file of it holds. `None` when `format` is not one
    /// of [`Render::formats`].
    fn render(&self, format: Format) -> Option<String>;
}

/// The formats of `formats` spelled for a message: `table, json or markdown`.
pub fn list(formats: &[Format]) -> String {
    match formats {
        [] => String::new(),
        [one] => one.name().to_string(),
        [init @ .., last] => {
            let init: Vec<&str> = init.iter().map(|f| f.name()).collect();
            format!("{} or {}", init.join(", "), last.name())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_lists_read_as_sentences() {
        for &f in Format::ALL {
            assert_eq!(Format::from_name(f.name()), Some(f));
        }
        assert_eq!(Format::from_name("yaml"), None);
        assert_eq!(list(&[Format::Table]), "table");
        assert_eq!(
            list(&[Format::Table, Format::Json, Format::Markdown]),
            "table, json or markdown"
        );
    }

    /// What each document renders and each command's `--format` offers, as derived from the
    /// hooks: the lists `--help` and the usage errors print.
    #[test]
    fn documents_and_commands_list_the_formats_their_hooks_give() {
        let names = |fs: Vec<Format>| fs.iter().map(|f| f.name()).collect::<Vec<_>>();
        assert_eq!(names(Doc::Run.formats()), ["table", "json"]);
        assert_eq!(names(Doc::Export.formats()), ["json", "bmf"]);
        assert_eq!(
            names(Doc::Comparison.formats()),
            ["table", "markdown", "json", "junit", "github"]
        );
        assert_eq!(names(Doc::Matrix.formats()), ["table", "markdown", "json"]);
        assert_eq!(names(Doc::Miri.formats()), ["table", "json"]);
        assert_eq!(names(Doc::Census.formats()), ["table", "json"]);
        assert_eq!(names(Doc::History.formats()), ["table"]);
        assert_eq!(names(Doc::Page.formats()), ["html"]);
        assert_eq!(names(Doc::Advice.formats()), ["table", "markdown", "json"]);
        let values = |docs: &[Doc]| {
            offered(docs)
                .into_iter()
                .map(|(f, _)| f.name())
                .collect::<Vec<_>>()
        };
        // `run`'s JSON help is the run's; markdown comes from the matrix.
        assert_eq!(
            values(&[Doc::Run, Doc::Matrix]),
            ["table", "json", "markdown"]
        );
        // JUnit is a file (`--junit FILE`), not a value of `--format`.
        assert_eq!(values(&[Doc::Comparison]), ["table", "markdown", "json"]);
        assert_eq!(values(&[Doc::Export]), ["json", "bmf"]);
        assert_eq!(values(&[Doc::History]), Vec::<&str>::new());
        assert!(Format::Json.needs_line_break() && Format::Bmf.needs_line_break());
        assert!(!Format::Table.needs_line_break() && !Format::Markdown.needs_line_break());
    }
}
