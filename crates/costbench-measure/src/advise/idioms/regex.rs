//! A `Regex` compiled from a constant pattern each time the code runs (the classic "regex in a
//! loop"), and a `Regex` whose pattern is a plain string, where `str`'s own methods do the same
//! work without an automaton.
//!
//! - `Regex::new("…").unwrap()` (or `.expect(..)`, or `?`) in a function, outside a `static`,
//!   `LazyLock` or `OnceLock`: the expression becomes a reference to a `static LazyLock`
//!   compiled on first use. Only a pattern that compiles is rewritten (checked with the `regex`
//!   crate here), so the `static`'s `expect` cannot panic where the code returned an error.
//! - `Regex::new("abc")` used only for `is_match(x)` or `split(x)`: `x.contains("abc")`
//!   (`^abc`: `starts_with`, `abc$`: `ends_with`) or `x.split("abc")`, on a chain or through a
//!   `let` whose every use is one of those calls (the `let` is then removed).

use super::source::{binding, called_path, ident, unwrapped, Source};
use super::{Context, Found, Idiom};
use syn::visit::Visit;

/// The pattern literal of `Regex::new(LIT)` (any path ending in `Regex::new`), with the type's
/// path as written (`Regex`, `regex::bytes::Regex`).
fn regex_new<'e>(src: &Source<'_>, e: &'e syn::Expr) -> Option<(String, &'e syn::LitStr)> {
    let (path, args) = called_path(e)?;
    let (ty, f) = super::source::tail(path);
    if ty != "Regex" || f != "new" || args.len() != 1 {
        return None;
    }
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(lit),
        ..
    }) = &args[0]
    else {
        return None;
    };
    let text = src.text_of(path);
    let ty_path = text.strip_suffix("::new")?.trim().to_string();
    Some((ty_path, lit))
}

/// How a plain-string pattern matches: anywhere, at the start, at the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    Anywhere,
    Start,
    End,
}

/// The literal string a pattern matches and where, when the pattern is nothing but a literal
/// (escaped metacharacters allowed) with at most one anchor.
fn plain(pattern: &str) -> Option<(Anchor, String)> {
    let (anchor, body) = if let Some(rest) = pattern.strip_prefix('^') {
        (Anchor::Start, rest)
    } else if let Some(rest) = pattern.strip_suffix('$').filter(|r| !r.ends_with('\\')) {
        (Anchor::End, rest)
    } else {
        (Anchor::Anywhere, pattern)
    };
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let n = chars.next()?;
                if !r".+*?()|[]{}^$\#&-~ ".contains(n) {
                    return None;
                }
                out.push(n);
            }
            '.' | '+' | '*' | '?' | '(' | ')' | '|' | '[' | ']' | '{' | '}' | '^' | '$' => {
                return None
            }
            c => out.push(c),
        }
    }
    (!out.is_empty()).then_some((anchor, out))
}

/// `x` as a method call's receiver: parenthesised unless it already binds tighter.
fn receiver(src: &Source<'_>, x: &syn::Expr) -> String {
    let text = src.text_of(x);
    match x {
        syn::Expr::Path(_)
        | syn::Expr::Field(_)
        | syn::Expr::MethodCall(_)
        | syn::Expr::Call(_)
        | syn::Expr::Index(_)
        | syn::Expr::Paren(_)
        | syn::Expr::Lit(_) => text.to_string(),
        _ => format!("({text})"),
    }
}

/// The string method doing what `method(arg)` of a regex matching `lit` at `anchor` does.
fn str_call(
    src: &Source<'_>,
    anchor: Anchor,
    lit: &str,
    method: &str,
    arg: &syn::Expr,
) -> Option<String> {
    let lit = format!("{lit:?}");
    let x = receiver(src, arg);
    match (method, anchor) {
        ("is_match", Anchor::Anywhere) => Some(format!("{x}.contains({lit})")),
        ("is_match", Anchor::Start) => Some(format!("{x}.starts_with({lit})")),
        ("is_match", Anchor::End) => Some(format!("{x}.ends_with({lit})")),
        ("split", Anchor::Anywhere) => Some(format!("{x}.split({lit})")),
        _ => None,
    }
}

