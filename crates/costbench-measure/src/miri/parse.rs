//! Reading what Miri printed for one scenario: clean, undefined behaviour (Miri's message, the
//! source location it points at, its help and note lines, the first frames of its backtrace), not
//! runnable under Miri (an operation Miri does not support, with the reason), or failed for
//! another reason (a panic, a deadlock, a leak...).
//!
//! A pure function of the exit status and stderr; tested on real Miri output committed under
//! `testdata/`. It spawns nothing and reads no files.

use crate::run::child::{tail, STDERR_TAIL_LINES};
use costbench_record::model::miri::{Finding, Unsupported};

/// Frames of Miri's backtrace kept in a finding: enough to see the way from the scenario to the
/// faulting operation, without std's generic noise pages long.
const BACKTRACE_FRAMES: usize = 12;

/// Classifies one Miri run: `success` is whether the process exited with 0, `code` its exit code
/// if it exited, `stderr` everything it wrote there.
pub fn classify(success: bool, code: Option<i32>, stderr: &str) -> Finding {
    let stderr = strip_cargo_trailer(stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    let error = lines.iter().position(|l| {
        l.starts_with("error: ")
            && !l.starts_with("error: aborting due to")
            && !l.starts_with("error: test failed")
            && !l.starts_with("error: could not compile")
    });
    if let Some(i) = error {
        let text = &lines[i]["error: ".len()..];
        let details = Details::read(&lines[i + 1..]);
        if let Some(message) = text.strip_prefix("Undefined Behavior: ") {
            return Finding::UndefinedBehavior {
                message: message.to_string(),
                location: details.location,
                notes: details.notes,
                backtrace: details.backtrace,
                workspace_frame: details.workspace_frame,
            };
        }
        if let Some(message) = text.strip_prefix("unsupported operation: ") {
            return Finding::NotRunnable {
                kind: unsupported_kind(message),
                message: message.to_string(),
                location: details.location,
                notes: details.notes,
                backtrace: details.backtrace,
                workspace_frame: details.workspace_frame,
            };
        }
        // An unsafe function's precondition checked by the standard library (newer nightlies
        // check `get_unchecked` and friends under Miri too): the check panics without unwinding
        // before Miri reaches the invalid access, so Miri reports an abort, but a violated
        // safety precondition is undefined behaviour, at the caller's line the panic names.
        if text.starts_with("abnormal termination: ") {
            if let Some((panic, location)) = panic_message(&lines) {
                if let Some(message) = panic
                    .lines()
                    .next()
                    .and_then(|l| l.starts_with(PRECONDITION).then(|| l.to_string()))
                {
                    let notes = panic
                        .lines()
                        .skip(1)
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .map(String::from)
                        .collect();
                    return Finding::UndefinedBehavior {
                        message,
                        location,
                        notes,
                        backtrace: details.backtrace,
                        workspace_frame: details.workspace_frame,
                    };
                }
            }
        }
        let (kind, message) = match text.split_once(": ") {
            Some((k, m)) if MIRI_ERROR_KINDS.contains(&k) => (k.replace(' ', "-"), m.to_string()),
            _ => ("error".to_string(), text.to_string()),
        };
        let kind = if kind == "memory-leaked" {
            "memory-leak".to_string()
        } else {
            kind
        };
        return Finding::Failed {
            kind,
            message,
            location: details.location,
            stderr_tail: tail(stderr, STDERR_TAIL_LINES),
        };
    }
    if success {
        return Finding::Clean;
    }
    if let Some((message, location)) = panic_message(&lines) {
        return Finding::Failed {
            kind: "panicked".into(),
            message,
            location,
            stderr_tail: tail(stderr, STDERR_TAIL_LINES),
        };
    }
    let (kind, message) = match code {
        Some(c) if c == costbench_protocol::EXIT_SCENARIO_MISUSE => (
            "misuse",
            "the scenario broke a costbench rule (see its message)".to_string(),
        ),
        Some(c) => ("crashed", format!("exited with code {c}")),
        None => ("crashed", "killed by a signal".to_string()),
    };
    Finding::Failed {
        kind: kind.into(),
        message,
        location: None,
        stderr_tail: tail(stderr, STDERR_TAIL_LINES),
    }
}

/// `stderr` without what `cargo test` adds after a failed run (`error: test failed, to rerun
/// pass ...` and the runner's command line), so that a tail of it is the scenario's own output.
pub fn strip_cargo_trailer(stderr: &str) -> &str {
    let mut at = 0;
    for line in stderr.split_inclusive('\n') {
        if line.starts_with("error: test failed, to rerun pass") {
            return &stderr[..at];
        }
        at += line.len();
    }
    stderr
}

/// How the standard library words a violated safety precondition of an unsafe function
/// (`unsafe precondition(s) violated: slice::get_unchecked requires that the index is within
/// the slice`).
const PRECONDITION: &str = "unsafe precondition(s) violated: ";

/// Miri's other error headings (`error: KIND: message`), reported as failures of that kind.
const MIRI_ERROR_KINDS: &[&str] = &[
    "deadlock",
    "memory leaked",
    "resource exhaustion",
    "abnormal termination",
    "post-monomorphization error",
];

fn unsupported_kind(message: &str) -> Unsupported {
    if message.contains("inline assembly") {
        return Unsupported::InlineAssembly;
    }
    if message.contains("isolation") {
        return Unsupported::Isolation;
    }
    if let Some(rest) = message.strip_prefix("can't call foreign function `") {
        let name = rest.split('`').next().unwrap_or_default();
        const SPAWNING: &[&str] = &["spawn", "fork", "exec", "waitpid", "wait4"];
        return if SPAWNING.iter().any(|s| name.contains(s)) {
            Unsupported::ProcessSpawning
        } else {
            Unsupported::ForeignFunction
        };
    }
    Unsupported::Other
}

/// The parts of a Miri diagnostic after its `error:` line.
#[derive(Debug, Default)]
struct Details {
    location: Option<String>,
    notes: Vec<String>,
    backtrace: Vec<String>,
    workspace_frame: Option<String>,
}

/// `--> file:line:col` (with any indentation), else `None`.
fn arrow(line: &str) -> Option<&str> {
    line.trim_start().strip_prefix("--> ").map(str::trim)
}

impl Details {
    fn read(lines: &[&str]) -> Details {
        let mut d = Details::default();
        let mut i = 0;
        // The primary span: the first `-->` before anything else of substance.
        while i < lines.len() {
            if let Some(loc) = arrow(lines[i]) {
                d.location = Some(loc.to_string());
                break;
            }
            if lines[i].starts_with("error") || lines[i].starts_with("note:") {
                break;
            }
            i += 1;
        }
        while i < lines.len() {
            let line = lines[i];
            let trimmed = line.trim_start();
            let note = trimmed
                .strip_prefix("= ")
                .filter(|n| n.starts_with("help: ") || n.starts_with("note: "))
                .or_else(|| {
                    (line.starts_with("help: ") || line.starts_with("note: ")).then_some(line)
                });
            let Some(note) = note else {
                if line.starts_with("error") {
                    break;
                }
                i += 1;
                continue;
            };
            if note == "note: stack backtrace:" || note.starts_with("note: BACKTRACE") {
                i = d.read_backtrace(lines, i + 1);
                continue;
            }
            if note.starts_with("note: some details are omitted")
                || note.starts_with("note: run with `RUST_BACKTRACE")
            {
                i += 1;
                continue;
            }
            // A top-level `help:` (Stacked Borrows' "<tag> was created by ...") has its own span.
            let own_span = (!line.starts_with(' '))
                .then(|| lines.get(i + 1).copied().and_then(arrow))
                .flatten();
            d.notes.push(match own_span {
                Some(loc) => format!("{note} ({loc})"),
                None => note.to_string(),
            });
            i += 1;
        }
        d
    }

    /// Reads frames (`N: function` then `at file:line:col: line:col`) from `lines[i..]` and
    /// returns the index of the first line after them.
    fn read_backtrace(&mut self, lines: &[&str], mut i: usize) -> usize {
        while i < lines.len() {
            let t = lines[i].trim();
            let Some((n, func)) = t.split_once(": ") else {
                break;
            };
            if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
                break;
            }
            let at = lines
                .get(i + 1)
                .and_then(|l| l.trim().strip_prefix("at "))
                .map(|a| {
                    // `file:3:5: 3:20` is a span; keep its start.
                    a.split_once(": ").map_or(a, |(start, _)| start)
                });
            // Cargo names workspace members' files relative to the workspace, std's and
            // dependencies' with absolute paths.
            if let Some(at) = at.filter(|a| !a.starts_with('/') && self.workspace_frame.is_none()) {
                self.workspace_frame = Some(format!("{func} at {at}"));
            }
            if self.backtrace.len() < BACKTRACE_FRAMES {
                self.backtrace.push(match at {
                    Some(at) => format!("{func} at {at}"),
                    None => func.to_string(),
                });
            }
            i += if at.is_some() { 2 } else { 1 };
        }
        i
    }
}

