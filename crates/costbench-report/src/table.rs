//! Aligned plain-text tables, the one builder behind every terminal table (the run table, the
//! counters tables, the comparison, the variant matrix).
//!
//! Owns layout only: column widths, padding and the two-space gap between columns. What goes in
//! a cell (numbers from `costbench_record::fmt`, names made safe with `report::escape::clean`) is the
//! caller's; nothing here prints.
//!
//! Widths are counted in `char`s, as Rust's own `{:<w$}` padding counts them, so a `µs` cell
//! lines up with ASCII ones in a terminal; colour sequences ([`crate::style`]) count nothing.

/// How a column's cells are padded to its width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Names and words: padded on the right. In the last column, not padded at all, so that a
    /// long free-text column (a reason, a time with its spread) leaves no trailing blanks.
    Left,
    /// Figures: padded on the left, so that digits line up.
    Right,
}

#[derive(Debug)]
enum Line {
    Cells(Vec<String>),
    /// Free text between rows (a section title): indented like the rows, not in the widths.
    Text(String),
}

/// A table of a header row and data rows, rendered with each column as wide as its widest cell.
///
/// ```
/// use costbench_report::table::{Align, TextTable};
/// let mut t = TextTable::new(["name", "Ir/op"], &[Align::Left, Align::Right]);
/// t.row(["sum", "2003"]);
/// assert_eq!(t.render(), "name  Ir/op\nsum    2003\n");
/// ```
#[derive(Debug)]
pub struct TextTable {
    align: Vec<Align>,
    indent: &'static str,
    trim_end: bool,
    lines: Vec<Line>,
}

impl TextTable {
    /// A table whose first row is `header`; `align` gives each column's alignment (columns beyond
    /// it are right-aligned).
    pub fn new<S: Into<String>>(header: impl IntoIterator<Item = S>, align: &[Align]) -> Self {
        let mut t = TextTable {
            align: align.to_vec(),
            indent: "",
            trim_end: false,
            lines: Vec::new(),
        };
        t.row(header);
        t
    }

    /// Starts every line (rows and text lines) with `indent`.
    pub fn indent(mut self, indent: &'static str) -> Self {
        self.indent = indent;
        self
    }

    /// Drops the blanks at the end of every row, whatever column they come from (the variant
    /// matrix's lines end at their last visible character even when its last cell is empty).
    pub fn trim_end(mut self) -> Self {
        self.trim_end = true;
        self
    }

    /// Adds a row. Rows may be shorter than the header; their missing cells are not drawn.
    pub fn row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) -> &mut Self {
        self.lines
            .push(Line::Cells(cells.into_iter().map(Into::into).collect()));
        self
    }

    /// Adds a line of free text after the rows so far (a section title).
    pub fn text(&mut self, text: impl Into<String>) -> &mut Self {
        self.lines.push(Line::Text(text.into()));
        self
    }

    fn widths(&self) -> Vec<usize> {
        let mut widths: Vec<usize> = Vec::new();
        for line in &self.lines {
            if let Line::Cells(cells) = line {
                if widths.len() < cells.len() {
                    widths.resize(cells.len(), 0);
                }
                for (w, cell) in widths.iter_mut().zip(cells) {
                    *w = (*w).max(crate::style::visible_len(cell));
                }
            }
        }
        widths
    }

    /// The table, one `\n`-terminated line per row and text line.
    pub fn render(&self) -> String {
        let widths = self.widths();
        let mut out = String::new();
        for line in &self.lines {
            let start = out.len();
            out.push_str(self.indent);
            match line {
                Line::Text(text) => out.push_str(text),
                Line::Cells(cells) => {
                    let last = cells.len().saturating_sub(1);
                    for (k, cell) in cells.iter().enumerate() {
                        if k > 0 {
                            out.push_str("  ");
                        }
                        let pad = " ".repeat(widths[k] - crate::style::visible_len(cell));
                        match self.align.get(k).copied().unwrap_or(Align::Right) {
                            Align::Left if k == last => out.push_str(cell),
                            Align::Left => {
                                out.push_str(cell);
                                out.push_str(&pad);
                            }
                            Align::Right => {
                                out.push_str(&pad);
                                out.push_str(cell);
                            }
                        }
                    }
                }
            }
            if self.trim_end {
                let kept = out[start..].trim_end().len();
                out.truncate(start + kept);
            }
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_take_their_widest_cell() {
        let mut t = TextTable::new(["a", "bb", "c"], &[Align::Left, Align::Right, Align::Left]);
        t.row(["long", "1", "x"]).row(["µs", "12345", "free text"]);
        assert_eq!(
            t.render(),
            "a        bb  c\nlong      1  x\nµs    12345  free text\n"
        );
    }

    #[test]
    fn indent_text_lines_and_padded_last_column() {
        let mut t = TextTable::new(["", "x"], &[Align::Left]).indent("  ");
        t.row(["op =", "words"]).text("section").row(["n", "1"]);
        assert_eq!(
            t.render(),
            "            x\n  op =  words\n  section\n  n         1\n"
        );
    }

    #[test]
    fn trimmed_lines_end_at_their_last_visible_character() {
        let mut t = TextTable::new(["variant", "settings"], &[Align::Left]).trim_end();
        t.row(["v", ""]).row(["short", "s"]);
        assert_eq!(t.render(), "variant  settings\nv\nshort           s\n");
    }
}
