//! The values `--format` takes, command by command: which documents each command prints, and
//! the clap parser that reads its `--format` into the one [`Format`]. The values and their help
//! lines are the renderers' (`costbench_report::render`, derived from which hooks each format
//! implements); a command only names its documents here. Nothing here renders or prints.

use costbench_report::render::{offered, Doc, Format};

/// `--format`'s values for a command printing `docs`, each with its help line: one [`Format`]
/// for every command, while each command offers the formats of the documents it prints (the
/// documents refuse the rest, `crate::output`).
pub fn parser(docs: &[Doc]) -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser as _};
    PossibleValuesParser::new(
        offered(docs)
            .into_iter()
            .map(|(f, help)| PossibleValue::new(f.name()).help(help)),
    )
    .map(|name| Format::from_name(&name).expect("a possible value names a format"))
}

/// `run`'s, `variants`' and `merge`'s documents: a run, or the matrix of variants.
pub const RUN: &[Doc] = &[Doc::Run, Doc::Matrix];

/// `compare`'s and `check`'s document.
pub const COMPARE: &[Doc] = &[Doc::Comparison];

/// `history changes`' and `history dashboard`'s document: the change points and drift.
pub const CHANGES: &[Doc] = &[Doc::Changes];

/// `export`'s document.
pub const EXPORT: &[Doc] = &[Doc::Export];

/// `miri`'s document.
pub const MIRI: &[Doc] = &[Doc::Miri];

/// `census`'s document.
pub const CENSUS: &[Doc] = &[Doc::Census];

/// `advise`'s document: candidate changes, each measured alone.
pub const ADVICE: &[Doc] = &[Doc::Advice];

/// `history backfill`.
pub const BACKFILL: &[Doc] = &[Doc::Backfill];
