//! The output layer's vocabulary: [`Format`], every format a document of costbench can be
//! rendered in, and [`Render`], the one trait of every renderer. A document (a run record, its
//! CSV tables, a comparison with its gate, the variant matrix, Miri's report, the census, the
//! history listing, the HTML page) says which formats it renders and renders them to text.
//!
//! It lives here, in the lowest layer that holds documents, because the CSV tables of an output
//! directory are renderers of the run record and the measuring crate writes them while a run
//! goes on; the measuring crate sits beside the report crate, not above it, so the trait cannot
//! live there. The report crate implements it for everything it renders.
//!
//! Rendering is pure: no files, no printing, no clocks. Where the text goes (stdout, files)
//! is the runner's sink.

use std::fmt;

/// Declares [`Format`], its [`Format::ALL`] and its names: one line per format.
macro_rules! formats {
    ($($(#[$doc:meta])* $variant:ident = $name:literal,)*) => {
        /// A format a document can be rendered in. Each command offers the formats of the
        /// documents it prints; a document renders only those its [`Render::formats`] lists.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Format {
            $($(#[$doc])* $variant,)*
        }

        impl Format {
            /// Every format, in the order of the enum.
            pub const ALL: &'static [Format] = &[$(Format::$variant,)*];

            /// The name the command line gives the format (`--format NAME`).
            pub fn name(self) -> &'static str {
                match self {
                    $(Format::$variant => $name,)*
                }
            }
        }
    };
}

// The registry of formats: a new format is one line here (see docs/extending.md).
formats! {
    /// Text for people in a terminal.
    Table = "table",
    /// The document as JSON, schema-versioned.
    Json = "json",
    /// GitHub-flavoured markdown.
    Markdown = "markdown",
    /// Bencher Metric Format.
    Bmf = "bmf",
    /// JUnit XML.
    Junit = "junit",
    /// A self-contained HTML page.
    Html = "html",
    /// Comma-separated values.
    Csv = "csv",
}

impl Format {
    /// The format named `name` (see [`Format::name`]).
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.iter().copied().find(|f| f.name() == name)
    }

    /// Whether a terminal needs a line break after a document in this format: JSON (and BMF,
    /// which is JSON) is rendered without a closing one, as a file holds exactly the document.
    pub fn needs_line_break(self) -> bool {
        matches!(self, Format::Json | Format::Bmf)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A document that renders itself in one or more [`Format`]s.
pub trait Render {
    /// The formats this document renders.
    fn formats(&self) -> &'static [Format];

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
}
