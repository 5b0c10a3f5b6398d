//! One source file as `syn` parsed it, with the way back from a node to its bytes: the byte
//! range of a span (proc-macro2's `span-locations` gives lines and columns in characters) and
//! the text the user wrote there, so that a rewrite keeps the user's own spelling of what it
//! does not change. Pure.

use super::super::edit::Replacement;
use proc_macro2::{LineColumn, Span};
use syn::spanned::Spanned;

/// A file's text and where each of its lines starts.
#[derive(Debug)]
pub struct Source<'a> {
    /// The file, relative to the workspace root (as replacements name it).
    pub file: &'a str,
    /// Its text.
    pub text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> Source<'a> {
    /// `text`, the content of `file`.
    pub fn new(file: &'a str, text: &'a str) -> Source<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Source {
            file,
            text,
            line_starts,
        }
    }

    /// The byte offset of a line and column (1-based line, column in characters).
    fn byte(&self, at: LineColumn) -> usize {
        let Some(&start) = self.line_starts.get(at.line.saturating_sub(1)) else {
            return self.text.len();
        };
        let line = &self.text[start..];
        start
            + line
                .char_indices()
                .nth(at.column)
                .map_or(line.len(), |(i, _)| i)
    }

    /// The bytes `node` spans.
    pub fn range(&self, node: &impl Spanned) -> (usize, usize) {
        self.span_range(node.span())
    }

    /// The bytes `span` covers.
    pub fn span_range(&self, span: Span) -> (usize, usize) {
        (self.byte(span.start()), self.byte(span.end()))
    }

    /// The text of `node` as written.
    pub fn text_of(&self, node: &impl Spanned) -> &'a str {
        let (a, b) = self.range(node);
        &self.text[a..b]
    }

    /// The 1-based line `node` starts on.
    pub fn line(&self, node: &impl Spanned) -> u32 {
        u32::try_from(node.span().start().line).unwrap_or(u32::MAX)
    }

    /// A replacement of `node`'s bytes by `text`.
    pub fn replace(&self, node: &impl Spanned, text: impl Into<String>) -> Replacement {
        let (start, end) = self.range(node);
        self.replace_bytes(start, end, text)
    }

    /// A replacement of the bytes `start..end` by `text`.
    pub fn replace_bytes(&self, start: usize, end: usize, text: impl Into<String>) -> Replacement {
        Replacement {
            file: self.file.to_string(),
            start,
            end,
            text: text.into(),
        }
    }

    /// The bytes of `stmt` with the line's indentation before it and the line break after it,
    /// where the statement stands alone on its lines (so removing it leaves no blank line).
    pub fn stmt_lines(&self, stmt: &impl Spanned) -> (usize, usize) {
        let (mut a, mut b) = self.range(stmt);
        let before = &self.text[..a];
        let indent = before.len() - before.trim_end_matches([' ', '\t']).len();
        if before[..a - indent].ends_with('\n') || a == indent {
            let rest = &self.text[b..];
            let trail = rest.len() - rest.trim_start_matches([' ', '\t']).len();
            if rest[trail..].starts_with('\n') {
                a -= indent;
                b += trail + 1;
            }
        }
        (a, b)
    }
}

/// The last segment of `path` and the one before it, as written (`Regex::new` gives
/// `("Regex", "new")`; a one-segment path gives `("", name)`).
pub fn tail(path: &syn::Path) -> (String, String) {
    let n = path.segments.len();
    let last = path.segments.last().map(|s| s.ident.to_string());
    let before = n
        .checked_sub(2)
        .and_then(|i| path.segments.iter().nth(i))
        .map(|s| s.ident.to_string());
    (before.unwrap_or_default(), last.unwrap_or_default())
}

/// The called path of `expr` when it is a call of a path (`Regex::new(..)`), with its arguments.
pub fn called_path(
    expr: &syn::Expr,
) -> Option<(
    &syn::Path,
    &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
)> {
    match expr {
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) => Some((&p.path, &c.args)),
            _ => None,
        },
        _ => None,
    }
}

/// `expr` without the error handling around it: `X?`, `X.unwrap()`, `X.expect(..)` give `X`.
pub fn unwrapped(expr: &syn::Expr) -> &syn::Expr {
    match expr {
        syn::Expr::Try(t) => unwrapped(&t.expr),
        syn::Expr::MethodCall(m) if m.method == "unwrap" || m.method == "expect" => {
            unwrapped(&m.receiver)
        }
        syn::Expr::Paren(p) => unwrapped(&p.expr),
        _ => expr,
    }
}

/// The identifier `expr` names when it is a plain one-segment path (`out`).
pub fn ident(expr: &syn::Expr) -> Option<String> {
    match expr {
        syn::Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            Some(p.path.segments[0].ident.to_string())
        }
        _ => None,
    }
}

/// A `let` statement of one name with an initialiser and no `else` (`let mut out: T = INIT;`):
/// the statement, the name, the initialiser. What every idiom that follows a binding starts from.
pub fn binding(stmt: &syn::Stmt) -> Option<(&syn::Local, String, &syn::Expr)> {
    let syn::Stmt::Local(local) = stmt else {
        return None;
    };
    let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
    Some((local, let_name(local)?, &init.expr))
}

/// The name a `let` binds when its pattern is one identifier (`let mut out: T = ..`).
pub fn let_name(local: &syn::Local) -> Option<String> {
    let mut pat = &local.pat;
    if let syn::Pat::Type(t) = pat {
        pat = &t.pat;
    }
    match pat {
        syn::Pat::Ident(i) if i.subpat.is_none() => Some(i.ident.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_map_to_bytes_with_multibyte_text_before_them() {
        let text = "// é ü\nfn f() { let x = \"ä\"; g(x) }\n";
        let file: syn::File = syn::parse_file(text).unwrap();
        let src = Source::new("src/lib.rs", text);
        let syn::Item::Fn(f) = &file.items[0] else {
            panic!()
        };
        assert_eq!(src.text_of(&f.block.stmts[1]), "g(x)");
        assert_eq!(src.text_of(&f.block.stmts[0]), "let x = \"ä\";");
        assert_eq!(src.line(&f.block.stmts[0]), 2);
    }

    #[test]
    fn a_statement_alone_on_its_line_is_removed_with_its_line() {
        let text = "fn f() {\n    let a = 1;\n    g(a);\n}\n";
        let file: syn::File = syn::parse_file(text).unwrap();
        let src = Source::new("a.rs", text);
        let syn::Item::Fn(f) = &file.items[0] else {
            panic!()
        };
        let (a, b) = src.stmt_lines(&f.block.stmts[0]);
        assert_eq!(&text[a..b], "    let a = 1;\n");
    }
}
