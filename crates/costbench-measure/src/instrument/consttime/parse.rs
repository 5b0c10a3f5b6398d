//! Reading memcheck's XML (`--xml=yes`, protocol 4) into the secrets a process marked and the
//! findings on them. Pure.
//!
//! The library's marks arrive as client messages (`<clientmsg>`, text `costbench-secret: N
//! bytes at FILE:LINE`). Each `<error>` is one instruction memcheck complained about; its
//! `<unique>` is counted in `<errorcounts>`. Errors are grouped by kind, origin, place (body or
//! setup) and the source line they are attributed to, so that a loop LLVM unrolled sixteen times
//! is one finding of sixteen. Leak reports (`Leak_*`) are not findings: leaks are no leak of a
//! secret, and leak checking is off anyway (memcheck still reports blocks lost by the harness'
//! placement code at exit in XML mode).

use super::super::shape::{Output, Parser};
use super::ConstantTimeCheck;
use costbench_record::instrument::Instrument;
use costbench_record::instrument::consttime::{ConstantTime, CtFinding, CtFrame, CtKind, CtOrigin};
use costbench_record::model::Failure;
use std::collections::HashMap;

/// The prefix of the library's client message (`costbench::secret`'s `MESSAGE_PREFIX`).
const SECRET_MESSAGE: &str = "costbench-secret:";

/// Functions whose frame is the measured region: a finding under one is in the body.
const REGION: &[&str] = &["costbench_measured_region", "costbench::region::shim"];

/// One frame as memcheck gave it.
struct RawFrame {
    frame: CtFrame,
    /// The object (`vgpreload_memcheck-amd64-linux.so` for valgrind's replacement functions).
    obj: String,
}

/// Reads memcheck's XML: the marks and the findings (`memcheck_out` left empty).
pub fn read(xml: &str) -> Result<ConstantTime, String> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| format!("not memcheck XML: {e}"))?;
    let root = doc.root_element();
    if root.tag_name().name() != "valgrindoutput" {
        return Err("not valgrind XML output (no <valgrindoutput>)".into());
    }
    match child_text(root, "protocoltool") {
        Some("memcheck") => {}
        other => return Err(format!("valgrind ran {other:?}, not memcheck")),
    }
    let mut ct = ConstantTime::default();
    for msg in root.children().filter(|n| n.has_tag_name("clientmsg")) {
        let text = child_text(msg, "text").unwrap_or("").trim();
        let Some(rest) = text.strip_prefix(SECRET_MESSAGE) else {
            continue;
        };
        // " 16 bytes at benches/ct.rs:59"
        let (bytes, at) = rest
            .trim()
            .split_once(" bytes at ")
            .unwrap_or((rest.trim(), ""));
        ct.secret_marks += 1;
        ct.secret_bytes += bytes.trim().parse::<u64>().unwrap_or(0);
        if !at.is_empty() && !ct.marked_at.iter().any(|a| a == at) {
            ct.marked_at.push(at.to_string());
        }
    }
    let counts: HashMap<&str, u64> = root
        .children()
        .filter(|n| n.has_tag_name("errorcounts"))
        .flat_map(|n| n.children().filter(|p| p.has_tag_name("pair")))
        .filter_map(|p| {
            let count = child_text(p, "count")?.trim().parse().ok()?;
            Some((child_text(p, "unique")?.trim(), count))
        })
        .collect();
    // (kind, origin, in body, file, line, function) → index in ct.findings.
    type Key = (
        CtKind,
        bool,
        bool,
        Option<String>,
        Option<u32>,
        Option<String>,
    );
    let mut seen: HashMap<Key, usize> = HashMap::new();
    for e in root.children().filter(|n| n.has_tag_name("error")) {
        let kind_name = child_text(e, "kind").unwrap_or("");
        if kind_name.starts_with("Leak_") {
            continue;
        }
        let kind = match kind_name {
            "UninitCondition" => CtKind::Branch,
            "UninitValue" => CtKind::Address,
            "SyscallParam" => CtKind::Syscall,
            _ => CtKind::Memory,
        };
        let what = child_text(e, "what")
            .or_else(|| {
                e.children()
                    .find(|n| n.has_tag_name("xwhat"))
                    .and_then(|x| child_text(x, "text"))
            })
            .unwrap_or(kind_name)
            .to_string();
        // The first stack is the error's; a second one (after the auxwhat) is the origin's.
        let frames: Vec<RawFrame> = e
            .children()
            .find(|n| n.has_tag_name("stack"))
            .map(|s| {
                s.children()
                    .filter(|f| f.has_tag_name("frame"))
                    .map(frame)
                    .collect()
            })
            .unwrap_or_default();
        let origin = e
            .children()
            .filter(|n| n.has_tag_name("auxwhat"))
            .filter_map(|n| n.text())
            .find_map(|t| {
                if t.contains("created by a client request") {
                    Some(CtOrigin::Secret)
                } else if t.contains("created by a heap allocation")
                    || t.contains("created by a stack allocation")
                {
                    Some(CtOrigin::Uninitialised)
                } else {
                    None
                }
            })
            .unwrap_or(CtOrigin::Unknown);
        let region = frames.iter().position(|f| {
            f.frame
                .function
                .as_deref()
                .is_some_and(|n| REGION.contains(&n))
        });
        let in_body = region.is_some();
        let at = attributed(&frames);
        let count = child_text(e, "unique")
            .and_then(|u| counts.get(u.trim()).copied())
            .unwrap_or(1);
        let key: Key = (
            kind,
            origin == CtOrigin::Secret,
            in_body,
            at.file.clone(),
            at.line,
            at.function.clone(),
        );
        if let Some(&i) = seen.get(&key) {
            ct.findings[i].count += count;
            continue;
        }
        let kept = region.unwrap_or(frames.len());
        seen.insert(key, ct.findings.len());
        ct.findings.push(CtFinding {
            kind,
            origin,
            in_body,
            at,
            frames: frames.into_iter().take(kept).map(|f| f.frame).collect(),
            count,
            what,
            accepted: None,
        });
    }
    Ok(ct)
}

