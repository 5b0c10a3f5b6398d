//! Accepted constant-time findings: costbench.toml's `[[constant-time.allow]]` entries
//! ([`Allow`]), their validation, which findings of a run they match ([`accept`]) and which
//! entries matched none ([`stale`]). Pure: a function of the run record and the entries; reading
//! the file is `costbench-measure`'s (`config.rs`, which declares this section with
//! `with_instrument_sections!`; [`read`] names and validates its entries), saying the stale
//! ones the command's.
//!
//! An entry's `at` is one of three places, told apart by its shape:
//!
//! - `FILE:LINE` (the text has a `/`, a `.` or a lone `:`, and a `:` after FILE): the
//!   finding's source file is FILE, or ends with `/FILE` (whole path components: `ct.rs`
//!   matches `benches/ct.rs`, not `benches/fact.rs`), and its line is LINE exactly;
//! - `FILE` (a `/` or a `.`, no `:`): the finding's source file, as above, any line;
//! - a function name (anything else: no `/`, no `.`, colons only in `::`): any frame of the
//!   finding's inline chain is that function, or a path ending with `::NAME` (`leak_branch`
//!   matches `consttime::leak_branch`), with or without the generic arguments the frame's name
//!   ends with (`fold` matches `fold<u8, u8>`).
//!
//! The finding's source file is the one it is attributed to (the innermost frame in the user's
//! code), relative to the workspace root when under it. Only secret-dependent branches and
//! addresses are accepted ([`CtFinding::acceptable`]); where several entries match a finding,
//! the last in the file names it, as later `[[budget]]` entries override earlier ones.

use crate::glob::glob_match;
use costbench_record::instrument::consttime::{CtAccepted, CtFinding, CtKind};
use costbench_record::model::RunRecord;
use serde::Deserialize;

/// `[constant-time]` of costbench.toml.
#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ConstantTimeConfig {
    /// The `[[constant-time.allow]]` entries, in file order.
    #[serde(default)]
    pub allow: Vec<Allow>,
}

/// One `[[constant-time.allow]]` entry: findings at `at` in the ids `scenario` matches are
/// accepted, for the reason `why`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Allow {
    /// Glob over measured ids; default `*`.
    #[serde(default = "any")]
    pub scenario: String,
    /// `FILE:LINE`, `FILE` or a function name (see the module's documentation).
    #[serde(default)]
    pub at: String,
    /// `branch` or `address`: only findings of that kind; any acceptable kind when absent.
    #[serde(default)]
    pub kind: Option<CtKind>,
    /// Why the finding is accepted: required, shown in every report.
    #[serde(default)]
    pub why: String,
    /// How reports name the entry: `costbench.toml:LINE`, set by the file's reader (empty
    /// until then).
    #[serde(skip)]
    pub entry: String,
}

fn any() -> String {
    "*".into()
}

