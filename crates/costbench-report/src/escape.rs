//! Untrusted text (scenario names, units, failure messages read from run records) made safe to
//! print on a terminal: control and bidirectional-override characters are shown escaped, so a
//! name cannot move the cursor, recolour the terminal or reorder the line. Markdown and HTML
//! have their own escaping (`report::markdown::escape_cell`, `report::html::escape`).

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
