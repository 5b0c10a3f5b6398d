//! How a child process ended ([`Outcome`]), and how that reads as a failure in the record's
//! vocabulary. The supervisor (`run::child`) returns it; the instruments' parsers
//! (`instrument::*::parse`) and Miri's read it. Data and wording only: it spawns and waits for
//! nothing.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::time::Duration;

/// How a child ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// It exited, or a signal killed it.
    Exited(ExitStatus),
    /// Its deadline passed and the supervisor killed it.
    TimedOut,
}

/// A finished child: how it ended and what it wrote to stderr.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// How the child ended.
    pub ending: Ending,
    /// The last lines of stderr (`run::child::STDERR_TAIL_LINES`).
    pub stderr_tail: String,
    /// All of stderr, for a child supervised with `run::child::Supervision::whole_stderr` (and
    /// its stderr piped).
    pub stderr: Option<String>,
}

impl Outcome {
    /// Whether it exited with status 0.
    pub fn success(&self) -> bool {
        matches!(self.ending, Ending::Exited(s) if s.success())
    }

    /// The exit code, if the child exited (rather than being killed or timing out).
    pub fn code(&self) -> Option<i32> {
        match self.ending {
            Ending::Exited(s) => s.code(),
            Ending::TimedOut => None,
        }
    }

    /// How the child ended, in a few words: `exit code 3`, `killed by signal 9`, `timed out`.
    pub fn how_it_ended(&self) -> String {
        match self.ending {
            Ending::TimedOut => "timed out".into(),
            Ending::Exited(s) => match (s.code(), s.signal()) {
                (Some(c), _) => format!("exit code {c}"),
                (_, Some(sig)) => format!("killed by signal {sig}"),
                _ => "ended abnormally".into(),
            },
        }
    }

    /// (kind, message) for a failure, in the vocabulary of `model::Failure`.
    pub fn describe(&self, timeout: Duration) -> (String, String) {
        use costbench_protocol::{EXIT_BAD_REQUEST, EXIT_PROTOCOL_MISMATCH, EXIT_SCENARIO_MISUSE};
        match self.ending {
            Ending::TimedOut => (
                "timed-out".into(),
                format!(
                    "killed after {} s (change with --timeout)",
                    timeout.as_secs()
                ),
            ),
            Ending::Exited(s) => match (s.code(), s.signal()) {
                (Some(0), _) => ("ok".into(), "exited successfully".into()),
                (Some(101), _) => ("panicked".into(), "the scenario panicked".into()),
                (Some(c), _) if c == EXIT_SCENARIO_MISUSE => (
                    "misuse".into(),
                    "the scenario broke a costbench rule (see its message)".into(),
                ),
                (Some(c), _) if c == EXIT_PROTOCOL_MISMATCH || c == EXIT_BAD_REQUEST => (
                    "protocol".into(),
                    format!("the scenario binary refused the runner's request (exit {c})"),
                ),
                (Some(c), _) => ("crashed".into(), format!("exited with code {c}")),
                // Valgrind's own SIGILL: an instruction it cannot decode, not a bug of the
                // scenario. Seen here with `-C target-cpu=native` on an AMD EPYC: SSE4a's
                // `insertq` in regex-automata, under valgrind 3.19.
                (None, Some(libc::SIGILL)) if self.stderr_tail.contains("Illegal opcode") => (
                    "crashed".into(),
                    "killed by signal 4 (SIGILL): valgrind cannot decode an instruction of this \
                     build (its address is in the stderr tail). Builds for `-C target-cpu=native` \
                     can use instructions valgrind does not know, such as AMD's SSE4a (`insertq`, \
                     `extrq`) or AVX-512: leave them out (`-C target-feature=-sse4a`) or build for \
                     a level valgrind knows (`-C target-cpu=x86-64-v3`)"
                        .into(),
                ),
                (None, Some(sig)) => ("crashed".into(), format!("killed by signal {sig}")),
                (None, None) => ("crashed".into(), format!("ended abnormally: {s}")),
            },
        }
    }
}
