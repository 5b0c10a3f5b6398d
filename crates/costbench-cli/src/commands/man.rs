//! `costbench man`: man pages in roff generated from the command definitions (`clap_mangen`):
//! the page of `costbench` (its options, the list of its commands, the exit codes) on stdout,
//! or, with `--output-dir`, one page per command (`costbench-run.1`, and
//! `costbench-history-changes.1` for a command's own commands), as `clap_mangen::generate_to`
//! names them. Every page is rendered before the first is written, and each is written through
//! a temporary file and a rename: a failure leaves no page half-written.

use crate::args::{Cli, ManCmd};
use anyhow::{Context, Result};
use clap::CommandFactory;
use std::io::Write;

pub(super) fn man(m: ManCmd) -> Result<i32> {
    // Built once, so that every command knows its full name (`costbench-run`), which names its
    // page and the pages the top page points to. No `help` command: it has no page of its own.
    let mut cli = Cli::command().disable_help_subcommand(true);
    cli.build();
    match m.output_dir {
        None => {
            let page = render(&cli)?;
            std::io::stdout()
                .lock()
                .write_all(&page)
                .context("cannot write the man page to stdout")?;
        }
        Some(dir) => {
            let mut pages = Vec::new();
            pages_of(&cli, &mut pages)?;
            std::fs::create_dir_all(&dir).with_context(|| {
                format!(
                    "--output-dir {}: cannot create the folder for the man pages",
                    dir.display()
                )
            })?;
            for (name, page) in &pages {
                costbench_record::output::write_atomic(&dir.join(name), page)
                    .with_context(|| format!("--output-dir {}", dir.display()))?;
            }
            costbench_measure::terminal::status(
                "Wrote",
                format!("{} man pages to {}", pages.len(), dir.display()),
            );
        }
    }
    Ok(crate::exit::OK)
}

/// The page of `cmd`, in roff, in ASCII.
fn render(cmd: &clap::Command) -> Result<Vec<u8>> {
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut page)
        .with_context(|| format!("cannot render the man page of {}", cmd.get_name()))?;
    Ok(ascii(&String::from_utf8_lossy(&page)).into_bytes())
}

/// `page` with every character beyond ASCII (the help's `⌈log2 N⌉`, `×`, `–`) written as roff's
/// `\[uXXXX]`, as `preconv` writes them: `man` runs `preconv` first, but troff itself, and
/// `groff -man` given the file, take raw UTF-8 for garbage (and warn).
fn ascii(page: &str) -> String {
    let mut out = String::with_capacity(page.len());
    for c in page.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("\\[u{:04X}]", u32::from(c)));
        }
    }
    out
}

/// `cmd`'s page and those of its visible commands, each with its file name.
fn pages_of(cmd: &clap::Command, out: &mut Vec<(String, Vec<u8>)>) -> Result<()> {
    let man = clap_mangen::Man::new(cmd.clone());
    out.push((man.get_filename(), render(cmd)?));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        pages_of(sub, out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_beyond_ascii_are_roff_escapes() {
        assert_eq!(
            ascii("at most ⌈log2 N⌉ × 2 – ok"),
            "at most \\[u2308]log2 N\\[u2309] \\[u00D7] 2 \\[u2013] ok"
        );
        assert_eq!(ascii("\\-\\-filter"), "\\-\\-filter");
    }

    /// One page per command, named as `man` looks them up, and each a page of its own command.
    #[test]
    fn a_page_per_command_named_after_its_full_name() {
        let mut cli = Cli::command().disable_help_subcommand(true);
        cli.build();
        let mut pages = Vec::new();
        pages_of(&cli, &mut pages).unwrap();
        let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
        for name in [
            "costbench.1",
            "costbench-run.1",
            "costbench-history-changes.1",
        ] {
            assert!(names.contains(&name), "{name}: {names:?}");
        }
        assert!(!names.iter().any(|n| n.contains("help")), "{names:?}");
        let run = &pages
            .iter()
            .find(|(n, _)| n == "costbench-run.1")
            .unwrap()
            .1;
        let run = String::from_utf8_lossy(run);
        assert!(run.contains(".TH costbench-run 1"), "{run}");
        assert!(run.contains("\\-\\-filter"), "{run}");
    }
}