/// Where an entry's `at` points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place<'a> {
    /// A source file and a line in it.
    Line(&'a str, u32),
    /// A source file, any line.
    File(&'a str),
    /// A function of the inline chain.
    Function(&'a str),
}

impl Allow {
    /// Where `at` points; an error for an empty `at` or a malformed line number.
    pub fn place(&self) -> Result<Place<'_>, String> {
        let at = self.at.trim();
        if at.is_empty() {
            return Err("`at` is missing or empty: give FILE:LINE, FILE or a function name".into());
        }
        // A lone `:` (not `::`) means FILE:LINE, even without a `/` or a `.` in FILE.
        let lone_colon = at.replace("::", "").contains(':');
        if !at.contains('/') && !at.contains('.') && !lone_colon {
            return Ok(Place::Function(at));
        }
        match at.rsplit_once(':') {
            None => Ok(Place::File(at)),
            Some((file, line)) => match line.parse::<u32>() {
                Ok(n) if n > 0 && !file.is_empty() && !file.ends_with(':') => {
                    Ok(Place::Line(file, n))
                }
                _ => Err(format!(
                    "`at = {:?}`: {line:?} is not a line number (FILE:LINE takes a line from 1 on)",
                    self.at
                )),
            },
        }
    }

    /// Refuses an entry without a reason, with an empty `at` or a malformed line number, or
    /// with an empty glob.
    pub fn validate(&self) -> Result<(), String> {
        if self.why.trim().is_empty() {
            return Err(format!(
                "`why` is missing or empty for `at = {:?}`: say why the finding is accepted \
                 (every report shows it)",
                self.at
            ));
        }
        if self.scenario.is_empty() {
            return Err(
                "`scenario` is empty: give a glob over measured ids, or leave it out \
                        for all"
                    .into(),
            );
        }
        if matches!(self.kind, Some(CtKind::Syscall | CtKind::Memory)) {
            return Err(format!(
                "`kind` for `at = {:?}`: only \"branch\" and \"address\" findings can be \
                 accepted (a system call's never gates; a memory error is a bug)",
                self.at
            ));
        }
        self.place().map(drop)
    }

    /// How warnings name the entry: `costbench.toml:LINE (at = "...")`.
    pub fn name(&self) -> String {
        if self.entry.is_empty() {
            format!("[[constant-time.allow]] at = {:?}", self.at)
        } else {
            format!("{} (at = {:?})", self.entry, self.at)
        }
    }

    /// Whether this entry accepts finding `f` of measured id `id`.
    pub fn matches(&self, id: &str, f: &CtFinding) -> bool {
        if !f.acceptable()
            || !glob_match(&self.scenario, id)
            || self.kind.is_some_and(|k| k != f.kind)
        {
            return false;
        }
        let file_is = |want: &str| {
            f.at.file.as_deref().is_some_and(|have| {
                have == want
                    || have
                        .strip_suffix(want)
                        .is_some_and(|rest| rest.ends_with('/'))
            })
        };
        match self.place() {
            Ok(Place::Line(file, line)) => file_is(file) && f.at.line == Some(line),
            Ok(Place::File(file)) => file_is(file),
            Ok(Place::Function(name)) => std::iter::once(&f.at).chain(&f.frames).any(|fr| {
                fr.function.as_deref().is_some_and(|have| {
                    [have, without_generics(have)].into_iter().any(|have| {
                        have == name
                            || have
                                .strip_suffix(name)
                                .is_some_and(|rest| rest.ends_with("::"))
                    })
                })
            }),
            Err(_) => false,
        }
    }
}

/// `name` without the generic arguments it ends with: `fold` of `fold<u8, u8>` (memcheck names
/// inlined frames so).
fn without_generics(name: &str) -> &str {
    if !name.ends_with('>') {
        return name;
    }
    let mut depth = 0;
    for (i, c) in name.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' => {
                depth -= 1;
                if depth == 0 {
                    return &name[..i];
                }
            }
            _ => {}
        }
    }
    name
}

/// Marks every finding of `record` that an entry of `allow` matches as accepted by the last such
/// entry. Findings no entry matches keep what the record said (an earlier acceptance stands).
pub fn accept(record: &mut RunRecord, allow: &[Allow]) {
    for r in &mut record.results {
        let Some(ct) = r.counters.constant_time.as_mut() else {
            continue;
        };
        for f in &mut ct.findings {
            if let Some(a) = allow.iter().rev().find(|a| a.matches(&r.id, f)) {
                f.accepted = Some(CtAccepted {
                    entry: a.entry.clone(),
                    at: a.at.clone(),
                    why: a.why.clone(),
                });
            }
        }
    }
}

/// [`accept`] with `allow` alone deciding: what the record accepted before (under the entries
/// of the run's day) is forgotten first, so that an entry removed since no longer accepts.
pub fn decide(record: &mut RunRecord, allow: &[Allow]) {
    for r in &mut record.results {
        if let Some(ct) = r.counters.constant_time.as_mut() {
            for f in &mut ct.findings {
                f.accepted = None;
            }
        }
    }
    accept(record, allow);
}

/// The entries of `allow` that match no finding of `record` although the constant-time
/// instrument ran on an id their glob matches (an entry for ids it did not run on is not
/// stale: nothing was checked there).
pub fn stale<'a>(record: &RunRecord, allow: &'a [Allow]) -> Vec<&'a Allow> {
    allow
        .iter()
        .filter(|a| {
            let mut ran = false;
            for r in &record.results {
                let Some(ct) = &r.counters.constant_time else {
                    continue;
                };
                if !glob_match(&a.scenario, &r.id) {
                    continue;
                }
                ran = true;
                if ct.findings.iter().any(|f| a.matches(&r.id, f)) {
                    return false;
                }
            }
            ran
        })
        .collect()
}

/// Names each entry of `config` (read from `text`, the file `file_name`) after the line its
/// table starts on (`costbench.toml:LINE`), and validates it; an error names the entry so.
pub fn read(config: &mut ConstantTimeConfig, text: &str, file_name: &str) -> anyhow::Result<()> {
    let lines = allow_lines(text)?;
    for (a, line) in config.allow.iter_mut().zip(lines) {
        a.entry = format!("{file_name}:{line}");
        a.validate()
            .map_err(|e| anyhow::anyhow!("[[constant-time.allow]] at {}: {e}", a.entry))?;
    }
    Ok(())
}

