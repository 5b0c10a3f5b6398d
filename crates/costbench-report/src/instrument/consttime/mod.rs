//! The constant-time check's slice of the reports: the section a run's terminal table ends
//! with ([`terminal`]) and the HTML page's section, with its link in the page's navigation
//! ([`html`]): each measured id's verdict and its findings with their source lines. Its
//! findings in `check`'s gate (terminal, markdown, JUnit) are still written by those reports.

mod html;
mod terminal;

use super::{RunSection, Slice};

/// Its slice.
pub(super) const SLICE: Slice = Slice {
    run_terminal: Some(terminal::terminal),
    run_html: Some(RunSection {
        anchor: "constant-time",
        title: "Constant time",
        section: html::section,
    }),
    ..Slice::NONE
};