/// The frame a finding is attributed to: the innermost in the user's code (a source file that
/// is not the standard library's, in an object that is not valgrind's), else the innermost
/// with a source file, else the innermost.
fn attributed(frames: &[RawFrame]) -> CtFrame {
    let user = |f: &&RawFrame| {
        f.frame
            .file
            .as_deref()
            .is_some_and(|p| !p.starts_with("library/"))
            && !f.obj.contains("/vgpreload_")
    };
    frames
        .iter()
        .find(user)
        .or_else(|| frames.iter().find(|f| f.frame.file.is_some()))
        .or_else(|| frames.first())
        .map(|f| f.frame.clone())
        .unwrap_or(CtFrame {
            function: None,
            file: None,
            line: None,
        })
}

fn frame(n: roxmltree::Node<'_, '_>) -> RawFrame {
    let dir = child_text(n, "dir");
    let file = child_text(n, "file").map(|f| source_path(dir, f));
    RawFrame {
        frame: CtFrame {
            function: child_text(n, "fn").map(str::to_string),
            file,
            line: child_text(n, "line").and_then(|l| l.trim().parse().ok()),
        },
        obj: child_text(n, "obj").unwrap_or("").to_string(),
    }
}

/// `dir/file`; the standard library's (`/rustc/HASH/library/...`) as `library/...`.
fn source_path(dir: Option<&str>, file: &str) -> String {
    let joined = match dir {
        Some(d) if !file.starts_with('/') => format!("{d}/{file}"),
        _ => file.to_string(),
    };
    match joined.strip_prefix("/rustc/") {
        Some(rest) => rest.split_once('/').map_or(rest, |(_, p)| p).to_string(),
        None => joined,
    }
}

