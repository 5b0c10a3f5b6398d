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
        let from = first.saturating_sub(CONTEXT);
        let ctx = |a: usize, b: usize| -> Vec<String> {
            old[a..b]
                .iter()
                .map(|l| format!(" {}", l.trim_end_matches('\n')))
                .collect()
        };
        match hunks.last_mut() {
            // Contexts that touch or overlap make one hunk: the lines between the two regions
            // are its context.
            Some((_, last, body)) if from <= *last + CONTEXT => {
                body.extend(ctx(*last, first));
                body.extend(lines);
                *last = end;
            }
            _ => {
                let mut body = ctx(from, first);
                body.extend(lines);
                hunks.push((from, end, body));
            }
        }
    }
    // Each hunk ends with the context after its last region.
    for (_, last, body) in &mut hunks {
        body.extend(
            old[*last..(*last + CONTEXT).min(old.len())]
                .iter()
                .map(|l| format!(" {}", l.trim_end_matches('\n'))),
        );
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

/// The files a unified [`diff`] edits (its `--- a/FILE` lines), in order.
pub fn diff_files(diff: &str) -> Vec<String> {
    diff.lines()
        .filter_map(|l| l.strip_prefix("--- a/"))
        .map(str::to_string)
        .collect()
}

/// `text` (the content of `file`) with the hunks of `diff` that edit `file` applied. Each hunk's
/// old lines (context and removed) must stand in the text at the line the hunk names: a file
/// changed since the diff was made is an error, and nothing is applied.
pub fn apply_diff(file: &str, text: &str, diff: &str) -> Result<String> {
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    let mut mine = false;
    // Hunks as (first old line, 0-based; old lines; new lines), applied last first.
    let mut hunks: Vec<(usize, Vec<String>, Vec<String>)> = Vec::new();
    for l in diff.lines() {
        if let Some(f) = l.strip_prefix("--- a/") {
            mine = f == file;
        } else if l.starts_with("+++ ") {
        } else if let Some(h) = l.strip_prefix("@@ -") {
            if mine {
                let first: usize = h
                    .split([',', ' '])
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(1);
                hunks.push((first.saturating_sub(1), Vec::new(), Vec::new()));
            }
        } else if let (true, Some((_, old, new))) = (mine, hunks.last_mut()) {
            let (tag, body) = l.split_at(l.len().min(1));
            match tag {
                " " => {
                    old.push(body.to_string());
                    new.push(body.to_string());
                }
                "-" => old.push(body.to_string()),
                "+" => new.push(body.to_string()),
                _ => {}
            }
        }
    }
    for (first, old, new) in hunks.into_iter().rev() {
        let here = lines.get(first..first + old.len()).is_some_and(|have| {
            have.iter()
                .zip(&old)
                .all(|(h, o)| h.trim_end_matches('\n') == o)
        });
        if !here {
            bail!(
                "{file} has changed since the candidate was measured (line {} does not read as \
                 it did): run costbench advise again",
                first + 1
            );
        }
        // The last line keeps the file's own ending: with or without a final line break.
        let ends = first + old.len() == lines.len() && !text.ends_with('\n');
        let n = new.len();
        let with: Vec<String> = new
            .into_iter()
            .enumerate()
            .map(|(k, l)| if ends && k + 1 == n { l } else { l + "\n" })
            .collect();
        lines.splice(first..first + old.len(), with);
    }
    Ok(lines.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_applies_to_the_text_it_was_made_from_and_to_no_other() {
        let text = "a\nb\nc\nd\ne\nf\ng\nh\ni\n";
        let r1 = Replacement {
            file: "x.rs".into(),
            start: 2,
            end: 3,
            text: "B\nB2".into(),
        };
        let r2 = Replacement {
            file: "x.rs".into(),
            start: 16,
            end: 17,
            text: "I".into(),
        };
        let d = diff("x.rs", text, &[&r1, &r2]).unwrap();
        assert_eq!(diff_files(&d), ["x.rs"]);
        assert_eq!(
            apply_diff("x.rs", text, &d).unwrap(),
            apply(text, &[&r1, &r2]).unwrap()
        );
        assert_eq!(apply_diff("y.rs", text, &d).unwrap(), text);
        let changed = text.replace("c\n", "C\n");
        let err = apply_diff("x.rs", &changed, &d).unwrap_err().to_string();
        assert!(err.contains("has changed since"), "{err}");
    }

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