/// The message and location of a Rust panic (`thread 'main' panicked at FILE:L:C:` followed by
/// the message on the next lines).
fn panic_message(lines: &[&str]) -> Option<(String, Option<String>)> {
    // `thread 'main' panicked at`, or with a thread id: `thread 'main' (1000) panicked at`.
    let i = lines
        .iter()
        .position(|l| l.starts_with("thread '") && l.contains(" panicked at "))?;
    let location = lines[i]
        .split_once(" panicked at ")
        .map(|(_, rest)| rest.trim_end_matches(':').to_string());
    let message: Vec<&str> = lines[i + 1..]
        .iter()
        .take_while(|l| !l.starts_with("note: ") && !l.starts_with("thread '"))
        .copied()
        .collect();
    Some((message.join("\n").trim().to_string(), location))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src/miri/testdata")
            .join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    #[test]
    fn a_violated_unsafe_precondition_is_undefined_behaviour_at_the_callers_line() {
        let f = classify(
            false,
            Some(1),
            &fixture("get_unchecked_precondition.stderr"),
        );
        let Finding::UndefinedBehavior {
            message,
            location,
            notes,
            workspace_frame,
            ..
        } = f
        else {
            panic!("{f:?}");
        };
        assert_eq!(
            message,
            "unsafe precondition(s) violated: slice::get_unchecked requires that the index is \
             within the slice"
        );
        assert_eq!(
            location.as_deref(),
            Some("suites/selftest/benches/miri_ub.rs:14:40")
        );
        assert!(
            notes[0].starts_with("This indicates a bug in the program."),
            "{notes:?}"
        );
        assert!(workspace_frame.is_some());
    }

    #[test]
    fn clean_run() {
        assert_eq!(classify(true, Some(0), ""), Finding::Clean);
    }

    #[test]
    fn out_of_bounds_get_unchecked_is_undefined_behavior_at_its_line() {
        let f = classify(false, Some(1), &fixture("get_unchecked_oob.stderr"));
        let Finding::UndefinedBehavior {
            message,
            location,
            notes,
            backtrace,
            ..
        } = &f
        else {
            panic!("{f:?}")
        };
        assert_eq!(message, "`assume` called with `false`");
        assert_eq!(
            location.as_deref(),
            Some("suites/selftest/benches/miri_ub.rs:14:35")
        );
        assert_eq!(
            notes[0],
            "help: this indicates a bug in the program: it performed an invalid operation, and caused Undefined Behavior"
        );
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert_eq!(
            backtrace[0],
            "sum_unchecked::{closure#0} at suites/selftest/benches/miri_ub.rs:14:35"
        );
        assert_eq!(backtrace.len(), BACKTRACE_FRAMES);
        assert!(f.is_problem());
    }

    #[test]
    fn cargo_s_trailer_is_not_the_scenario_s_output() {
        let text = fixture("get_unchecked_oob.stderr");
        let own = strip_cargo_trailer(&text);
        assert!(
            own.ends_with("error: aborting due to 1 previous error\n\n"),
            "{own}"
        );
        assert!(text.contains("cargo-miri runner"));
        assert_eq!(strip_cargo_trailer("no trailer\n"), "no trailer\n");
    }

    #[test]
    fn misaligned_read_is_undefined_behavior() {
        let f = classify(false, Some(1), &fixture("misaligned_read.stderr"));
        let Finding::UndefinedBehavior {
            message, location, ..
        } = &f
        else {
            panic!("{f:?}")
        };
        assert_eq!(
            message,
            "accessing memory based on pointer with alignment 1, but alignment 8 is required"
        );
        assert_eq!(
            location.as_deref(),
            Some("suites/selftest/benches/miri_ub.rs:35:28")
        );
    }

    #[test]
    fn stacked_borrows_notes_keep_their_spans() {
        let f = classify(false, Some(1), &fixture("stacked_borrows.stderr"));
        let Finding::UndefinedBehavior { notes, .. } = &f else {
            panic!("{f:?}")
        };
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("help: <") && n.ends_with(")") && n.contains(".rs:")),
            "{notes:?}"
        );
    }

    #[test]
    fn unsupported_operations_are_not_runnable_with_their_reason() {
        for (file, kind, message) in [
            (
                "inline_asm.stderr",
                Unsupported::InlineAssembly,
                "inline assembly is not supported",
            ),
            (
                "process_spawn.stderr",
                Unsupported::ProcessSpawning,
                "can't call foreign function `posix_spawnattr_init` on OS `linux`",
            ),
            (
                "isolation_open.stderr",
                Unsupported::Isolation,
                "`open` not available when isolation is enabled",
            ),
        ] {
            let f = classify(false, Some(1), &fixture(file));
            let Finding::NotRunnable {
                kind: k,
                message: m,
                location,
                workspace_frame,
                ..
            } = &f
            else {
                panic!("{file}: {f:?}")
            };
            assert_eq!((*k, m.as_str()), (kind, message), "{file}");
            assert!(location.is_some(), "{file}");
            assert!(workspace_frame.is_some(), "{file}");
            assert!(!f.is_problem());
        }
        let f = classify(false, Some(1), &fixture("isolation_open.stderr"));
        let Finding::NotRunnable {
            location,
            workspace_frame,
            notes,
            ..
        } = &f
        else {
            panic!("{f:?}")
        };
        assert!(location.as_deref().unwrap().starts_with('/'), "in std");
        assert_eq!(
            workspace_frame.as_deref(),
            Some("costbench_suite::files::TempFile::new at suites/builtin/src/files.rs:22:9")
        );
        assert_eq!(
            notes[0],
            "help: set `MIRIFLAGS=-Zmiri-disable-isolation` to disable isolation;"
        );
        assert_eq!(
            unsupported_kind("can't call foreign function `sqlite3_open` on OS `linux`"),
            Unsupported::ForeignFunction
        );
    }

    #[test]
    fn panics_and_other_errors_fail() {
        let f = classify(false, Some(101), &fixture("panic.stderr"));
        let Finding::Failed {
            kind,
            message,
            location,
            ..
        } = &f
        else {
            panic!("{f:?}")
        };
        assert_eq!(kind, "panicked");
        assert_eq!(message, "deliberate panic in the measured body");
        assert_eq!(
            location.as_deref(),
            Some("suites/selftest/benches/failures.rs:11:17")
        );
        let f = classify(
            false,
            Some(1),
            "error: deadlock: the evaluated program deadlocked\n  --> src/main.rs:3:5\n",
        );
        assert!(
            matches!(&f, Finding::Failed { kind, location: Some(l), .. } if kind == "deadlock" && l == "src/main.rs:3:5"),
            "{f:?}"
        );
        let f = classify(
            false,
            Some(66),
            "costbench: scenario \"x\": called iter twice\n",
        );
        assert!(matches!(&f, Finding::Failed { kind, .. } if kind == "misuse"));
        assert_eq!(f.verdict(), "failed");
    }
}