/// A chain: `Regex::new("abc").unwrap().is_match(x)`, and a pattern compiled each time the code
/// runs.
pub(super) fn expr(found: &mut Found<'_, '_>, cx: &Context, e: &syn::Expr) {
    let src = found.src;
    if let syn::Expr::MethodCall(m) = e {
        let inner = unwrapped(&m.receiver);
        if !std::ptr::eq(inner, &*m.receiver) && m.args.len() == 1 {
            if let Some((_, lit)) = regex_new(src, inner) {
                if let Some((anchor, s)) = plain(&lit.value()) {
                    if let Some(call) = str_call(src, anchor, &s, &m.method.to_string(), &m.args[0])
                    {
                        found.add(
                            Idiom::RegexForStrMethod,
                            e,
                            cx,
                            format!(
                                "a Regex for a plain string ({}): `{call}` does the same without an automaton",
                                lit.token()
                            ),
                            vec![src.replace(e, call)],
                        );
                    }
                }
            }
        }
    }
    // `Regex::new(LIT).unwrap()`, `.expect(..)` or `?`: the whole expression is the value.
    let handled = match e {
        syn::Expr::Try(t) => Some(&*t.expr),
        syn::Expr::MethodCall(m) if m.method == "unwrap" || m.method == "expect" => {
            Some(&*m.receiver)
        }
        _ => None,
    };
    let Some(call) = handled else { return };
    let Some((ty, lit)) = regex_new(src, call) else {
        return;
    };
    if cx.once > 0 || ::regex::Regex::new(&lit.value()).is_err() {
        return;
    }
    let wherein = if cx.loops > 0 {
        "in a loop".to_string()
    } else {
        format!(
            "on every call of `{}`",
            cx.functions.last().map_or("", String::as_str)
        )
    };
    let fix = format!(
        "{{ static COSTBENCH_REGEX: ::std::sync::LazyLock<{ty}> = ::std::sync::LazyLock::new(|| {ty}::new({}).expect(\"a valid pattern\")); &*COSTBENCH_REGEX }}",
        lit.token()
    );
    found.add(
        Idiom::RegexCompiledPerCall,
        e,
        cx,
        format!(
            "Regex {} compiled {wherein}: compiled once, in a static, on first use",
            lit.token()
        ),
        vec![src.replace(e, fix)],
    );
}

/// Every use of one name in some statements: the calls `NAME.method(arg)` and whether it is
/// used any other way.
struct Uses<'a, 'e> {
    name: &'a str,
    calls: Vec<(&'e syn::ExprMethodCall, &'e syn::Expr)>,
    other: bool,
}

impl<'e> Visit<'e> for Uses<'_, 'e> {
    fn visit_expr_method_call(&mut self, m: &'e syn::ExprMethodCall) {
        if ident(&m.receiver).as_deref() == Some(self.name) && m.args.len() == 1 {
            self.calls.push((m, &m.args[0]));
            self.visit_expr(&m.args[0]);
        } else {
            syn::visit::visit_expr_method_call(self, m);
        }
    }

    fn visit_expr_path(&mut self, p: &'e syn::ExprPath) {
        if p.path.is_ident(self.name) {
            self.other = true;
        }
    }

    fn visit_macro(&mut self, m: &'e syn::Macro) {
        // A macro's tokens are not parsed: any mention of the name there is a use we cannot see.
        if m.tokens
            .to_string()
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|t| t == self.name)
        {
            self.other = true;
        }
    }
}

