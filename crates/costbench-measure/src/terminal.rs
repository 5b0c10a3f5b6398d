//! costbench's own status lines in cargo's style (a green bold verb right-aligned in 12
//! columns, `   Measuring 12 scenarios`) and the `--color` cargo is given. Both follow the
//! colour choice the command line installed as anstream's global choice (`--color`,
//! `CARGO_TERM_COLOR`, `NO_COLOR`); this module makes no choice of its own.

use std::fmt::Display;

fn coloured(choice: anstream::ColorChoice) -> bool {
    !matches!(choice, anstream::ColorChoice::Never)
}

/// `--color` for cargo: what costbench's own stderr gets, so that cargo's lines and ours agree
/// (cargo's stderr may be a pipe costbench reads, where cargo's own auto would say never).
pub fn cargo_color() -> &'static str {
    if coloured(anstream::AutoStream::choice(&std::io::stderr())) {
        "always"
    } else {
        "never"
    }
}

/// Cargo's style of a status verb (its `HEADER`): bright green, bold.
const HEADER: anstyle::Style = anstyle::AnsiColor::BrightGreen.on_default().bold();

/// A cargo-style status line on stderr: `verb` in cargo's green bold, right-aligned in 12
/// columns, so that it lines up with cargo's own `Compiling` and `Finished` lines.
pub fn status(verb: &str, message: impl Display) {
    let style = HEADER;
    anstream::eprintln!("{style}{verb:>12}{style:#} {message}");
}
