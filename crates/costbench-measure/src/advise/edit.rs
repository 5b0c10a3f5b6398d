//! A source change as replacements of byte ranges (what a compiler suggestion is), applied to a
//! file's text, and shown as a unified diff. Pure: text in, text out.

use anyhow::{bail, Result};

/// One replacement: the bytes `start..end` of `file` become `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    /// The file, relative to the workspace root.
    pub file: String,
    /// First byte replaced.
    pub start: usize,
    /// One past the last byte replaced.
    pub end: usize,
    /// What replaces them.
    pub text: String,
}

/// `source` with `edits` (replacements of one file) applied. Overlapping replacements or ones
/// outside the text (a file changed since the suggestion was made) are an error.
pub fn apply(source: &str, edits: &[&Replacement]) -> Result<String> {
    let mut sorted: Vec<&Replacement> = edits.to_vec();
    sorted.sort_by_key(|r| (r.start, r.end));
    let mut out = String::with_capacity(source.len());
    let mut at = 0;
    for r in sorted {
        if r.start < at
            || r.end < r.start
            || r.end > source.len()
            || !source.is_char_boundary(r.start)
            || !source.is_char_boundary(r.end)
        {
            bail!(
                "the suggestion's bytes {}..{} of {} do not fit the file as it is now",
                r.start,
                r.end,
                r.file
            );
        }
        out.push_str(&source[at..r.start]);
        out.push_str(&r.text);
        at = r.end;
    }
    out.push_str(&source[at..]);
    Ok(out)
}

/// Lines of context around each change in [`diff`].
pub const CONTEXT: usize = 3;

/// The unified diff of `edits` (replacements of `file`) applied to `source`, with [`CONTEXT`]
/// lines of context: `--- a/FILE`, `+++ b/FILE`, then one `@@` hunk per group of changed lines.
pub fn diff(file: &str, source: &str, edits: &[&Replacement]) -> Result<String> {
    let old: Vec<&str> = source.split_inclusive('\n').collect();
    // The changed stretches of old lines (0-based, end exclusive), each replaced by new text.
    let mut sorted: Vec<&Replacement> = edits.to_vec();
    sorted.sort_by_key(|r| r.start);
    let line_of = |byte: usize| source[..byte].matches('\n').count();
    let mut regions: Vec<(usize, usize, Vec<&Replacement>)> = Vec::new();
    for r in sorted {
        let (first, last) = (line_of(r.start), line_of(r.end.max(r.start)));
        // A replacement that ends right after a line break ends on the line before.
        let last = if r.end > r.start && source.as_bytes()[r.end - 1] == b'\n' {
            last - 1
        } else {
            last
        };
        match regions.last_mut() {
            Some((_, end, rs)) if first < *end => {
                *end = (*end).max(last + 1);
                rs.push(r);
            }
            _ => regions.push((first, last + 1, vec![r])),
        }
    }
    let line_start = |line: usize| old[..line].iter().map(|l| l.len()).sum::<usize>();
    let mut hunks: Vec<(usize, usize, Vec<String>)> = Vec::new();
    for (first, end, rs) in regions {
        let end = end.min(old.len());
        let base = line_start(first);
        let stretch = &source[base..line_start(end)];
        let shifted: Vec<Replacement> = rs
            .iter()
            .map(|r| Replacement {
                start: r.start - base,
                end: r.end - base,
                ..(*r).clone()
            })
            .collect();
        let new = apply(stretch, &shifted.iter().collect::<Vec<_>>())?;
        let mut lines: Vec<String> = old[first..end]
            .iter()
            .map(|l| format!("-{}", l.trim_end_matches('\n')))
            .collect();
        lines.extend(new.lines().map(|l| format!("+{l}")));
        let (from, to) = (
            first.saturating_sub(CONTEXT),
            (end + CONTEXT).min(old.len()),
        );
        match hunks.last_mut() {
            // Contexts that touch or overlap make one hunk.
            Some((_, hend, body)) if from <= *hend => {
                for l in &old[*hend..first] {
                    body.push(format!(" {}", l.trim_end_matches('\n')));
                }
                body.extend(lines);
                for l in &old[end..to] {
                    body.push(format!(" {}", l.trim_end_matches('\n')));
                }
                *hend = to;
            }
            _ => {
                let mut body: Vec<String> = old[from..first]
                    .iter()
                    .map(|l| format!(" {}", l.trim_end_matches('\n')))
                    .collect();
                body.extend(lines);
                body.extend(
                    old[end..to]
                        .iter()
                        .map(|l| format!(" {}", l.trim_end_matches('\n'))),
                );
                hunks.push((from, to, body));
            }
        }
    }
    let mut out = format!("--- a/{file}\n+++ b/{file}\n");
    for (from, _, body) in hunks {
        let old_n = body.iter().filter(|l| !l.starts_with('+')).count();
        let new_n = body.iter().filter(|l| !l.starts_with('-')).count();
        out += &format!("@@ -{},{old_n} +{},{new_n} @@\n", from + 1, from + 1);
        for l in body {
            out += &l;
            out.push('\n');
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rep(source: &str, find: &str, text: &str) -> Replacement {
        let start = source.find(find).unwrap();
        Replacement {
            file: "src/lib.rs".into(),
            start,
            end: start + find.len(),
            text: text.into(),
        }
    }

    #[test]
    fn a_replacement_applies_and_diffs_with_context() {
        let src = "a\nb\nc\nd\nlet x = y.clone();\ne\nf\ng\nh\n";
        let r = rep(src, ".clone()", "");
        assert_eq!(
            apply(src, &[&r]).unwrap(),
            "a\nb\nc\nd\nlet x = y;\ne\nf\ng\nh\n"
        );
        assert_eq!(
            diff("src/lib.rs", src, &[&r]).unwrap(),
            "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -2,7 +2,7 @@\n b\n c\n d\n-let x = y.clone();\n+let x = y;\n e\n f\n g\n"
        );
    }

    #[test]
    fn multi_line_and_neighbouring_replacements() {
        let src = "1\nlet mut v = Vec::with_capacity(n);\nv.resize(n, 0);\n4\n5\n6\n7\n8\n9\nx.split(\"x\")\n";
        let a = Replacement {
            start: src.find("Vec::with").unwrap(),
            end: src.find("0);").unwrap() + 2,
            ..rep(src, "Vec", "vec![0; n]")
        };
        let b = rep(src, "\"x\"", "'x'");
        let d = diff("src/lib.rs", src, &[&b, &a]).unwrap();
        assert_eq!(
            d,
            "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,10 +1,9 @@\n 1\n-let mut v = Vec::with_capacity(n);\n-v.resize(n, 0);\n+let mut v = vec![0; n];\n 4\n 5\n 6\n 7\n 8\n 9\n-x.split(\"x\")\n+x.split('x')\n"
        );
        // Overlapping or stale replacements are refused.
        let stale = Replacement {
            end: src.len() + 5,
            ..b.clone()
        };
        assert!(apply(src, &[&stale]).is_err());
        assert!(apply(src, &[&a, &a]).is_err());
    }
}
