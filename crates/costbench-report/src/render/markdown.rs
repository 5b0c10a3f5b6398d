//! GitHub-flavoured markdown: a comparison (with the gate's verdict for `check`) as a
//! pull-request comment, and the variant matrix.

use super::{ComparisonView, Hook, MatrixView, Renderer};

/// Markdown for pull-request comments and job summaries.
pub(super) struct Markdown;

impl Renderer for Markdown {
    fn comparison<'a>(&self) -> Option<Hook<ComparisonView<'a>>> {
        Hook::offered(
            "GitHub-flavoured markdown for a pull-request comment",
            |v| match v.gate {
                Some(gate) => crate::markdown::check(v.comparison, gate),
                None => crate::markdown::comparison(v.comparison),
            },
        )
    }

    fn changes<'a>(&self) -> Option<Hook<super::ChangesView<'a>>> {
        Hook::offered(
            "GitHub-flavoured markdown for a job summary or an issue",
            |v| crate::changes::markdown(v),
        )
    }

    fn backfill<'a>(&self) -> Option<Hook<super::BackfillView<'a>>> {
        Hook::offered("Every commit taken and what became of it, for a job summary", |v| {
            crate::backfill::markdown(v.0)
        })
    }

    fn advice<'a>(&self) -> Option<Hook<super::AdviceView<'a>>> {
        Hook::offered(
            "GitHub-flavoured markdown for a pull-request comment",
            |v| crate::advice::markdown(v.0),
        )
    }

    fn matrix<'a>(&self) -> Option<Hook<MatrixView<'a>>> {
        Hook::offered(
            "With variants only: the matrix as GitHub-flavoured markdown",
            |v| crate::variants::markdown(v.matrix),
        )
    }
}
