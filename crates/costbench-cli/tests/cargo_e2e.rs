//! End-to-end tests of cargo's own flags on the commands that build (issue 16): `--features`,
//! `--profile`, `--locked`, `--offline` and `--frozen` reach cargo, and what they changed is
//! recorded. The real binary, real cargo builds; tests that need valgrind say so and measure
//! wall time instead.

mod common;
use common::*;

use std::path::Path;

/// `costbench run --list` of the selftest bench target with `extra` arguments: its stdout.
fn list(extra: &[&str]) -> String {
    let manifest = selftest_manifest();
    let mut args = vec![
        "run",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bench",
        "selftest",
        "--list",
        "--quiet",
    ];
    args.extend_from_slice(extra);
    let out = costbench(&args).output();
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

#[test]
fn a_scenario_that_exists_only_under_a_feature_is_listed_and_measured_with_features() {
    assert!(!list(&[]).contains("feature/extra"));
    let listed = list(&["--features", "extra"]);
    assert!(listed.contains("feature/extra  (1 runs)"), "{listed}");
    // Cargo's spellings: -F, and lists split at commas or spaces.
    assert!(list(&["-F", "longer extra"]).contains("feature/extra"));

    let dir = tempfile::tempdir().unwrap();
    let manifest = selftest_manifest();
    let valgrind = valgrind_available();
    let mut args = vec![
        "run",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bench",
        "selftest",
        "--features",
        "extra",
        "--filter",
        "^(empty|feature/extra)$",
        "--output-dir",
        dir.path().to_str().unwrap(),
        "--no-history",
        "--quiet",
    ];
    if valgrind {
        args.extend(["--instrument", "icount"]);
    } else {
        args.extend(["--instrument", "walltime", "--iterations-per-scenario", "3"]);
    }
    let out = costbench(&args).output();
    assert!(out.status.success(), "{}", stderr(&out));
    let run = run_json(dir.path());
    assert_eq!(run["settings"]["features"], serde_json::json!(["extra"]));
    assert!(
        run["settings"].get("profile").is_none(),
        "the default profile"
    );
    if valgrind {
        // calibrated_loop::<3000>: exactly 2 * 3000 + 1 instructions.
        assert_eq!(ir(&run, "feature/extra") - ir(&run, "empty"), 6001);
    } else {
        assert!(result(&run, "feature/extra")["walltime"].is_object());
    }
}

#[test]
fn a_user_profile_is_built_and_recorded_and_an_unknown_one_is_cargos_error() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = selftest_manifest();
    let valgrind = valgrind_available();
    let mut args = vec![
        "run",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bench",
        "selftest",
        "--profile",
        "release",
        "--filter",
        "^(empty|calibrate/1000)$",
        "--output-dir",
        dir.path().to_str().unwrap(),
        "--no-history",
        "--quiet",
    ];
    if valgrind {
        args.extend(["--instrument", "icount"]);
    } else {
        args.extend(["--instrument", "walltime", "--iterations-per-scenario", "3"]);
    }
    let out = costbench(&args).output();
    assert!(out.status.success(), "{}", stderr(&out));
    let run = run_json(dir.path());
    assert_eq!(run["settings"]["profile"], "release");
    if valgrind {
        // Optimised as the bench profile is: the calibrated loop's exact count.
        assert_eq!(ir(&run, "calibrate/1000") - ir(&run, "empty"), 2001);
    }

    let out = costbench([
        "run",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bench",
        "selftest",
        "--profile",
        "no-such-profile",
        "--list",
    ])
    .output();
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    // Cargo's own message (costbench's line tables make the profile half-defined to cargo)
    // and what to do.
    assert!(
        e.contains("profile `no-such-profile` is missing an `inherits` directive"),
        "{e}"
    );
    assert!(
        e.contains("hint: --profile no-such-profile must be defined in the workspace's Cargo.toml"),
        "{e}"
    );
}

/// A crate of its own with one bench target `b` (not a costbench suite: these tests stop at the
/// build) and the given lock file.
fn lone_crate(dependencies: &str, lock: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("benches")).unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        format!(
            "[package]\nname = \"lone\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dependencies]\n{dependencies}\n\n[[bench]]\nname = \"b\"\nharness = false\n"
        ),
    )
    .unwrap();
    std::fs::write(root.join("benches/b.rs"), "fn main() {}\n").unwrap();
    std::fs::write(root.join("Cargo.lock"), lock).unwrap();
    dir
}

fn list_lone(root: &Path, flag: Option<&str>) -> std::process::Output {
    let manifest = root.join("Cargo.toml");
    let mut args = vec![
        "run",
        "--manifest-path",
        manifest.to_str().unwrap(),
        "--bench",
        "b",
        "--list",
    ];
    args.extend(flag);
    costbench(&args).output()
}

