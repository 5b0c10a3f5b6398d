//! Issue 29, item 11 and 12: one name per concept across every command, and help in plain
//! words. Walks the clap definition of every subcommand (`Cli::command()`), so that an option
//! added later is held to the same rules: a concept (the results folder, the history database,
//! the manifest, the scenario filter, a baseline run, a baseline variant) has one long name
//! everywhere; a long name has one meaning (one value name) everywhere; and no help text uses
//! the project's internal words.

use clap::{Arg, Command, CommandFactory};
use costbench_cli::args::Cli;
use std::collections::BTreeMap;

/// Every visible option of every subcommand: (command path, argument).
fn options(cmd: &Command, path: &str, out: &mut Vec<(String, Arg)>) {
    for a in cmd.get_arguments() {
        if a.get_long().is_some() && !a.is_hide_set() {
            out.push((path.to_string(), a.clone()));
        }
    }
    for sub in cmd.get_subcommands() {
        options(sub, &format!("{path} {}", sub.get_name()), out);
    }
}

fn all_options() -> Vec<(String, Arg)> {
    let mut out = Vec::new();
    options(&Cli::command(), "costbench", &mut out);
    out
}

fn help(a: &Arg) -> String {
    let mut s = a.get_help().map(|h| h.to_string()).unwrap_or_default();
    if let Some(l) = a.get_long_help() {
        s.push(' ');
        s.push_str(&l.to_string());
    }
    s
}

