//! The constant-time check's slice of the run record: what `--instrument constant-time` found in
//! one measured id, the secrets its process marked (`costbench::secret`) and memcheck's findings
//! ([`ConstantTime`], [`CtFinding`]), with the verdict they give ([`CtVerdict`]) and the
//! findings that fail the gate, or that an entry of costbench.toml's `[[constant-time.allow]]`
//! accepted ([`CtAccepted`]); and whether a result has its figure (memcheck's findings were
//! read for it; none found is a figure too). Plain serde types and pure functions over them; the
//! instrument that fills them is `costbench-measure`'s (`src/instrument/consttime/`), which
//! entries match which findings `costbench-judge`'s (`src/consttime.rs`).

use super::slice::Slice;
use super::{Finding, FindingDetail, FindingSpec, Instrument};
use crate::model::ScenarioResult;
use serde::{Deserialize, Serialize};

/// Its slice.
pub const SLICE: Slice = Slice {
    has_figure: Some(|r| r.counters.constant_time.is_some()),
    findings: Some(FindingSpec {
        label: "constant-time",
        title: "constant time",
        json_key: "constant_time",
        allow: "[[constant-time.allow]]",
        what: "a branch or an address that depends on a secret",
        of: findings,
    }),
    ..Slice::NONE
};

/// The findings of `r` that fail the gate or that were accepted, each with its id: what the
/// gate, the exit code and every report see of them.
fn findings(r: &ScenarioResult) -> Vec<Finding> {
    let Some(c) = &r.counters.constant_time else {
        return Vec::new();
    };
    c.findings
        .iter()
        .filter(|f| f.gates() || f.accepted.is_some())
        .map(|f| Finding {
            instrument: Instrument::ConstantTime,
            id: r.id.clone(),
            fails: f.gates(),
            accepted: f.accepted.is_some(),
            place: f.at.location(),
            line: f.line(),
            frames: f
                .frames
                .iter()
                .map(|fr| {
                    format!(
                        "{} ({})",
                        fr.function.as_deref().unwrap_or("??"),
                        fr.location()
                    )
                })
                .collect(),
            detail: FindingDetail::ConstantTime(f.clone()),
        })
        .collect()
}

/// What memcheck reported for one party's process under `--instrument constant-time`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ConstantTime {
    /// How many times the process marked memory secret (`costbench::secret`, `secret_bytes`).
    pub secret_marks: u64,
    /// Bytes marked secret, summed over the marks.
    pub secret_bytes: u64,
    /// Where the marks were made (`file:line`, as the library's caller location says), distinct,
    /// in the order they were first made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marked_at: Vec<String>,
    /// The findings, one per kind and source line, in the order memcheck first reported them.
    #[serde(default)]
    pub findings: Vec<CtFinding>,
    /// Memcheck's XML for this id, relative to the output directory.
    pub memcheck_out: String,
}

/// What a finding is.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum CtKind {
    /// A conditional jump or move that depends on undefined (secret) data: memcheck's
    /// `UninitCondition`.
    Branch,
    /// A memory address computed from undefined (secret) data: memcheck's `UninitValue`
    /// ("Use of uninitialised value of size N").
    Address,
    /// Undefined (secret) bytes passed to a system call (`SyscallParam`): reported, never
    /// gating, since writing a ciphertext or a secret to a file is no branch and no address.
    Syscall,
    /// Any other memcheck error (an invalid read or write, an invalid free, ...): a memory bug.
    Memory,
}

impl CtKind {
    /// How reports name it.
    pub fn label(self) -> &'static str {
        match self {
            CtKind::Branch => "secret-dependent branch",
            CtKind::Address => "secret-dependent address",
            CtKind::Syscall => "reaches a system call",
            CtKind::Memory => "memory error",
        }
    }

    /// Whether a finding of this kind fails `run` and `check`.
    pub fn gates(self) -> bool {
        !matches!(self, CtKind::Syscall)
    }
}

/// Where the undefined data of a finding came from, as memcheck's `--track-origins` says.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum CtOrigin {
    /// A client request: a `costbench::secret` mark.
    Secret,
    /// A heap or stack allocation never written: uninitialised memory, a bug of its own.
    Uninitialised,
    /// Memcheck named no origin (errors that are not about undefined data, or an origin lost).
    Unknown,
}

/// One source frame of a finding's stack: a function, and its file and line where the binary
/// has debug info. Inlined frames are frames of their own (`--read-inline-info=yes`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct CtFrame {
    /// The function (demangled, as memcheck names it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// The source file: relative to the workspace root when it is under it, `library/...` for
    /// the standard library, else as the debug info says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The line in `file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