#[test]
fn locked_and_frozen_reach_cargo_which_refuses_a_stale_lock_file() {
    // The lock file names another version of the package: cargo must rewrite it.
    let stale = "version = 4\n\n[[package]]\nname = \"lone\"\nversion = \"0.0.9\"\n";
    for flag in ["--locked", "--frozen"] {
        let krate = lone_crate("", stale);
        let out = list_lone(krate.path(), Some(flag));
        assert_eq!(out.status.code(), Some(1), "{flag}");
        let e = stderr(&out);
        assert!(
            e.contains(&format!("because {flag} was passed to prevent this")),
            "{flag}: cargo's own message: {e}"
        );
        let lock = std::fs::read_to_string(krate.path().join("Cargo.lock")).unwrap();
        assert_eq!(lock, stale, "{flag}: the lock file is untouched");
    }
    // Without either, cargo updates the lock file and builds (the binary is no costbench suite,
    // so listing fails after the build, with costbench's message, not cargo's).
    let krate = lone_crate("", stale);
    let out = list_lone(krate.path(), None);
    let e = stderr(&out);
    assert!(!e.contains("was passed to prevent this"), "{e}");
    let lock = std::fs::read_to_string(krate.path().join("Cargo.lock")).unwrap();
    assert!(lock.contains("version = \"0.1.0\""), "{lock}");
}

#[test]
fn offline_reaches_cargo() {
    let krate = lone_crate("costbench-no-such-crate = \"1\"", "");
    let out = list_lone(krate.path(), Some("--offline"));
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    assert!(
        e.contains("no matching package named `costbench-no-such-crate`")
            && e.contains("offline mode (--offline)"),
        "cargo's own message: {e}"
    );
}

/// Two output directories whose `slow` scenario regressed by 20 % in instructions per op.
fn regressed_runs() -> tempfile::TempDir {
    use costbench_record::testing::{record, scenario, with_icount};
    let dir = tempfile::tempdir().unwrap();
    for (name, ir) in [("base", 1000.0), ("cand", 1200.0)] {
        let run = record(name, vec![with_icount(scenario("slow"), ir)]);
        costbench_record::output::OutputDir::prepare(&dir.path().join(name))
            .unwrap()
            .write_all(&run)
            .unwrap();
    }
    dir
}

/// `costbench compare base cand` with `args` and `env` (CARGO_TERM_COLOR and NO_COLOR removed
/// unless given): its stdout.
fn compare_output(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = costbench(["compare"])
        .arg(dir.join("base"))
        .arg(dir.join("cand"))
        .args(args)
        .env_remove("CARGO_TERM_COLOR")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .envs(env)
        .output();
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

const RED_REGRESSION: &str = "\x1b[1m\x1b[31mregression\x1b[0m";

#[test]
fn color_follows_the_flag_then_cargo_term_color_and_is_off_in_a_pipe_by_default() {
    let dir = regressed_runs();
    let d = dir.path();
    let plain = compare_output(d, &[], &[]);
    assert!(
        plain.contains("regression") && !plain.contains('\x1b'),
        "{plain}"
    );
    let always = compare_output(d, &["--color", "always"], &[]);
    assert!(always.contains(RED_REGRESSION), "{always}");
    assert!(compare_output(d, &[], &[("CARGO_TERM_COLOR", "always")]).contains(RED_REGRESSION));
    // The flag wins over the variable, as in cargo, both ways.
    let never = compare_output(d, &["--color", "never"], &[("CARGO_TERM_COLOR", "always")]);
    assert!(!never.contains('\x1b'), "{never}");
    let forced = compare_output(d, &["--color", "always"], &[("CARGO_TERM_COLOR", "never")]);
    assert!(forced.contains(RED_REGRESSION), "{forced}");
    // A global option, before the command too; clap's help follows it.
    let out = costbench(["--color", "never", "compare", "x", "y", "--help"]).output();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!out.stdout.contains(&b'\x1b'));
    let out = costbench(["--color", "always", "run", "--help"]).output();
    assert!(out.stdout.contains(&b'\x1b'), "help in colour");
    let out = costbench(["history", "--limit", "1"])
        .envs(&[("CARGO_TERM_COLOR", "yes")])
        .output();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("CARGO_TERM_COLOR=\"yes\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn auto_colours_a_terminal_unless_no_color_is_set() {
    // `script` gives the command a pseudo-terminal, as an interactive shell would.
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        skip("`script` (util-linux) is not installed; this test needs a terminal");
        return;
    }
    let dir = regressed_runs();
    let on_terminal = |no_color: Option<&str>| {
        let line = format!(
            "{} compare {} {}",
            BIN,
            dir.path().join("base").display(),
            dir.path().join("cand").display()
        );
        let mut cmd = std::process::Command::new("script");
        cmd.args(["-qec", &line, "/dev/null"])
            .env_remove("CARGO_TERM_COLOR")
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .env("TERM", "xterm-256color");
        if let Some(v) = no_color {
            cmd.env("NO_COLOR", v);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let coloured = on_terminal(None);
    assert!(coloured.contains(RED_REGRESSION), "{coloured:?}");
    let plain = on_terminal(Some("1"));
    assert!(
        plain.contains("regression") && !plain.contains('\x1b'),
        "{plain:?}"
    );
}