/// The line each `[[constant-time.allow]]` table starts on, in file order: read again with
/// spans, since the entries' own type knows nothing of the file.
fn allow_lines(text: &str) -> anyhow::Result<Vec<usize>> {
    #[derive(Deserialize)]
    struct Spans {
        #[serde(default, rename = "constant-time")]
        constant_time: Option<Allows>,
    }
    #[derive(Deserialize)]
    struct Allows {
        #[serde(default)]
        allow: Vec<toml::Spanned<toml::Table>>,
    }
    let spans: Spans = toml::from_str(text)?;
    Ok(spans
        .constant_time
        .map(|c| c.allow)
        .unwrap_or_default()
        .iter()
        .map(|t| text[..t.span().start].matches('\n').count() + 1)
        .collect())
}

/// The warning for a stale entry.
pub fn stale_warning(a: &Allow) -> String {
    format!(
        "[[constant-time.allow]] {} matched no finding of the ids {:?} the constant-time \
         instrument checked: remove the entry, or correct its `at`",
        a.name(),
        a.scenario
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::instrument::consttime::{ConstantTime, CtFrame, CtKind, CtOrigin};
    use costbench_record::testing::{record, scenario};

    use costbench_record::instrument::consttime::testing::frame;

    fn finding(kind: CtKind, origin: CtOrigin, at: CtFrame, frames: Vec<CtFrame>) -> CtFinding {
        CtFinding {
            origin,
            frames,
            count: 1,
            ..costbench_record::instrument::consttime::testing::finding(kind, at)
        }
    }

    fn allow(scenario: &str, at: &str) -> Allow {
        Allow {
            kind: None,
            scenario: scenario.into(),
            at: at.into(),
            why: "reviewed".into(),
            entry: "costbench.toml:1".into(),
        }
    }

    /// `early_exit_eq` as memcheck saw it: attributed to the user's line, inside valgrind's
    /// `bcmp` through `core::slice::cmp`.
    fn early_exit() -> CtFinding {
        let at = frame(
            "consttime::early_exit_eq",
            "suites/selftest/benches/consttime.rs",
            42,
        );
        finding(
            CtKind::Branch,
            CtOrigin::Secret,
            at.clone(),
            vec![
                CtFrame {
                    function: Some("bcmp".into()),
                    file: None,
                    line: None,
                },
                frame(
                    "equal_same_length<u8, u8>",
                    "library/core/src/slice/cmp.rs",
                    154,
                ),
                at,
            ],
        )
    }

    #[test]
    fn places_by_shape() {
        for (at, place) in [
            ("benches/ct.rs:27", Place::Line("benches/ct.rs", 27)),
            ("ct.rs:3", Place::Line("ct.rs", 3)),
            ("benches/ct.rs", Place::File("benches/ct.rs")),
            ("src/lib.rs", Place::File("src/lib.rs")),
            ("memcmp", Place::Function("memcmp")),
            (
                "consttime::early_exit_eq",
                Place::Function("consttime::early_exit_eq"),
            ),
        ] {
            assert_eq!(allow("*", at).place(), Ok(place), "{at}");
        }
    }

    #[test]
    fn matching_is_exact() {
        let f = early_exit();
        let id = "leak/early_exit";
        for (entry, want) in [
            (allow("*", "suites/selftest/benches/consttime.rs:42"), true),
            (allow("*", "benches/consttime.rs:42"), true),
            (allow("*", "consttime.rs:42"), true),
            (allow("*", "consttime.rs:43"), false),
            (allow("*", "time.rs:42"), false),
            (allow("*", "benches/consttime.rs"), true),
            (allow("*", "selftest/benches"), false),
            // The standard library frame is in the chain, not the attributed source line.
            (allow("*", "library/core/src/slice/cmp.rs:154"), false),
            (allow("*", "early_exit_eq"), true),
            (allow("*", "consttime::early_exit_eq"), true),
            (allow("*", "exit_eq"), false),
            (allow("*", "bcmp"), true),
            (allow("*", "equal_same_length"), true),
            (allow("*", "equal_same_length<u8, u8>"), true),
            (allow("*", "same_length"), false),
            (allow("leak/*", "bcmp"), true),
            (allow("leak/early", "bcmp"), false),
            (allow("clean/*", "consttime.rs:42"), false),
        ] {
            assert_eq!(entry.matches(id, &f), want, "{:?}", entry.at);
        }
        // `kind` narrows an entry to findings of that kind at its place.
        for (kind, want) in [(Some(CtKind::Branch), true), (Some(CtKind::Address), false)] {
            let entry = Allow {
                kind,
                ..allow("*", "benches/consttime.rs:42")
            };
            assert_eq!(entry.matches(id, &f), want, "{kind:?}");
        }
        // A memory error or uninitialised memory is a bug: never accepted.
        let at = frame("f", "src/a.rs", 3);
        let e = allow("*", "src/a.rs:3");
        assert!(e.matches(
            "x",
            &finding(CtKind::Address, CtOrigin::Secret, at.clone(), vec![])
        ));
        assert!(!e.matches(
            "x",
            &finding(CtKind::Memory, CtOrigin::Unknown, at.clone(), vec![])
        ));
        assert!(!e.matches(
            "x",
            &finding(CtKind::Branch, CtOrigin::Uninitialised, at.clone(), vec![])
        ));
    }

    #[test]
    fn bad_entries_are_refused() {
        for (at, why, needle) in [
            ("", "r", "`at` is missing or empty"),
            ("  ", "r", "`at` is missing or empty"),
            ("a.rs:27", "", "`why` is missing or empty"),
            ("a.rs:27", " ", "`why` is missing or empty"),
            ("a.rs:0", "r", "\"0\" is not a line number"),
            ("a.rs:x7", "r", "\"x7\" is not a line number"),
            ("a.rs:", "r", "\"\" is not a line number"),
            ("a.rs::f", "r", "\"f\" is not a line number"),
            (":12", "r", "\"12\" is not a line number"),
        ] {
            let mut a = allow("*", at);
            a.why = why.into();
            let e = a.validate().unwrap_err();
            assert!(e.contains(needle), "{at:?} {why:?}: {e}");
        }
        let mut a = allow("", "f");
        assert!(a.validate().unwrap_err().contains("`scenario` is empty"));
        a.scenario = "*".into();
        assert_eq!(a.validate(), Ok(()));
        a.kind = Some(CtKind::Memory);
        assert!(a
            .validate()
            .unwrap_err()
            .contains("only \"branch\" and \"address\""));
        a.kind = Some(CtKind::Address);
        assert_eq!(a.validate(), Ok(()));
    }

    #[test]
    fn accept_marks_the_last_matching_entry_and_stale_names_the_unused() {
        let ct = |findings| ConstantTime {
            secret_marks: 1,
            secret_bytes: 16,
            findings,
            ..ConstantTime::default()
        };
        let branch = finding(
            CtKind::Branch,
            CtOrigin::Secret,
            frame("ct::branch", "benches/ct.rs", 27),
            vec![],
        );
        let mut a = scenario("leak/branch");
        a.counters.constant_time = Some(ct(vec![branch]));
        let mut b = scenario("leak/early_exit");
        b.counters.constant_time = Some(ct(vec![early_exit()]));
        let not_checked = scenario("other/x");
        let mut run = record("r", vec![a, b, not_checked]);
        let mut first = allow("leak/*", "benches/ct.rs:27");
        first.entry = "costbench.toml:2".into();
        let mut second = allow("leak/branch", "ct::branch");
        second.entry = "costbench.toml:7".into();
        second.why = "public in our threat model".into();
        let unused = allow("leak/*", "benches/ct.rs:99");
        let elsewhere = allow("other/*", "benches/ct.rs:99");
        let entries = vec![first, second, unused, elsewhere];
        accept(&mut run, &entries);
        let c = run.results[0].counters.constant_time.as_ref().unwrap();
        assert_eq!(
            c.findings[0].accepted,
            Some(CtAccepted {
                entry: "costbench.toml:7".into(),
                at: "ct::branch".into(),
                why: "public in our threat model".into(),
            })
        );
        assert_eq!(run.failing_findings().count(), 1, "early_exit still fails");
        assert_eq!(run.accepted_findings().count(), 1);
        // The first entry matched leak/branch too, so it is not stale; the entry for a line
        // with no finding is; the one for ids never checked is not.
        let stale: Vec<&str> = stale(&run, &entries)
            .iter()
            .map(|a| a.at.as_str())
            .collect();
        assert_eq!(stale, ["benches/ct.rs:99"]);
        assert_eq!(stale_warning(&entries[2]).lines().count(), 1);
        // Entries that match nothing leave an earlier acceptance alone; deciding anew forgets it.
        accept(&mut run, &[]);
        assert_eq!(run.accepted_findings().count(), 1);
        decide(&mut run, &entries[2..]);
        assert_eq!(run.accepted_findings().count(), 0);
        assert_eq!(run.failing_findings().count(), 2, "both fail once removed");
        decide(&mut run, &entries);
        assert_eq!(run.accepted_findings().count(), 1);
    }
}
