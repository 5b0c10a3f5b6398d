//! The terminal: `--color` resolved as cargo resolves it. The status lines in cargo's style and
//! cargo's own `--color` live in `costbench_measure::terminal`, which reads the choice made here.
//!
//! The choice is made once, at start-up ([`init`]): the flag, else `CARGO_TERM_COLOR`, else
//! auto; under auto, colour only on a terminal and never with `NO_COLOR` set (anstream's rules,
//! which are cargo's). It is installed as anstream's global choice, so `anstream::eprintln!`
//! strips colour where it must not go; renderers are pure and get a [`Styling`] from
//! [`stdout_styling`]; cargo gets the same answer through `--color`.

use anyhow::{bail, Result};
use costbench_report::style::Styling;

/// `--color`: when to colour the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    /// On a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always, even into a pipe or file.
    Always,
    /// Never.
    Never,
}

/// The choice from the flag and `CARGO_TERM_COLOR` (its value, when set): the flag wins, then
/// the variable, then auto.
pub fn resolve(flag: Option<ColorWhen>, cargo_term_color: Option<&str>) -> Result<ColorWhen> {
    if let Some(f) = flag {
        return Ok(f);
    }
    match cargo_term_color {
        None | Some("") => Ok(ColorWhen::Auto),
        Some("auto") => Ok(ColorWhen::Auto),
        Some("always") => Ok(ColorWhen::Always),
        Some("never") => Ok(ColorWhen::Never),
        Some(other) => bail!(
            "CARGO_TERM_COLOR={other:?}: it must be auto, always or never (as for cargo); \
             or pass --color"
        ),
    }
}

/// The choice for clap's own help and usage errors, printed before [`init`] can run: the last
/// `--color WHEN` or `--color=WHEN` among `args`, else `CARGO_TERM_COLOR`, else auto (a value
/// clap will refuse counts as auto: clap says what is wrong with it).
pub fn clap_color(args: &[std::ffi::OsString]) -> clap::ColorChoice {
    let mut flag = None;
    let mut words = args.iter().map(|a| a.to_string_lossy());
    while let Some(w) = words.next() {
        if w == "--" {
            break;
        }
        let value = match w.strip_prefix("--color") {
            Some("") => words.next().map(|v| v.into_owned()),
            Some(v) => v.strip_prefix('=').map(str::to_string),
            None => continue,
        };
        flag = value.and_then(|v| clap::ValueEnum::from_str(&v, false).ok());
    }
    let env = std::env::var("CARGO_TERM_COLOR").ok();
    match resolve(flag, env.as_deref()).unwrap_or(ColorWhen::Auto) {
        ColorWhen::Auto => clap::ColorChoice::Auto,
        ColorWhen::Always => clap::ColorChoice::Always,
        ColorWhen::Never => clap::ColorChoice::Never,
    }
}

/// Installs the choice for everything costbench writes (see the module's comment).
pub fn init(flag: Option<ColorWhen>) -> Result<()> {
    let env = std::env::var("CARGO_TERM_COLOR").ok();
    let choice = match resolve(flag, env.as_deref())? {
        ColorWhen::Auto => anstream::ColorChoice::Auto,
        ColorWhen::Always => anstream::ColorChoice::Always,
        ColorWhen::Never => anstream::ColorChoice::Never,
    };
    choice.write_global();
    Ok(())
}

pub(crate) fn coloured(choice: anstream::ColorChoice) -> bool {
    !matches!(choice, anstream::ColorChoice::Never)
}

/// Whether text on stdout is coloured, for the renderers.
pub fn stdout_styling() -> Styling {
    if coloured(anstream::AutoStream::choice(&std::io::stdout())) {
        Styling::Ansi
    } else {
        Styling::Plain
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_gets_the_flag_from_the_raw_command_line() {
        let args = |a: &[&str]| -> Vec<std::ffi::OsString> { a.iter().map(Into::into).collect() };
        assert_eq!(
            clap_color(&args(&["costbench", "--color", "always", "run", "--help"])),
            clap::ColorChoice::Always
        );
        assert_eq!(
            clap_color(&args(&["costbench", "run", "--color=never"])),
            clap::ColorChoice::Never
        );
    }

    #[test]
    fn the_flag_beats_cargo_term_color_which_beats_auto() {
        assert_eq!(resolve(None, None).unwrap(), ColorWhen::Auto);
        assert_eq!(resolve(None, Some("always")).unwrap(), ColorWhen::Always);
        assert_eq!(resolve(None, Some("never")).unwrap(), ColorWhen::Never);
        assert_eq!(
            resolve(Some(ColorWhen::Always), Some("never")).unwrap(),
            ColorWhen::Always
        );
        assert_eq!(
            resolve(Some(ColorWhen::Auto), Some("always")).unwrap(),
            ColorWhen::Auto
        );
        let e = resolve(None, Some("yes")).unwrap_err().to_string();
        assert!(e.contains("CARGO_TERM_COLOR=\"yes\""), "{e}");
    }
}
