//! Colours for terminal text, as a choice the caller passes in ([`Styling`]): the verdicts'
//! (regression red, improvement green, unresolved yellow, placement cyan) and the gate's. Pure:
//! nothing here looks at a terminal or the environment; the runner decides (`--color`,
//! `CARGO_TERM_COLOR`, `NO_COLOR`, whether stdout is a terminal) and the snapshot tests render
//! [`Styling::Plain`]. Styled text is ANSI SGR sequences around the words; [`crate::table`]
//! leaves them out of its column widths.

use anstyle::{AnsiColor, Style};
use costbench_judge::compare::Verdict;

/// Whether a renderer colours its text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Styling {
    /// No escape sequences: files, pipes, `--color never`, the snapshots.
    #[default]
    Plain,
    /// ANSI colours, for a terminal that shows them.
    Ansi,
}

/// A regression, a failed gate: red, bold.
pub const BAD: Style = AnsiColor::Red.on_default().bold();
/// An improvement, a passed gate: green, bold.
pub const GOOD: Style = AnsiColor::Green.on_default().bold();
/// Unresolved: yellow.
pub const UNSURE: Style = AnsiColor::Yellow.on_default();
/// Placement: cyan.
pub const PLACEMENT: Style = AnsiColor::Cyan.on_default();

impl Styling {
    /// `text` in `style`, or as it is when plain.
    pub fn paint(self, style: Style, text: &str) -> String {
        match self {
            Styling::Plain => text.to_string(),
            Styling::Ansi => format!("{style}{text}{style:#}"),
        }
    }

    /// `text` (a verdict's name, or a line about such rows) in the verdict's colour.
    pub fn verdict(self, verdict: Verdict, text: &str) -> String {
        match verdict {
            Verdict::Regression => self.paint(BAD, text),
            Verdict::Improvement => self.paint(GOOD, text),
            Verdict::Unresolved => self.paint(UNSURE, text),
            Verdict::Placement => self.paint(PLACEMENT, text),
            Verdict::Unchanged => text.to_string(),
        }
    }
}

/// The number of characters of `s` a terminal shows: its `char`s, less ANSI SGR sequences
/// (`ESC [ ... m`). Recorded strings reach the renderers through `escape::clean`, which drops
/// every control character, so the only sequences here are [`Styling`]'s own.
pub fn visible_len(s: &str) -> usize {
    let mut n = 0;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_is_the_text_and_ansi_wraps_it_in_the_verdicts_colour() {
        assert_eq!(
            Styling::Plain.verdict(Verdict::Regression, "regression"),
            "regression"
        );
        let red = Styling::Ansi.verdict(Verdict::Regression, "regression");
        assert_eq!(red, "\x1b[1m\x1b[31mregression\x1b[0m");
        assert_eq!(visible_len(&red), "regression".len());
        assert!(Styling::Ansi
            .verdict(Verdict::Improvement, "x")
            .contains("\x1b[32m"));
        assert!(Styling::Ansi
            .verdict(Verdict::Unresolved, "x")
            .contains("\x1b[33m"));
        assert_eq!(Styling::Ansi.verdict(Verdict::Unchanged, "x"), "x");
        assert_eq!(visible_len("µs"), 2);
    }
}
