//! The upper bound of removing a bounds check: every index expression on one source line
//! (`a[i]`, `a[x..y]`) rewritten to index without checking (`*unsafe { a.get_unchecked(i) }`,
//! `get_unchecked_mut` where the element is assigned to or borrowed mutably). `advise` measures
//! the rewrite on the scenarios that execute it, and runs the crate's tests and Miri on it, so a
//! user sees what a line of `unsafe` would buy before writing it. Never a fix to apply blindly:
//! the rewrite is sound only where the index is always in bounds. Pure: text in, replacements
//! out.

use super::edit::Replacement;
use super::idioms::source::Source;
use syn::visit::Visit;

/// Finds the outermost index expressions starting on one line, and whether each is a place
/// written to.
struct Indexes<'e> {
    line: usize,
    found: Vec<(&'e syn::ExprIndex, bool)>,
    mutable: bool,
}

impl<'e> Visit<'e> for Indexes<'e> {
    fn visit_expr(&mut self, e: &'e syn::Expr) {
        use syn::spanned::Spanned;
        match e {
            syn::Expr::Index(ix) if ix.span().start().line == self.line => {
                self.found.push((ix, self.mutable));
                // Outermost only: an index inside this one is part of its text.
            }
            syn::Expr::Assign(a) => {
                self.written(|s| s.visit_expr(&a.left));
                self.visit_expr(&a.right);
            }
            syn::Expr::Binary(b) if is_compound(&b.op) => {
                self.written(|s| s.visit_expr(&b.left));
                self.visit_expr(&b.right);
            }
            syn::Expr::Reference(r) if r.mutability.is_some() => {
                self.written(|s| s.visit_expr(&r.expr));
            }
            _ => {
                let outer = std::mem::replace(&mut self.mutable, false);
                syn::visit::visit_expr(self, e);
                self.mutable = outer;
            }
        }
    }
}

impl Indexes<'_> {
    fn written(&mut self, f: impl FnOnce(&mut Self)) {
        let outer = std::mem::replace(&mut self.mutable, true);
        f(self);
        self.mutable = outer;
    }
}

fn is_compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// The replacements that make every index expression starting on `line` (1-based) of `text`
/// unchecked; empty when there is none (or the file does not parse).
pub fn rewrite(file: &str, text: &str, line: u32) -> Vec<Replacement> {
    let Ok(parsed) = syn::parse_file(text) else {
        return Vec::new();
    };
    let src = Source::new(file, text);
    let mut v = Indexes {
        line: line as usize,
        found: Vec::new(),
        mutable: false,
    };
    v.visit_file(&parsed);
    v.found
        .iter()
        .map(|(ix, mutable)| {
            let method = if *mutable {
                "get_unchecked_mut"
            } else {
                "get_unchecked"
            };
            let base = src.text_of(&*ix.expr);
            let index = src.text_of(&*ix.index);
            src.replace(*ix, format!("(*unsafe {{ ({base}).{method}({index}) }})"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(text: &str, line: u32) -> String {
        let r = rewrite("a.rs", text, line);
        super::super::edit::apply(text, &r.iter().collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn reads_and_writes_become_unchecked() {
        let text = "fn f(a: &mut [u64], b: &[usize], i: usize) -> u64 {\n    a[b[i]] += a[i];\n    let s = &a[1..i];\n    s[0]\n}\n";
        assert_eq!(
            apply(text, 2),
            "fn f(a: &mut [u64], b: &[usize], i: usize) -> u64 {\n    (*unsafe { (a).get_unchecked_mut(b[i]) }) += (*unsafe { (a).get_unchecked(i) });\n    let s = &a[1..i];\n    s[0]\n}\n"
        );
        assert!(apply(text, 3).contains("let s = &(*unsafe { (a).get_unchecked(1..i) });"));
        assert!(rewrite("a.rs", text, 1).is_empty());
    }
}
