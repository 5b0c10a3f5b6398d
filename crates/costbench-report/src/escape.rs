//! Untrusted text (scenario names, units, failure messages read from run records) made safe to
//! print on a terminal: control and bidirectional-override characters are shown escaped, so a
//! name cannot move the cursor, recolour the terminal or reorder the line. Markdown table cells
//! and running text get [`escape_cell`] (and `truncate` for long names); HTML has its own
//! (`report::html::escape`).

/// Escapes what could act on a terminal instead of being printed.
pub(crate) fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() || is_format_control(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Format characters that are not `char::is_control` but still act on the text around them:
/// bidirectional marks, embeddings, overrides and isolates, which reorder what is displayed
/// ("Trojan Source", CVE-2021-42574), and the Unicode line and paragraph separators.
pub(crate) fn is_format_control(c: char) -> bool {
    matches!(
        c,
        '\u{061c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
    )
}

/// Escapes untrusted text for a table cell or running text:
/// - `&`, `<`, `>`, `|` and backticks become HTML entities: no tags, no cell splits, no code
///   spans (GFM splits table rows on raw `|` before it reads entities, so `&#124;` stays inside
///   its cell);
/// - markdown punctuation that could start emphasis, links, strikethrough or math
///   (`\ * _ [ ] ~ $`) is backslash-escaped;
/// - newlines, carriage returns and tabs become spaces (a newline would end the table row);
///   other control characters, bidirectional overrides and Unicode line separators become
///   U+FFFD.
///
/// `@mentions` and bare URLs are left as they are: GitHub links them after rendering, whatever
/// the escaping, and whoever can name a scenario can write them in the PR anyway.
pub fn escape_cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' => out.push_str("&#124;"),
            '`' => out.push_str("&#96;"),
            '\\' | '*' | '_' | '[' | ']' | '~' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() || is_format_control(c) => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// At most `max` characters of `s`, with an ellipsis when cut.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        let cases = [
            ("plain_name", "plain_name"),
            ("a\u{1b}[31mred", "a\\u{1b}[31mred"),
            ("line\nbreak", "line\\nbreak"),
            ("evil\u{202e}txt", "evil\\u{202e}txt"),
            ("a\u{2028}b", "a\\u{2028}b"),
            ("µs ok", "µs ok"),
        ];
        for (input, want) in cases {
            assert_eq!(clean(input), want, "{input:?}");
        }
    }
}
