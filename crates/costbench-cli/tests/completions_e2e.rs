//! Issue 41: shell completions and man pages, as cargo tools ship them, generated from the
//! command definitions. The bash script is sourced in a real bash and asked to complete
//! `costbench `; the man page is rendered by `man -l` (and troff, warnings as errors), and its
//! list of commands checked against the definitions, so that a command added later is in both.

mod common;

use clap::CommandFactory;
use common::{costbench, skip, stderr, stdout};
use costbench_cli::args::Cli;
use std::process::{Command, Stdio};

/// Every visible command of `costbench`, as the definitions name them.
fn commands() -> Vec<String> {
    let names: Vec<String> = Cli::command()
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| s.get_name().to_string())
        .collect();
    assert!(
        names.len() > 10 && names.iter().any(|n| n == "man"),
        "{names:?}"
    );
    names
}

/// Whether `program` runs here (`program --version`).
fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn issue_41_bash_completion_loads_and_completes_every_command() {
    let o = costbench(["completions", "bash"]).output();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let script = stdout(&o);
    if !runs("bash") {
        skip("bash is not installed; this test sources the completion script in it");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("costbench.bash");
    std::fs::write(&file, &script).unwrap();
    // What bash does on `costbench <TAB>`: the completion function `complete -p` names, called
    // with the words typed so far.
    let probe = r#"
        source "$1" || exit 9
        spec=$(complete -p costbench) || exit 8
        echo "SPEC $spec"
        fn=$(sed -E 's/.* -F ([^ ]+) .*/\1/' <<<"$spec")
        COMP_WORDS=(costbench "")
        COMP_CWORD=1
        COMP_LINE="costbench "
        COMP_POINT=${#COMP_LINE}
        "$fn" costbench "" costbench
        printf 'WORD %s\n' "${COMPREPLY[@]}"
        COMP_WORDS=(costbench variants --par)
        COMP_CWORD=2
        COMP_LINE="costbench variants --par"
        COMP_POINT=${#COMP_LINE}
        "$fn" costbench --par variants
        printf 'OPTION %s\n' "${COMPREPLY[@]}"
    "#;
    let o = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", probe, "probe"])
        .arg(&file)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("SPEC complete ") && l.ends_with(" -F _costbench costbench")),
        "{out}"
    );
    let words: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("WORD "))
        .collect();
    for name in commands() {
        assert!(
            words.contains(&name.as_str()),
            "{name} not completed: {words:?}"
        );
    }
    let options: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("OPTION "))
        .collect();
    assert_eq!(options, ["--parallel-builds"], "{out}");
}

/// The other shells' scripts: each names every command; where the shell is installed, it
/// parses the script without running it.
#[test]
fn issue_41_every_shell_gets_a_script() {
    for (shell, check) in [
        ("zsh", Some(["zsh", "-n"])),
        ("fish", Some(["fish", "--no-execute"])),
        ("elvish", None),
        ("powershell", None),
    ] {
        let o = costbench(["completions", shell]).output();
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", stderr(&o));
        let script = stdout(&o);
        for name in commands() {
            assert!(script.contains(&name), "{shell}: {name} missing");
        }
        if let Some([program, flag]) = check.filter(|[p, _]| runs(p)) {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("script");
            std::fs::write(&file, &script).unwrap();
            let o = Command::new(program).arg(flag).arg(&file).output().unwrap();
            assert!(
                o.status.success(),
                "{shell}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
    // A shell clap does not know is a usage error that lists those it does.
    let o = costbench(["completions", "tcsh"]).output();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("bash, elvish, fish, powershell, zsh"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn issue_41_the_man_page_renders_and_lists_every_command() {
    let o = costbench(["man"]).output();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = stdout(&o);
    // The roff structure, checked wherever the tests run.
    assert!(page.is_ascii(), "characters beyond ASCII are roff escapes");
    assert!(page.contains("\n.TH costbench 1 "), "{page}");
    for section in ["NAME", "SYNOPSIS", "OPTIONS", "SUBCOMMANDS"] {
        assert!(
            page.contains(&format!("\n.SH {section}\n")),
            "{section}: {page}"
        );
    }
    let listed: Vec<&str> = page
        .lines()
        .filter_map(|l| l.strip_prefix("costbench\\-")?.strip_suffix("(1)"))
        .collect();
    let listed: Vec<String> = listed.iter().map(|n| n.replace("\\-", "-")).collect();
    assert_eq!(listed, commands(), "{page}");
    assert!(page.contains("Exit codes:"), "{page}");

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("costbench.1");
    std::fs::write(&file, &page).unwrap();
    if !runs("man") {
        skip("man is not installed (apt-get install man-db); this test renders the man page");
        return;
    }
    let o = Command::new("man")
        .arg("-l")
        .arg(&file)
        .env("MANWIDTH", "80")
        // Set at all, it keeps bold as overstrikes in a pipe.
        .env_remove("MAN_KEEP_FORMATTING")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        text.contains("SUBCOMMANDS") && text.contains("costbench-variants(1)"),
        "{text}"
    );
}

/// `--output-dir` writes one page per command, and each renders without a troff warning.
#[test]
fn issue_41_man_output_dir_writes_a_page_per_command() {
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("man1");
    let o = costbench(["man", "--output-dir"]).arg(&pages).output();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).is_empty(), "the pages go to the folder only");
    let mut names: Vec<String> = std::fs::read_dir(&pages)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in commands() {
        assert!(
            names.contains(&format!("costbench-{name}.1")),
            "{name}: {names:?}"
        );
    }
    assert!(names.contains(&"costbench.1".to_string()), "{names:?}");
    assert!(
        names.contains(&"costbench-history-changes.1".to_string()),
        "{names:?}"
    );
    // No temporary file left behind.
    assert!(names.iter().all(|n| n.ends_with(".1")), "{names:?}");
    if !runs("groff") {
        skip("groff is not installed (apt-get install groff-base); this test renders the pages");
        return;
    }
    for name in &names {
        let o = Command::new("groff")
            .args(["-man", "-Tutf8", "-ww", "-z"])
            .arg(pages.join(name))
            .output()
            .unwrap();
        assert!(
            o.status.success() && o.stderr.is_empty(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    // A folder that cannot be made is said, with the option.
    let o = costbench(["man", "--output-dir", "/proc/costbench-cannot-write"]).output();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--output-dir /proc/costbench-cannot-write"),
        "{}",
        stderr(&o)
    );
}