impl CtFrame {
    /// `file:line`, or the function where there is no line, or `??`.
    pub fn location(&self) -> String {
        match (&self.file, self.line, &self.function) {
            (Some(f), Some(l), _) => format!("{f}:{l}"),
            (Some(f), None, _) => f.clone(),
            (None, _, Some(func)) => format!("in {func}"),
            (None, _, None) => "??".into(),
        }
    }
}

/// One finding: every report memcheck made of one kind at one source line, counted.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CtFinding {
    /// What it is.
    pub kind: CtKind,
    /// Where its undefined data came from.
    pub origin: CtOrigin,
    /// Whether it happened inside the measured body (its stack passes through the measured
    /// region), or in the setup or the harness.
    pub in_body: bool,
    /// The frame the finding is attributed to: the innermost one in the user's code (not the
    /// standard library's, not valgrind's replacement functions); the innermost with a source
    /// line when there is none.
    pub at: CtFrame,
    /// The inline chain and callers, innermost first, up to the measured region (or the whole
    /// stack memcheck gave, outside it).
    #[serde(default)]
    pub frames: Vec<CtFrame>,
    /// How many times it happened (memcheck's error counts, summed over the instructions of
    /// the line).
    pub count: u64,
    /// Memcheck's own words (`Conditional jump or move depends on uninitialised value(s)`).
    pub what: String,
    /// Set when an entry of `[[constant-time.allow]]` accepted it: still reported, never
    /// gating. Absent otherwise (and in records of older costbench).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<CtAccepted>,
}

/// The `[[constant-time.allow]]` entry that accepted a finding, as the record keeps it, so that
/// every command reading the record later says the same.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct CtAccepted {
    /// The entry: `costbench.toml:LINE`, the line its table starts on.
    pub entry: String,
    /// The entry's `at`, as written.
    pub at: String,
    /// The entry's `why`: the reason the finding was reviewed and accepted.
    pub why: String,
}

impl CtFinding {
    /// Whether it fails the gate: every kind but a system call's, unless accepted.
    pub fn gates(&self) -> bool {
        self.kind.gates() && self.accepted.is_none()
    }

    /// Whether an entry of `[[constant-time.allow]]` may accept it: a secret-dependent branch or
    /// address. A memory error, or a finding on uninitialised memory, is a bug, not a reviewed
    /// timing leak; a system call's never gates.
    pub fn acceptable(&self) -> bool {
        matches!(self.kind, CtKind::Branch | CtKind::Address)
            && self.origin != CtOrigin::Uninitialised
    }

    /// One line for reports: `secret-dependent branch at src/lib.rs:12 in body (16×)`.
    pub fn line(&self) -> String {
        let origin = match self.origin {
            CtOrigin::Secret => "",
            CtOrigin::Uninitialised => ", not from a secret: uninitialised memory",
            CtOrigin::Unknown => ", origin unknown",
        };
        let place = if self.in_body { "body" } else { "setup" };
        let func = self
            .at
            .function
            .as_deref()
            .map(|f| format!(" in {f}"))
            .unwrap_or_default();
        let accepted = self
            .accepted
            .as_ref()
            .map(|a| format!(", accepted: {} ({})", a.why, a.entry))
            .unwrap_or_default();
        format!(
            "{} at {}{func} ({place}, {}×{origin}){accepted}",
            self.kind.label(),
            self.at.location(),
            self.count
        )
    }
}

/// The verdict on one measured id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CtVerdict {
    /// Secrets were marked and nothing depended on them.
    ConstantTime,
    /// No secret was marked: nothing was checked (memory errors aside).
    NotChecked,
    /// Findings that fail the gate.
    Leaks(usize),
    /// Secret-dependent findings, every one accepted by `[[constant-time.allow]]`: passes the
    /// gate, but is not constant time.
    Accepted(usize),
}

impl CtVerdict {
    /// How reports say it.
    pub fn label(self) -> String {
        match self {
            CtVerdict::ConstantTime => "constant time (branches and addresses)".into(),
            CtVerdict::NotChecked => "not checked (no secret marked)".into(),
            CtVerdict::Leaks(1) => "1 finding".into(),
            CtVerdict::Leaks(n) => format!("{n} findings"),
            CtVerdict::Accepted(1) => "1 accepted finding, not constant time".into(),
            CtVerdict::Accepted(n) => format!("{n} accepted findings, not constant time"),
        }
    }
}

