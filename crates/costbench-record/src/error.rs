//! The one error kind the layers above tell apart from every other: [`BadInput`], something the
//! caller asked for that cannot be (an option's value out of range, a name that does not exist,
//! a filter that selects nothing). The command line maps it to its usage exit code; nothing here
//! knows of the command line. Every other error is a failure of the work itself.

use std::fmt;

/// What the caller asked for cannot be: the message says what, where, and what to do instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadInput(pub String);

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// `message` as a [`BadInput`] error.
pub fn bad_input(message: impl fmt::Display) -> anyhow::Error {
    BadInput(message.to_string()).into()
}

/// Whether `error`, or any error it was given as context for, is a [`BadInput`].
pub fn is_bad_input(error: &anyhow::Error) -> bool {
    error.chain().any(|c| c.is::<BadInput>())
}

/// Returns early with a [`BadInput`] error, as `anyhow::bail!` does with any error.
#[macro_export]
macro_rules! bad_input {
    ($($arg:tt)*) => {
        return ::core::result::Result::Err($crate::error::bad_input(::core::format_args!($($arg)*)))
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context as _;

    #[test]
    fn bad_input_is_found_under_context() {
        let e: anyhow::Result<()> = Err(bad_input("--jobs 0"));
        let e = e.context("while validating").unwrap_err();
        assert!(is_bad_input(&e));
        assert_eq!(format!("{e:#}"), "while validating: --jobs 0");
        assert!(!is_bad_input(&anyhow::anyhow!("disk full")));
    }
}
