//! The values `--format` takes, command by command: one list per command of the formats it
//! offers on stdout, each with the help line its `--help` shows, and the clap parser that reads
//! them into the one [`Format`]. Which formats a document renders is the document's to say
//! (`costbench_report::render`); these lists are the command line's words for them. Nothing
//! here renders or prints.

use costbench_record::render::Format;

/// `--format`'s values for one command, each with the help that command's `--help` gives it:
/// one [`Format`] for every command, while each command offers the formats of the documents it
/// prints (the documents refuse the rest, `crate::output`).
pub fn parser(
    values: &'static [(Format, &'static str)],
) -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser as _};
    PossibleValuesParser::new(
        values
            .iter()
            .map(|(f, help)| PossibleValue::new(f.name()).help(*help)),
    )
    .map(|name| Format::from_name(&name).expect("a possible value names a format"))
}

/// `run`'s, `variants`' and `merge`'s formats.
pub const RUN: &[(Format, &str)] = &[
    (Format::Table, "A table for people"),
    (
        Format::Json,
        "The run record (the same as run.json) on stdout; with variants, the matrix",
    ),
    (
        Format::Markdown,
        "With variants only: the matrix as GitHub-flavoured markdown",
    ),
];

/// `compare`'s and `check`'s formats.
pub const COMPARE: &[(Format, &str)] = &[
    (Format::Table, "A table for people"),
    (
        Format::Markdown,
        "GitHub-flavoured markdown for a pull-request comment",
    ),
    (Format::Json, "The comparison as JSON"),
];

/// `export`'s formats.
pub const EXPORT: &[(Format, &str)] = &[
    (Format::Json, "The run record (run.json), schema-versioned"),
    (
        Format::Bmf,
        "Bencher Metric Format (`bencher run --adapter json`)",
    ),
];

/// `miri`'s formats.
pub const MIRI: &[(Format, &str)] = &[
    (
        Format::Table,
        "A table for people, with the details of every finding",
    ),
    (
        Format::Json,
        "The report as JSON (`\"schema\": \"costbench-miri\"`)",
    ),
];

/// `census`'s formats.
pub const CENSUS: &[(Format, &str)] = &[
    (Format::Table, "A table for people"),
    (
        Format::Json,
        "The run record (the same as run.json) on stdout",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_report::render::{
        CensusView, ComparisonView, MatrixView, MiriView, RunExport, RunView,
    };

    /// Every value a command offers is a format its document renders (`run`'s markdown: the
    /// matrix's), so that only `output::accept` refuses one, for a document the input chose.
    #[test]
    fn every_offered_format_is_rendered_by_the_commands_document() {
        let rendered = |list: &[(Format, &str)], by: &[&[Format]]| {
            for (f, _) in list {
                assert!(
                    by.iter().any(|d| d.contains(f)),
                    "{f} offered, never rendered"
                );
            }
        };
        rendered(RUN, &[RunView::FORMATS, MatrixView::FORMATS]);
        rendered(COMPARE, &[ComparisonView::FORMATS]);
        rendered(EXPORT, &[RunExport::FORMATS]);
        rendered(MIRI, &[MiriView::FORMATS]);
        rendered(CENSUS, &[CensusView::FORMATS]);
    }
}
