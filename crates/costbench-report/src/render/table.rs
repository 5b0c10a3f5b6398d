//! Text for people in a terminal: the tables of a run, a comparison and its gate, the variant
//! matrix, Miri's report, the census and the history.

use super::{
    CensusView, ComparisonView, HistoryView, Hook, MatrixView, MiriView, Renderer, RunView,
};

/// The terminal's tables.
pub(super) struct Table;

impl Renderer for Table {
    fn run<'a>(&self) -> Option<Hook<RunView<'a>>> {
        Hook::offered("A table for people", |v| {
            // A run that did not finish says so before its table.
            let mut s = v.record.unfinished_note().map_or_else(String::new, |n| {
                format!("UNFINISHED: {}\n", crate::escape::clean(&n))
            });
            s += &crate::terminal::table(v.record);
            if v.summaries {
                s += &crate::instrument::run_summaries(v.record, v.base);
            }
            s += &crate::budget::complexity(v.record);
            s += &crate::budget::terminal(v.record);
            s += &crate::instrument::run_terminal(v.record);
            s + &v.footer
        })
    }

    fn comparison<'a>(&self) -> Option<Hook<ComparisonView<'a>>> {
        Hook::offered("A table for people", |v| {
            let mut s = crate::comparison::terminal_styled(v.comparison, v.styling);
            if let Some(gate) = v.gate {
                s += &crate::check::terminal_styled(gate, v.styling);
            }
            s
        })
    }

    fn matrix<'a>(&self) -> Option<Hook<MatrixView<'a>>> {
        Hook::offered("A table for people", |v| {
            crate::variants::table(v.matrix) + v.footer
        })
    }

    fn advice<'a>(&self) -> Option<Hook<super::AdviceView<'a>>> {
        Hook::offered(
            "A summary line per candidate, best first, then each with its effects and diff",
            |v| crate::advice::table(v.0),
        )
    }

    fn miri<'a>(&self) -> Option<Hook<MiriView<'a>>> {
        Hook::offered(
            "A table for people, with the details of every finding",
            |v| crate::miri::table(v.0),
        )
    }

    fn census<'a>(&self) -> Option<Hook<CensusView<'a>>> {
        Hook::offered("A table for people", |v| {
            crate::instrument::census::document::table(v.census, v.guards, v.base, v.scope)
        })
    }

    fn backfill<'a>(&self) -> Option<Hook<super::BackfillView<'a>>> {
        Hook::offered(
            "One line: the commits measured, carried over, failed and recorded",
            |v| crate::backfill::line(v.0),
        )
    }

    fn changes<'a>(&self) -> Option<Hook<super::ChangesView<'a>>> {
        Hook::offered("The change points by commit, then drift, for people", |v| {
            crate::changes::terminal(v)
        })
    }

    fn history<'a>(&self) -> Option<Hook<HistoryView<'a>>> {
        Hook::file_only(|v| match *v {
            HistoryView::Runs(runs) => crate::history::runs(runs),
            HistoryView::Series { id, metric, points } => {
                crate::history::series(id, metric, points)
            }
        })
    }
}
