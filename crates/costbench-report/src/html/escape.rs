//! The one escaping function of the HTML report. Every string that did not come from this
//! module's own templates (scenario ids, units, variant and branch names, commit ids, function
//! names, file paths, failure messages, host descriptions) goes through [`escape`] before it
//! reaches the page, in text and in attribute values alike.

/// Escapes `s` for HTML text and for double- or single-quoted attribute values: `&`, `<`, `>`,
/// `"` and `'` become character references. Nothing else needs escaping in those contexts; the
/// report never puts untrusted text into scripts, styles, URLs or unquoted attributes.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn markup_quotes_and_ampersands_become_text() {
        assert_eq!(
            escape("<script>alert(1)</script>"),
            "&lt;script&gt;alert(1)&lt;/script&gt;"
        );
        assert_eq!(
            escape(r#"a "b" & 'c'"#),
            "a &quot;b&quot; &amp; &#39;c&#39;"
        );
        // Already-escaped text is escaped again: the page shows exactly what the string holds.
        assert_eq!(escape("&amp;"), "&amp;amp;");
        assert_eq!(escape("index/sum µs → ✓"), "index/sum µs → ✓");
        assert_eq!(escape(""), "");
    }
}