impl ConstantTime {
    /// The findings that fail the gate.
    pub fn failing(&self) -> impl Iterator<Item = &CtFinding> {
        self.findings.iter().filter(|f| f.gates())
    }

    /// The findings `[[constant-time.allow]]` accepted.
    pub fn accepted(&self) -> impl Iterator<Item = &CtFinding> {
        self.findings.iter().filter(|f| f.accepted.is_some())
    }

    /// The verdict: findings that gate, else accepted findings, else constant time when secrets
    /// were marked, else not checked.
    pub fn verdict(&self) -> CtVerdict {
        match (self.failing().count(), self.accepted().count()) {
            (0, 0) if self.secret_marks > 0 => CtVerdict::ConstantTime,
            (0, 0) => CtVerdict::NotChecked,
            (0, n) => CtVerdict::Accepted(n),
            (n, _) => CtVerdict::Leaks(n),
        }
    }
}

/// Findings built in code for the tests of this crate and the layers above (the `testing`
/// feature), as `crate::testing` builds run records.
#[cfg(any(test, feature = "testing"))]
pub mod testing {
    use super::{CtFinding, CtFrame, CtKind, CtOrigin};

    /// A frame of a constant-time finding: `function` at `file:line`.
    pub fn frame(function: &str, file: &str, line: u32) -> CtFrame {
        CtFrame {
            function: Some(function.into()),
            file: Some(file.into()),
            line: Some(line),
        }
    }

    /// A secret-dependent finding of `kind` attributed to `at`: in the body, 16 times, with no
    /// inline chain, not accepted. Tests set the fields they are about with `..finding(..)`.
    pub fn finding(kind: CtKind, at: CtFrame) -> CtFinding {
        CtFinding {
            kind,
            origin: CtOrigin::Secret,
            in_body: true,
            at,
            frames: Vec::new(),
            count: 16,
            what: String::new(),
            accepted: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(kind: CtKind) -> CtFinding {
        testing::finding(kind, testing::frame("leak", "benches/ct.rs", 12))
    }

    #[test]
    fn verdicts() {
        let mut c = ConstantTime::default();
        assert_eq!(c.verdict(), CtVerdict::NotChecked);
        c.secret_marks = 1;
        assert_eq!(c.verdict(), CtVerdict::ConstantTime);
        c.findings.push(finding(CtKind::Syscall));
        assert_eq!(
            c.verdict(),
            CtVerdict::ConstantTime,
            "a syscall does not gate"
        );
        c.findings.push(finding(CtKind::Branch));
        assert_eq!(c.verdict(), CtVerdict::Leaks(1));
        assert_eq!(
            c.findings[1].line(),
            "secret-dependent branch at benches/ct.rs:12 in leak (body, 16×)"
        );
        // Accepted: still listed, with its reason, but no longer gating; never constant time.
        c.findings[1].accepted = Some(CtAccepted {
            entry: "costbench.toml:4".into(),
            at: "benches/ct.rs:12".into(),
            why: "reviewed: public in our threat model".into(),
        });
        assert_eq!(c.verdict(), CtVerdict::Accepted(1));
        assert_eq!(c.failing().count(), 0);
        assert_eq!(
            c.findings[1].line(),
            "secret-dependent branch at benches/ct.rs:12 in leak (body, 16×), accepted: \
             reviewed: public in our threat model (costbench.toml:4)"
        );
        c.findings.push(finding(CtKind::Address));
        assert_eq!(c.verdict(), CtVerdict::Leaks(1), "one accepted, one not");
    }

    #[test]
    fn records_without_accepted_read_unchanged() {
        let json = r#"{"kind":"branch","origin":"secret","in_body":true,"at":{"file":"a.rs","line":3},"frames":[],"count":1,"what":""}"#;
        let f: CtFinding = serde_json::from_str(json).unwrap();
        assert_eq!(f.accepted, None);
        assert!(f.gates());
        assert!(!serde_json::to_string(&f).unwrap().contains("accepted"));
    }

    #[test]
    fn serde_names_are_kebab_case_and_round_trip() {
        let c = ConstantTime {
            secret_marks: 1,
            secret_bytes: 16,
            marked_at: vec!["benches/ct.rs:3".into()],
            findings: vec![finding(CtKind::Address)],
            memcheck_out: "memcheck/x.xml".into(),
        };
        let json = serde_json::to_string(&c).unwrap();
        assert!(json.contains(r#""kind":"address""#), "{json}");
        assert!(json.contains(r#""origin":"secret""#), "{json}");
        assert_eq!(serde_json::from_str::<ConstantTime>(&json).unwrap(), c);
    }
}
