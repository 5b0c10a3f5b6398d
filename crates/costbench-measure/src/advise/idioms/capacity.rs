//! A `Vec` grown by `push` in a loop whose length is known: `let mut v = Vec::new();` (or
//! `vec![]`) right before `for x in ITER { .. v.push(..); .. }`, with one unconditional `push`
//! per iteration and nothing that leaves an iteration early. The `Vec` is created with the
//! loop's length as its capacity, and reallocates no more.
//!
//! The length is known for `0..N` and `0..=N`, for `A..B` (`B.saturating_sub(A)`), and for a
//! collection iterated whole (`&xs`, `xs`, `xs.iter()`, `xs.iter_mut()`, `xs.into_iter()`,
//! `xs.bytes()`, `xs.drain(..)`: `xs.len()`), where each bound or collection is a name, a field
//! or a literal (evaluated once more, so nothing with a side effect).

use super::source::{binding, Source};
use super::{Context, Found, Idiom};
use syn::visit::Visit;

/// Whether evaluating `e` again is harmless: a literal, a name, a field of one, `x.len()`.
fn simple(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(_) | syn::Expr::Path(_) => true,
        syn::Expr::Field(f) => simple(&f.base),
        syn::Expr::Paren(p) => simple(&p.expr),
        syn::Expr::MethodCall(m) => m.method == "len" && m.args.is_empty() && simple(&m.receiver),
        _ => false,
    }
}

fn is_zero(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) if i.base10_digits() == "0")
}

/// The number of iterations of `for _ in iter`, as an expression of type `usize`.
fn length(src: &Source<'_>, iter: &syn::Expr) -> Option<String> {
    match iter {
        syn::Expr::Range(r) => {
            let (Some(a), Some(b)) = (&r.start, &r.end) else {
                return None;
            };
            if !simple(a) || !simple(b) {
                return None;
            }
            let closed = matches!(r.limits, syn::RangeLimits::Closed(_));
            let (a, b) = (&**a, &**b);
            Some(match (is_zero(a), closed) {
                (true, false) => format!("({}) as usize", src.text_of(b)),
                (true, true) => format!("({}) as usize + 1", src.text_of(b)),
                (false, false) => format!(
                    "({}).saturating_sub({}) as usize",
                    src.text_of(b),
                    src.text_of(a)
                ),
                (false, true) => return None,
            })
        }
        syn::Expr::Reference(r) if simple(&r.expr) => {
            Some(format!("{}.len()", src.text_of(&*r.expr)))
        }
        syn::Expr::Path(_) | syn::Expr::Field(_) => Some(format!("{}.len()", src.text_of(iter))),
        syn::Expr::MethodCall(m)
            if simple(&m.receiver)
                && matches!(
                    m.method.to_string().as_str(),
                    "iter" | "iter_mut" | "into_iter" | "bytes" | "drain"
                ) =>
        {
            Some(format!("{}.len()", src.text_of(&*m.receiver)))
        }
        _ => None,
    }
}

/// Counts `name.push(..)` calls and what leaves an iteration early in a loop's body.
struct Body<'a> {
    name: &'a str,
    pushes: usize,
    early_exit: bool,
}

impl<'e> Visit<'e> for Body<'_> {
    fn visit_expr(&mut self, e: &'e syn::Expr) {
        match e {
            syn::Expr::Break(_) | syn::Expr::Continue(_) | syn::Expr::Return(_) => {
                self.early_exit = true;
            }
            syn::Expr::MethodCall(m)
                if m.method == "push"
                    && super::source::ident(&m.receiver).as_deref() == Some(self.name) =>
            {
                self.pushes += 1;
            }
            _ => {}
        }
        syn::visit::visit_expr(self, e);
    }

    fn visit_macro(&mut self, m: &'e syn::Macro) {
        // `push` hidden in a macro could not be counted.
        if m.tokens.to_string().contains(self.name) {
            self.early_exit = true;
        }
    }
}

/// Whether `init` is an empty `Vec`: `Vec::new()` or `vec![]`.
fn empty_vec(init: &syn::Expr) -> bool {
    match init {
        syn::Expr::Call(_) => super::source::called_path(init).is_some_and(|(p, args)| {
            args.is_empty() && super::source::tail(p) == ("Vec".into(), "new".into())
        }),
        syn::Expr::Macro(m) => m.mac.path.is_ident("vec") && m.mac.tokens.is_empty(),
        _ => false,
    }
}

/// `let mut v = Vec::new();` right before a loop of known length with one `v.push` per
/// iteration.
pub(super) fn block(found: &mut Found<'_, '_>, cx: &Context, b: &syn::Block) {
    let src = found.src;
    for pair in b.stmts.windows(2) {
        let Some((_, name, init)) = binding(&pair[0]) else {
            continue;
        };
        if !empty_vec(init) {
            continue;
        }
        let syn::Stmt::Expr(syn::Expr::ForLoop(f), _) = &pair[1] else {
            continue;
        };
        let Some(len) = length(src, &f.expr) else {
            continue;
        };
        // One unconditional push: a statement of the body itself, and no other anywhere in it.
        let top = f.body.stmts.iter().filter(|s| match s {
            syn::Stmt::Expr(syn::Expr::MethodCall(m), _) => {
                m.method == "push"
                    && super::source::ident(&m.receiver).as_deref() == Some(name.as_str())
            }
            _ => false,
        });
        let mut body = Body {
            name: &name,
            pushes: 0,
            early_exit: false,
        };
        body.visit_block(&f.body);
        if top.count() != 1 || body.pushes != 1 || body.early_exit {
            continue;
        }
        found.add(
            Idiom::VecWithoutCapacity,
            &pair[0],
            cx,
            format!(
                "`{name}` grows by one push per iteration of a loop of known length: created with \
                 that capacity ({len}), it reallocates no more"
            ),
            vec![src.replace(init, format!("Vec::with_capacity({len})"))],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::{rewritten, scan, Idiom};

    #[test]
    fn a_push_per_item_of_a_slice_gets_its_length() {
        let text = "fn f(xs: &[u32]) -> Vec<u64> {\n    let mut out = Vec::new();\n    for x in xs.iter() {\n        let y = u64::from(*x);\n        out.push(y * 2);\n    }\n    out\n}\n";
        let f = scan("a.rs", text).unwrap();
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].idiom, Idiom::VecWithoutCapacity);
        assert!(rewritten(text, &f[0]).contains("let mut out = Vec::with_capacity(xs.len());"));
    }

    #[test]
    fn ranges_give_their_length() {
        let text = "fn f(n: u32, a: usize, b: usize) {\n    let mut v = vec![];\n    for i in 0..n { v.push(i); }\n    let mut w = Vec::new();\n    for i in a..b { w.push(i); }\n}\n";
        let f = scan("a.rs", text).unwrap();
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(rewritten(text, &f[0]).contains("let mut v = Vec::with_capacity((n) as usize);"));
        assert!(rewritten(text, &f[1])
            .contains("let mut w = Vec::with_capacity((b).saturating_sub(a) as usize);"));
    }

    #[test]
    fn a_conditional_push_or_an_early_exit_is_not_a_known_length() {
        let text = "fn f(xs: &[u32]) {\n    let mut v = Vec::new();\n    for x in xs { if *x > 1 { v.push(x); } }\n    let mut w = Vec::new();\n    for x in xs { w.push(x); if *x == 0 { break; } }\n    let mut z = Vec::new();\n    for x in xs.iter().filter(|x| **x > 2) { z.push(x); }\n}\n";
        assert!(scan("a.rs", text).unwrap().is_empty());
    }
}
