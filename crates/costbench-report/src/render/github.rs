//! GitHub Actions' workflow commands: a check's verdict as annotations (`crate::github`), which
//! `check` prints on stderr when it runs in GitHub Actions. Not offered on `--format`; a
//! comparison without the gate's verdict has none.

use super::{ComparisonView, Hook, Renderer};

/// Workflow commands, one line each.
pub(super) struct Github;

impl Renderer for Github {
    fn changes<'a>(&self) -> Option<Hook<super::ChangesView<'a>>> {
        Hook::file_only(|v| crate::changes::github(v))
    }

    fn comparison<'a>(&self) -> Option<Hook<ComparisonView<'a>>> {
        Hook::file_only(|v| match v.gate {
            Some(gate) => crate::github::annotations(v.comparison, gate, v.config_file),
            None => String::new(),
        })
    }
}