/// `let re = Regex::new("abc").unwrap();` whose every later use in the block is `re.is_match(x)`
/// or `re.split(x)`.
pub(super) fn block(found: &mut Found<'_, '_>, cx: &Context, b: &syn::Block) {
    let src = found.src;
    for (i, stmt) in b.stmts.iter().enumerate() {
        let Some((_, name, init)) = binding(stmt) else {
            continue;
        };
        let Some((_, lit)) = regex_new(src, unwrapped(init)) else {
            continue;
        };
        let Some((anchor, s)) = plain(&lit.value()) else {
            continue;
        };
        let mut uses = Uses {
            name: &name,
            calls: Vec::new(),
            other: false,
        };
        for later in &b.stmts[i + 1..] {
            uses.visit_stmt(later);
        }
        if uses.other || uses.calls.is_empty() {
            continue;
        }
        let mut replacements = Vec::new();
        for (call, arg) in &uses.calls {
            match str_call(src, anchor, &s, &call.method.to_string(), arg) {
                Some(text) => replacements.push(src.replace(*call, text)),
                None => {
                    replacements.clear();
                    break;
                }
            }
        }
        if replacements.is_empty() {
            continue;
        }
        let (a, z) = src.stmt_lines(stmt);
        replacements.push(src.replace_bytes(a, z, ""));
        found.add(
            Idiom::RegexForStrMethod,
            stmt,
            cx,
            format!(
                "`{name}`, a Regex for a plain string ({}), only tested with {}: string methods do the same without an automaton",
                lit.token(),
                if anchor == Anchor::Anywhere { "contains/split" } else if anchor == Anchor::Start { "starts_with" } else { "ends_with" }
            ),
            replacements,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::{rewritten, scan, Idiom};
    use super::*;

    #[test]
    fn plain_patterns_and_their_anchors() {
        assert_eq!(plain("GET "), Some((Anchor::Anywhere, "GET ".into())));
        assert_eq!(plain("^#"), Some((Anchor::Start, "#".into())));
        assert_eq!(plain(r"\.rs$"), Some((Anchor::End, ".rs".into())));
        assert_eq!(plain("a+b"), None);
        assert_eq!(plain("^a$"), None);
        assert_eq!(plain(r"\d"), None);
        assert_eq!(plain(""), None);
    }

    #[test]
    fn a_regex_compiled_in_a_loop_becomes_a_static() {
        let text = "use regex::Regex;\npub fn count(lines: &[&str]) -> usize {\n    let mut n = 0;\n    for l in lines {\n        let re = Regex::new(r\"[0-9]+\").unwrap();\n        n += re.find_iter(l).count();\n    }\n    n\n}\n";
        let f = scan("src/lib.rs", text).unwrap();
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].idiom, Idiom::RegexCompiledPerCall);
        assert_eq!(f[0].line, 5);
        assert_eq!(f[0].function, "count");
        assert!(f[0].message.contains("in a loop"), "{}", f[0].message);
        let out = rewritten(text, &f[0]);
        assert!(out.contains("let re = { static COSTBENCH_REGEX: ::std::sync::LazyLock<Regex> = ::std::sync::LazyLock::new(|| Regex::new(r\"[0-9]+\").expect(\"a valid pattern\")); &*COSTBENCH_REGEX };"), "{out}");
        syn::parse_file(&out).unwrap();
    }

    #[test]
    fn a_regex_already_static_or_invalid_is_left_alone() {
        let text = "static RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(\"a+\").unwrap());\nfn f() { let r = ONCE.get_or_init(|| Regex::new(\"b+\").unwrap()); let bad = Regex::new(\"(\").unwrap(); }\n";
        assert!(scan("a.rs", text).unwrap().is_empty());
    }

    #[test]
    fn a_regex_for_a_prefix_becomes_starts_with() {
        let text = "fn comments(lines: &[String]) -> usize {\n    let re = Regex::new(\"^#\").unwrap();\n    lines.iter().filter(|l| re.is_match(l)).count()\n}\n";
        let f = scan("src/lib.rs", text).unwrap();
        let plain: Vec<_> = f
            .iter()
            .filter(|f| f.idiom == Idiom::RegexForStrMethod)
            .collect();
        assert_eq!(plain.len(), 1, "{f:?}");
        let out = rewritten(text, plain[0]);
        assert_eq!(
            out,
            "fn comments(lines: &[String]) -> usize {\n    lines.iter().filter(|l| l.starts_with(\"#\")).count()\n}\n"
        );
        // The same regex is also a pattern compiled on every call: a candidate of its own.
        assert!(f.iter().any(|f| f.idiom == Idiom::RegexCompiledPerCall));
    }

    #[test]
    fn a_regex_used_any_other_way_is_not_replaced_by_a_string_method() {
        let text = "fn f(s: &str) -> Option<usize> {\n    let re = Regex::new(\"ab\").unwrap();\n    if re.is_match(s) { re.find(s).map(|m| m.start()) } else { None }\n}\n";
        let f = scan("a.rs", text).unwrap();
        assert!(
            f.iter().all(|f| f.idiom != Idiom::RegexForStrMethod),
            "{f:?}"
        );
        let chain = "fn g(s: &str) -> bool { Regex::new(\"ab\").unwrap().is_match(&s[1..]) }\n";
        let f = scan("a.rs", chain).unwrap();
        let plain: Vec<_> = f
            .iter()
            .filter(|f| f.idiom == Idiom::RegexForStrMethod)
            .collect();
        assert_eq!(
            rewritten(chain, plain[0]),
            "fn g(s: &str) -> bool { (&s[1..]).contains(\"ab\") }\n"
        );
    }
}