fn value_name(a: &Arg) -> String {
    a.get_value_names()
        .map(|v| {
            v.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

/// A concept, how to recognise an option that stands for it, and its one long name.
struct Concept {
    what: &'static str,
    is: fn(long: &str, value: &str, help: &str) -> bool,
    name: &'static str,
}

const CONCEPTS: &[Concept] = &[
    Concept {
        what: "the results folder",
        is: |long, value, help| {
            value == "DIR" && (long.contains("out") || help.contains("results"))
        },
        name: "output-dir",
    },
    Concept {
        what: "the history database",
        is: |_, value, help| value == "PATH|URL" || help.starts_with("History database"),
        name: "db",
    },
    Concept {
        what: "the manifest",
        is: |long, _, help| long.contains("manifest") || help.starts_with("Cargo.toml"),
        name: "manifest-path",
    },
    Concept {
        what: "the scenario filter",
        is: |long, value, help| {
            (long.contains("filter") || value == "REGEX") && help.contains("scenario")
        },
        name: "filter",
    },
    Concept {
        what: "a baseline run",
        is: |long, _, help| long.starts_with("baseline") && help.starts_with("Baseline run"),
        name: "baseline",
    },
    Concept {
        what: "a baseline variant",
        is: |long, _, help| long.starts_with("baseline") && help.contains("variant the others"),
        name: "baseline-variant",
    },
];

#[test]
fn issue_29_one_long_name_per_concept() {
    let mut wrong = Vec::new();
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (path, a) in all_options() {
        let long = a.get_long().unwrap();
        let (value, help) = (value_name(&a), help(&a));
        for c in CONCEPTS {
            let is = (c.is)(long, &value, &help);
            if is {
                *seen.entry(c.what).or_default() += 1;
            }
            if is && long != c.name {
                wrong.push(format!("{path} --{long}: {} is --{}", c.what, c.name));
            }
            // And the other way: a concept's name means that concept wherever it is used
            // (census's --filter over functions, a --baseline that is a variant).
            if !is && long == c.name {
                wrong.push(format!(
                    "{path} --{long}: not {}, but spelled as it",
                    c.what
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // Each rule recognises what it is about: a rule that matched nothing would pass vacuously.
    for c in CONCEPTS {
        assert!(
            seen.get(c.what).copied().unwrap_or(0) > 0,
            "no option is {}",
            c.what
        );
    }
}

#[test]
fn issue_29_one_meaning_per_long_name() {
    let mut meanings: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for (path, a) in all_options() {
        meanings
            .entry(a.get_long().unwrap().to_string())
            .or_default()
            .entry(value_name(&a))
            .or_default()
            .push(path);
    }
    // The one name with two value kinds, and why that is one meaning: a variant is named by its
    // name, which `run` and `variants` also accept with its settings after a colon.
    let twofold: Vec<_> = meanings
        .iter()
        .filter(|(name, m)| m.len() > 1 && !(*name == "variant" && m.contains_key("SPEC")))
        .collect();
    assert!(
        twofold.is_empty(),
        "one name, several value kinds: {twofold:#?}"
    );
}

/// Words of the project's internals that a user has no way to know, with what was meant.
const BANNED: &[(&str, &str)] = &[
    (" side ", "say the baseline or the candidate, or the build"),
    ("sides of", "say the baseline and the candidate"),
    (
        "project's VM",
        "say what was measured, on which machine, in docs",
    ),
    (
        "this project's",
        "the help describes costbench, not its development",
    ),
    ("looks", "an internal of the adaptive rounds"),
    ("Holm over", "an internal of the error control"),
    (
        "data-placement spread",
        "say: within what shifting the heap and stack changes",
    ),
];

#[test]
fn issue_29_help_speaks_plain_words() {
    let mut found = Vec::new();
    fn texts(cmd: &Command, path: &str, out: &mut Vec<(String, String)>) {
        for t in [cmd.get_about(), cmd.get_long_about()]
            .into_iter()
            .flatten()
        {
            out.push((path.to_string(), t.to_string()));
        }
        for a in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
            out.push((format!("{path} {}", a.get_id()), help(a)));
        }
        for sub in cmd.get_subcommands() {
            texts(sub, &format!("{path} {}", sub.get_name()), out);
        }
    }
    let mut all = Vec::new();
    texts(&Cli::command(), "costbench", &mut all);
    assert!(all.len() > 100, "the walk found the help texts");
    for (place, text) in all {
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for (word, instead) in BANNED {
            if flat.contains(word) {
                found.push(format!("{place}: {word:?} ({instead})"));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

/// Issue 29, item 12: `census --format json` was documented as "the run record"; it prints the
/// census's own document.
#[test]
fn issue_29_census_json_is_not_called_the_run_record() {
    let census = Cli::command()
        .find_subcommand("census")
        .expect("census")
        .clone();
    let format = census
        .get_arguments()
        .find(|a| a.get_long() == Some("format"))
        .expect("--format");
    let json = format
        .get_possible_values()
        .into_iter()
        .find(|v| v.get_name() == "json")
        .expect("json");
    let help = json.get_help().map(|h| h.to_string()).unwrap_or_default();
    assert!(!help.contains("run record"), "{help}");
    assert!(help.contains("costbench-census"), "{help}");
}

/// Issue 29, item 11: the old spellings still work, hidden: scripts written for them go on.
#[test]
fn issue_29_old_spellings_are_hidden_aliases() {
    use clap::Parser;
    use costbench_cli::args::Command as C;
    let parse = |args: &[&str]| {
        Cli::try_parse_from(std::iter::once("costbench").chain(args.iter().copied()))
            .unwrap_or_else(|e| panic!("{args:?}: {e}"))
            .command
    };
    let C::Run(r) = parse(&["run", "--variant", "a:", "--baseline", "a"]) else {
        unreachable!()
    };
    assert_eq!(r.variants.baseline_variant.as_deref(), Some("a"));
    let C::Merge(m) = parse(&["merge", "d1", "--output", "out"]) else {
        unreachable!()
    };
    assert_eq!(m.output_dir.unwrap().to_str(), Some("out"));
    let C::Census(c) = parse(&["census", "--filter", "my_crate"]) else {
        unreachable!()
    };
    assert_eq!(c.functions.as_deref(), Some("my_crate"));
    // Hidden: the help shows one spelling.
    let mut cmd = Cli::command();
    let help = cmd
        .find_subcommand_mut("merge")
        .unwrap()
        .render_long_help()
        .to_string();
    assert!(
        help.contains("--output-dir") && !help.contains("--output "),
        "{help}"
    );
}
