//! A `Vec` collected only to be iterated once: `let v: Vec<_> = ITER.collect();` right before
//! `for x in v` (or `&v`, `v.iter()`, `v.into_iter()`), and `v` used nowhere else. The loop takes
//! the iterator itself, and the `Vec` (its allocation, and a second pass over the items) goes.
//! Iterating `&v` yielded references where the iterator yields the items: a body that relied on
//! that no longer compiles, and is reported as such.

use super::source::{binding, ident};
use super::{Context, Found, Idiom};
use syn::visit::Visit;

/// Whether `e` is `ITER.collect()` into a `Vec` (by the `let`'s type or a turbofish), and `ITER`.
fn collected<'e>(local: &syn::Local, e: &'e syn::Expr) -> Option<&'e syn::Expr> {
    let syn::Expr::MethodCall(m) = e else {
        return None;
    };
    if m.method != "collect" || !m.args.is_empty() {
        return None;
    }
    let vec_type = |t: &syn::Type| matches!(t, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Vec"));
    let by_turbofish = m.turbofish.as_ref().is_some_and(|t| {
        t.args
            .iter()
            .any(|a| matches!(a, syn::GenericArgument::Type(t) if vec_type(t)))
    });
    let by_type = matches!(&local.pat, syn::Pat::Type(t) if vec_type(&t.ty));
    (by_turbofish || by_type).then_some(&*m.receiver)
}

/// The name a loop iterates whole: `v`, `&v`, `v.iter()`, `v.into_iter()`.
fn iterated(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Reference(r) => ident(&r.expr),
        syn::Expr::MethodCall(m)
            if (m.method == "iter" || m.method == "into_iter") && m.args.is_empty() =>
        {
            ident(&m.receiver)
        }
        _ => ident(e),
    }
}

/// Counts the mentions of a name.
struct Mentions<'a> {
    name: &'a str,
    count: usize,
}

impl<'e> Visit<'e> for Mentions<'_> {
    fn visit_ident(&mut self, i: &'e proc_macro2::Ident) {
        if i == self.name {
            self.count += 1;
        }
    }

    fn visit_macro(&mut self, m: &'e syn::Macro) {
        let words = m.tokens.to_string();
        self.count += words
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| *w == self.name)
            .count();
    }
}

/// `let v: Vec<_> = it.collect();` right before the one loop that reads `v`.
pub(super) fn block(found: &mut Found<'_, '_>, cx: &Context, b: &syn::Block) {
    let src = found.src;
    for (i, pair) in b.stmts.windows(2).enumerate() {
        let Some((local, name, init)) = binding(&pair[0]) else {
            continue;
        };
        let Some(iter) = collected(local, init) else {
            continue;
        };
        let syn::Stmt::Expr(syn::Expr::ForLoop(f), _) = &pair[1] else {
            continue;
        };
        if iterated(&f.expr).as_deref() != Some(name.as_str()) {
            continue;
        }
        // `v` is mentioned once after the `let`: by the loop's head.
        let mut m = Mentions {
            name: &name,
            count: 0,
        };
        for later in &b.stmts[i + 1..] {
            m.visit_stmt(later);
        }
        if m.count != 1 {
            continue;
        }
        let (a, z) = src.stmt_lines(&pair[0]);
        found.add(
            Idiom::CollectThenIterate,
            &pair[0],
            cx,
            format!(
                "`{name}` is collected into a Vec only to be iterated once, by the loop after it: \
                 the loop takes the iterator itself"
            ),
            vec![
                src.replace_bytes(a, z, ""),
                src.replace(&*f.expr, src.text_of(iter)),
            ],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::{rewritten, scan, Idiom};

    #[test]
    fn a_vec_iterated_once_becomes_its_iterator() {
        let text = "fn f(s: &str) -> usize {\n    let mut n = 0;\n    let words: Vec<&str> = s.split(' ').collect();\n    for w in words {\n        n += w.len();\n    }\n    n\n}\n";
        let f = scan("a.rs", text).unwrap();
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].idiom, Idiom::CollectThenIterate);
        assert_eq!(
            rewritten(text, &f[0]),
            "fn f(s: &str) -> usize {\n    let mut n = 0;\n    for w in s.split(' ') {\n        n += w.len();\n    }\n    n\n}\n"
        );
    }

    #[test]
    fn a_vec_used_again_is_kept() {
        let text = "fn f(s: &str) -> usize {\n    let words = s.split(' ').collect::<Vec<_>>();\n    for w in &words { g(w); }\n    words.len()\n}\n";
        assert!(scan("a.rs", text).unwrap().is_empty());
    }
}