fn child_text<'a>(n: roxmltree::Node<'a, '_>, tag: &str) -> Option<&'a str> {
    n.children()
        .find(|c| c.has_tag_name(tag))
        .and_then(|c| c.text())
}

impl Parser for ConstantTimeCheck {
    const INSTRUMENT: Instrument = Instrument::ConstantTime;
    type Figure = ConstantTime;

    fn parse(&self, out: Output<'_>) -> Result<ConstantTime, Failure> {
        out.ended_well(Self::INSTRUMENT)?;
        let text = out
            .text("memcheck")
            .map_err(|e| out.failure(Self::INSTRUMENT, "no-measurement", format!("{e:#}")))?;
        let mut ct = read(&text).map_err(|e| {
            out.failure(
                Self::INSTRUMENT,
                "no-measurement",
                format!("in memcheck output {}: {e}", out.path.display()),
            )
        })?;
        ct.memcheck_out = out.kept_as;
        Ok(ct)
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::shape::testing::*;
    use super::*;

    /// Real memcheck (valgrind 3.19) XML of the selftest's `consttime` target, one file per
    /// scenario (paths of the checkout rewritten to `/src/costbench`).
    const BRANCH: &str = include_str!("testdata/leak_branch.xml");
    const TABLE: &str = include_str!("testdata/leak_table.xml");
    const EARLY_EXIT: &str = include_str!("testdata/leak_early_exit.xml");
    const SUBTLE: &str = include_str!("testdata/clean_subtle_ct_eq.xml");
    const NO_SECRET: &str = include_str!("testdata/plain_no_secret.xml");
    /// The selftest's `miri_ub` target, `unchecked/out_of_bounds`: one read past the end of a
    /// vector, no secret (a memory bug, not a leak).
    const INVALID_READ: &str = include_str!("testdata/invalid_read.xml");

    const SRC: &str = "/src/costbench/suites/selftest/benches/consttime.rs";

    #[test]
    fn an_unrolled_branch_is_one_finding_counted_sixteen_times() {
        let ct = read(BRANCH).unwrap();
        assert_eq!((ct.secret_marks, ct.secret_bytes), (1, 16));
        assert_eq!(ct.marked_at, ["suites/selftest/benches/consttime.rs:56"]);
        assert_eq!(ct.findings.len(), 1, "{:#?}", ct.findings);
        let f = &ct.findings[0];
        assert_eq!(f.kind, CtKind::Branch);
        assert_eq!(f.origin, CtOrigin::Secret);
        assert!(f.in_body);
        assert_eq!(f.at.file.as_deref(), Some(SRC));
        assert_eq!(f.at.line, Some(27));
        assert_eq!(f.count, 16);
        assert_eq!(
            f.what,
            "Conditional jump or move depends on uninitialised value(s)"
        );
    }

    #[test]
    fn a_secret_index_is_an_address_finding() {
        let ct = read(TABLE).unwrap();
        assert_eq!(ct.findings.len(), 1, "{:#?}", ct.findings);
        let f = &ct.findings[0];
        assert_eq!((f.kind, f.at.line), (CtKind::Address, Some(34)));
        assert!(
            f.what.starts_with("Use of uninitialised value of size"),
            "{}",
            f.what
        );
        assert_eq!(f.count, 16);
    }

    /// The stack starts in valgrind's own `bcmp` (no source line) and runs through inlined
    /// frames of the standard library: the finding is the user's line that called `==`.
    #[test]
    fn inline_frames_and_frames_without_source_attribute_to_the_users_line() {
        let ct = read(EARLY_EXIT).unwrap();
        assert_eq!(ct.findings.len(), 1, "{:#?}", ct.findings);
        let f = &ct.findings[0];
        assert_eq!(f.kind, CtKind::Branch);
        assert_eq!((f.at.file.as_deref(), f.at.line), (Some(SRC), Some(42)));
        assert_eq!(f.at.function.as_deref(), Some("consttime::early_exit_eq"));
        assert_eq!(f.frames[0].function.as_deref(), Some("bcmp"));
        assert_eq!(f.frames[0].file, None);
        assert_eq!(
            f.frames[1].file.as_deref(),
            Some("library/core/src/slice/cmp.rs")
        );
        // Up to the measured region, not beyond.
        assert!(f
            .frames
            .iter()
            .all(|fr| fr.function.as_deref() != Some("costbench::region::shim")));
        assert_eq!(f.count, 4);
    }

    #[test]
    fn no_errors_is_constant_time_with_secrets_and_not_checked_without() {
        let ct = read(SUBTLE).unwrap();
        assert!(ct.findings.is_empty(), "{:#?}", ct.findings);
        assert_eq!(ct.secret_marks, 1);
        assert_eq!(
            ct.verdict(),
            costbench_record::instrument::consttime::CtVerdict::ConstantTime
        );
        let plain = read(NO_SECRET).unwrap();
        assert!(plain.findings.is_empty());
        assert_eq!(
            plain.verdict(),
            costbench_record::instrument::consttime::CtVerdict::NotChecked
        );
    }

    #[test]
    fn a_memory_error_without_secrets_is_a_labelled_finding_that_gates() {
        let ct = read(INVALID_READ).unwrap();
        assert_eq!(ct.secret_marks, 0);
        assert_eq!(ct.findings.len(), 1, "{:#?}", ct.findings);
        let f = &ct.findings[0];
        assert_eq!((f.kind, f.origin), (CtKind::Memory, CtOrigin::Unknown));
        assert_eq!(f.what, "Invalid read of size 8");
        assert!(f.in_body);
        // Inlined iterator frames of the standard library first; the user's line wins.
        assert_eq!(
            f.frames[0].file.as_deref(),
            Some("library/core/src/iter/traits/accum.rs")
        );
        assert_eq!(
            f.at.file.as_deref(),
            Some("/src/costbench/suites/selftest/benches/miri_ub.rs")
        );
        assert_eq!(f.at.line, Some(14));
        assert!(f.gates());
        assert_eq!(
            ct.verdict(),
            costbench_record::instrument::consttime::CtVerdict::Leaks(1)
        );
        assert!(f.line().starts_with("memory error at "), "{}", f.line());
        assert!(
            f.line().ends_with("(body, 1×, origin unknown)"),
            "{}",
            f.line()
        );
    }

    #[test]
    fn bad_input_is_refused_and_a_dead_child_is_its_own_failure() {
        assert!(read("").is_err());
        assert!(
            read("<valgrindoutput><protocoltool>massif</protocoltool></valgrindoutput>")
                .unwrap_err()
                .contains("not memcheck")
        );
        // A file cut short (the child killed while memcheck wrote it).
        assert!(read(&BRANCH[..BRANCH.len() / 2]).is_err());
        let ok = ok();
        let f = ConstantTimeCheck.parse(file(&ok, 1, "<x/>")).unwrap_err();
        assert_eq!(f.kind, "no-measurement");
        let t = timed_out();
        let f = ConstantTimeCheck.parse(file(&t, 1, BRANCH)).unwrap_err();
        assert_ne!(f.kind, "no-measurement");
        let ct = ConstantTimeCheck.parse(file(&ok, 1, BRANCH)).unwrap();
        assert_eq!(ct.findings.len(), 1);
    }

    #[test]
    fn standard_library_paths_lose_the_toolchain_hash() {
        assert_eq!(
            source_path(Some("/rustc/5980/library/core/src"), "cmp.rs"),
            "library/core/src/cmp.rs"
        );
        assert_eq!(
            source_path(Some("/rustc/5980"), "library/core/src/slice/cmp.rs"),
            "library/core/src/slice/cmp.rs"
        );
        assert_eq!(source_path(Some("/a/b"), "c.rs"), "/a/b/c.rs");
        assert_eq!(source_path(None, "c.rs"), "c.rs");
    }
}
