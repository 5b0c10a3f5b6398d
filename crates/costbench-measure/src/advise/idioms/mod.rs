//! The classic slow idioms no linter flags, found in the user's sources and, where the rewrite is
//! mechanical, rewritten (issue 39). Each idiom is one module of the same shape, a function that
//! reads one parsed file and returns its findings:
//!
//! - `regex`: a `Regex` compiled from a constant pattern on every call (in a loop, or in a
//!   function called per op) becomes a `static` compiled once; a `Regex` whose pattern is a plain
//!   string, used for `is_match` or `split`, becomes `str::contains`, `starts_with`, `ends_with`
//!   or `split`;
//! - `writes`: a `File`, `Stdout` or `TcpStream` written to inside a loop without a `BufWriter`
//!   gets one; `println!` in a loop is reported, never rewritten (buffering it would reorder its
//!   lines with any other output);
//! - `capacity`: a `Vec` filled by one `push` per iteration of a loop whose length is known gets
//!   that capacity;
//! - `hasher`: a file's `HashMap`s and `HashSet`s with the default hasher get FxHash
//!   (`rustc-hash`), with the dependency added;
//! - `collect`: a `Vec` collected only to be iterated once, by the loop right after it, becomes
//!   the iterator itself.
//!
//! A finding carries its replacements (byte ranges of the file, as a compiler suggestion does);
//! one with none is reported with no claimed saving. Whether a rewrite compiles, passes the
//! crate's tests and saves anything is the measuring's to find out, never assumed here. Pure:
//! text in, findings out; reading the package's files is [`scan_package`]'s only effect.

mod capacity;
mod collect;
mod hasher;
mod regex;
pub mod source;
mod writes;

use super::edit::Replacement;
use anyhow::{Context as _, Result};
use source::Source;
use std::path::Path;
use syn::visit::Visit;

/// The idioms looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Idiom {
    /// A `Regex` compiled from a constant pattern each time the code runs.
    RegexCompiledPerCall,
    /// A `Regex` whose pattern is a plain string, where a string method does the same.
    RegexForStrMethod,
    /// Writes to a `File`, `Stdout` or `TcpStream` in a loop, without a `BufWriter`.
    UnbufferedWrites,
    /// `println!` in a loop: one locked, line-flushed write per line.
    PrintInLoop,
    /// A `Vec` grown by `push` in a loop whose length is known beforehand.
    VecWithoutCapacity,
    /// `HashMap`/`HashSet` with the default (SipHash) hasher.
    DefaultHasher,
    /// A `Vec` collected only to be iterated once.
    CollectThenIterate,
}

impl Idiom {
    /// The idiom's name, as reports and `--format json` give it (`idiom::NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Idiom::RegexCompiledPerCall => "regex_compiled_per_call",
            Idiom::RegexForStrMethod => "regex_for_str_method",
            Idiom::UnbufferedWrites => "unbuffered_writes",
            Idiom::PrintInLoop => "print_in_loop",
            Idiom::VecWithoutCapacity => "vec_without_capacity",
            Idiom::DefaultHasher => "default_hasher",
            Idiom::CollectThenIterate => "collect_then_iterate",
        }
    }
}

/// A crate the rewrite needs that the package may not depend on yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dependency {
    /// The crate's name on crates.io.
    pub name: &'static str,
    /// The version requirement added.
    pub version: &'static str,
}

/// One idiom found at one place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Which idiom.
    pub idiom: Idiom,
    /// What was found and what the rewrite does, in a sentence.
    pub message: String,
    /// The file, relative to the workspace root.
    pub file: String,
    /// The line (1-based).
    pub line: u32,
    /// The function it is in (`parse` or `Parser::parse`), to find its share of a scenario's
    /// cost in a call tree; empty outside a function.
    pub function: String,
    /// The rewrite; empty where none can be made safely.
    pub replacements: Vec<Replacement>,
    /// A crate the rewrite adds to the package's `[dependencies]`.
    pub dependency: Option<Dependency>,
}

/// Where a finding is in the code being walked: a loop around it, a lazily initialised value
/// around it, the function it is in.
#[derive(Debug, Default, Clone)]
pub(crate) struct Context {
    /// Loops (and closures handed to a method, such as `for_each` or `map`) around the node.
    pub loops: usize,
    /// Inside a `LazyLock::new`, `OnceLock::get_or_init`, a `static` or a `const`: run once.
    pub once: usize,
    /// The functions around the node, innermost last.
    pub functions: Vec<String>,
}

impl Context {
    fn function(&self) -> String {
        self.functions.last().cloned().unwrap_or_default()
    }
}

/// What each idiom's module is handed: the file, and a place to put its findings.
pub(crate) struct Found<'s, 'a> {
    pub src: &'s Source<'a>,
    pub findings: Vec<Finding>,
}

impl Found<'_, '_> {
    /// Records a finding at `node`.
    pub fn add(
        &mut self,
        idiom: Idiom,
        at: &impl syn::spanned::Spanned,
        cx: &Context,
        message: String,
        replacements: Vec<Replacement>,
    ) {
        self.findings.push(Finding {
            idiom,
            message,
            file: self.src.file.to_string(),
            line: self.src.line(at),
            function: cx.function(),
            replacements,
            dependency: None,
        });
    }
}

/// Walks one file, keeping the [`Context`], and hands every block and expression to the idioms.
struct Walker<'s, 'a> {
    found: Found<'s, 'a>,
    cx: Context,
}

/// Whether `attrs` mark test code (`#[test]`, `#[cfg(test)]`): no scenario runs it, and its
/// idioms are no one's cost.
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("test")
            || (a.path().is_ident("cfg")
                && a.meta.require_list().is_ok_and(|l| {
                    l.tokens
                        .to_string()
                        .split(|c: char| !c.is_alphanumeric())
                        .any(|w| w == "test")
                }))
    })
}

impl<'ast> Visit<'ast> for Walker<'_, '_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !test_only(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if test_only(&f.attrs) {
            return;
        }
        self.cx.functions.push(f.sig.ident.to_string());
        syn::visit::visit_item_fn(self, f);
        self.cx.functions.pop();
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let ty = match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        for item in &i.items {
            if let syn::ImplItem::Fn(f) = item {
                let name = match &ty {
                    Some(t) => format!("{t}::{}", f.sig.ident),
                    None => f.sig.ident.to_string(),
                };
                self.cx.functions.push(name);
                self.visit_block(&f.block);
                self.cx.functions.pop();
            } else {
                self.visit_impl_item(item);
            }
        }
    }

    fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
        self.cx.once += 1;
        syn::visit::visit_item_static(self, s);
        self.cx.once -= 1;
    }

    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        self.cx.once += 1;
        syn::visit::visit_item_const(self, c);
        self.cx.once -= 1;
    }

    fn visit_block(&mut self, b: &'ast syn::Block) {
        if !self.cx.functions.is_empty() {
            let cx = self.cx.clone();
            capacity::block(&mut self.found, &cx, b);
            collect::block(&mut self.found, &cx, b);
            regex::block(&mut self.found, &cx, b);
            writes::block(&mut self.found, &cx, b);
        }
        syn::visit::visit_block(self, b);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if !self.cx.functions.is_empty() {
            let cx = self.cx.clone();
            writes::mac(&mut self.found, &cx, m);
        }
        syn::visit::visit_macro(self, m);
    }

    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        if !self.cx.functions.is_empty() {
            let cx = self.cx.clone();
            regex::expr(&mut self.found, &cx, e);
        }
        match e {
            syn::Expr::ForLoop(f) => {
                self.visit_expr(&f.expr);
                self.looped(|w| w.visit_block(&f.body));
            }
            syn::Expr::While(w) => self.looped(|s| {
                s.visit_expr(&w.cond);
                s.visit_block(&w.body);
            }),
            syn::Expr::Loop(l) => self.looped(|w| w.visit_block(&l.body)),
            syn::Expr::MethodCall(m) => {
                self.visit_expr(&m.receiver);
                let once = m.method == "get_or_init" || m.method == "get_or_try_init";
                for a in &m.args {
                    match a {
                        syn::Expr::Closure(_) if once => self.once(|w| w.visit_expr(a)),
                        // A closure handed to a method (`for_each`, `map`, `filter`) runs per
                        // item, as a loop's body does.
                        syn::Expr::Closure(_) => self.looped(|w| w.visit_expr(a)),
                        _ => self.visit_expr(a),
                    }
                }
            }
            syn::Expr::Call(c) => {
                let lazy = match &*c.func {
                    syn::Expr::Path(p) => {
                        let (ty, f) = source::tail(&p.path);
                        f == "new" && matches!(ty.as_str(), "LazyLock" | "Lazy" | "LazyCell")
                    }
                    _ => false,
                };
                if lazy {
                    self.once(|w| syn::visit::visit_expr_call(w, c));
                } else {
                    syn::visit::visit_expr_call(self, c);
                }
            }
            _ => syn::visit::visit_expr(self, e),
        }
    }
}

impl Walker<'_, '_> {
    fn looped(&mut self, f: impl FnOnce(&mut Self)) {
        self.cx.loops += 1;
        f(self);
        self.cx.loops -= 1;
    }

    fn once(&mut self, f: impl FnOnce(&mut Self)) {
        self.cx.once += 1;
        f(self);
        self.cx.once -= 1;
    }
}

/// The idioms in one file's `text` (`file` relative to the workspace root). A file `syn` cannot
/// parse is an error naming it.
pub fn scan(file: &str, text: &str) -> Result<Vec<Finding>> {
    let parsed = syn::parse_file(text).with_context(|| format!("cannot parse {file}"))?;
    let src = Source::new(file, text);
    let mut walker = Walker {
        found: Found {
            src: &src,
            findings: Vec::new(),
        },
        cx: Context::default(),
    };
    walker.visit_file(&parsed);
    let mut findings = walker.found.findings;
    findings.extend(hasher::file(&src, &parsed));
    findings.sort_by_key(|f| f.line);
    Ok(findings)
}

/// The idioms in the package's library and binary sources (every `.rs` file under `src/` of the
/// package directory `package_dir`, relative to the workspace root `root`), with each
/// [`Dependency`] a rewrite needs added to the package's `Cargo.toml` as one more replacement.
/// Files that cannot be parsed are skipped and named in the second list.
pub fn scan_package(root: &Path, package_dir: &str) -> Result<(Vec<Finding>, Vec<String>)> {
    let src_dir = root.join(package_dir).join("src");
    let mut files = Vec::new();
    rust_files(&src_dir, &mut files)?;
    files.sort();
    let mut findings = Vec::new();
    let mut skipped = Vec::new();
    for path in files {
        let rel = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        match scan(&rel, &text) {
            Ok(f) => findings.extend(f),
            Err(e) => skipped.push(format!("{e:#}")),
        }
    }
    let manifest_rel = if package_dir.is_empty() {
        "Cargo.toml".to_string()
    } else {
        format!("{package_dir}/Cargo.toml")
    };
    let manifest_path = root.join(&manifest_rel);
    for f in &mut findings {
        if let Some(dep) = f.dependency {
            let manifest = std::fs::read_to_string(&manifest_path)
                .with_context(|| format!("cannot read {}", manifest_path.display()))?;
            if let Some(r) = add_dependency(&manifest_rel, &manifest, dep) {
                f.replacements.push(r);
            }
        }
    }
    Ok((findings, skipped))
}

/// The replacement that adds `dep` to the `[dependencies]` of `manifest` (the text of the file
/// `file`), or `None` when the table already names it.
pub fn add_dependency(file: &str, manifest: &str, dep: Dependency) -> Option<Replacement> {
    let line = format!("{} = \"{}\"\n", dep.name, dep.version);
    let mut at = None;
    let mut offset = 0;
    let mut in_deps = false;
    for l in manifest.split_inclusive('\n') {
        let t = l.trim();
        if t.starts_with('[') {
            in_deps = t == "[dependencies]";
            if in_deps {
                at = Some(offset + l.len());
            }
        } else if in_deps && t.split(['=', '.', ' ']).next() == Some(dep.name) {
            return None;
        }
        offset += l.len();
    }
    let (start, text) = match at {
        Some(a) => (a, line),
        None => {
            let sep = if manifest.ends_with('\n') { "" } else { "\n" };
            (manifest.len(), format!("{sep}\n[dependencies]\n{line}"))
        }
    };
    Some(Replacement {
        file: file.to_string(),
        start,
        end: start,
        text,
    })
}

/// The innermost function of `text` around 1-based `line`: its name (`parse`, `Parser::parse`)
/// and its first and last lines. `None` outside any function, or where `text` does not parse.
pub fn enclosing(text: &str, line: u32) -> Option<(String, u32, u32)> {
    struct Find {
        line: usize,
        ty: Option<String>,
        best: Option<(String, u32, u32)>,
    }
    impl Find {
        fn consider(&mut self, name: String, span: proc_macro2::Span) {
            let (a, b) = (span.start().line, span.end().line);
            if (a..=b).contains(&self.line) {
                let narrower = self
                    .best
                    .as_ref()
                    .is_none_or(|(_, x, y)| (b - a) as u32 <= y - x);
                if narrower {
                    let to = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
                    self.best = Some((name, to(a), to(b)));
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Find {
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            use syn::spanned::Spanned;
            self.consider(f.sig.ident.to_string(), f.span());
            syn::visit::visit_item_fn(self, f);
        }
        fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
            let outer = self.ty.take();
            self.ty = match &*i.self_ty {
                syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                _ => None,
            };
            syn::visit::visit_item_impl(self, i);
            self.ty = outer;
        }
        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            use syn::spanned::Spanned;
            let name = match &self.ty {
                Some(t) => format!("{t}::{}", f.sig.ident),
                None => f.sig.ident.to_string(),
            };
            self.consider(name, f.span());
            syn::visit::visit_impl_item_fn(self, f);
        }
    }
    let file = syn::parse_file(text).ok()?;
    let mut find = Find {
        line: line as usize,
        ty: None,
        best: None,
    };
    find.visit_file(&file);
    find.best
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", dir.display())),
    };
    for entry in entries {
        let path = entry
            .with_context(|| format!("cannot read {}", dir.display()))?
            .path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// `text` with `finding`'s replacements applied (tests only).
#[cfg(test)]
pub(crate) fn rewritten(text: &str, finding: &Finding) -> String {
    let mine: Vec<&Replacement> = finding.replacements.iter().collect();
    super::edit::apply(text, &mine).expect("replacements fit")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_code_is_not_looked_at() {
        let text = "#[cfg(test)]\nmod tests {\n    fn f() { let r = Regex::new(\"a+\").unwrap(); }\n}\n#[test]\nfn g() { let r = Regex::new(\"b+\").unwrap(); }\n#[cfg(all(test, unix))]\nmod more { fn h() { let r = Regex::new(\"c+\").unwrap(); } }\nfn kept() { let r = Regex::new(\"d+\").unwrap(); }\n";
        let f = scan("a.rs", text).unwrap();
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].function, "kept");
    }

    #[test]
    fn the_enclosing_function_is_the_innermost() {
        let text =
            "fn a() {\n    1;\n}\nimpl S {\n    fn b(&self) {\n        fn c() {}\n    }\n}\n";
        assert_eq!(enclosing(text, 2), Some(("a".into(), 1, 3)));
        assert_eq!(enclosing(text, 5), Some(("S::b".into(), 5, 7)));
        assert_eq!(enclosing(text, 6), Some(("c".into(), 6, 6)));
        assert_eq!(enclosing(text, 4), None);
    }

    #[test]
    fn a_dependency_goes_into_the_dependencies_table_once() {
        let dep = Dependency {
            name: "rustc-hash",
            version: "2",
        };
        let m = "[package]\nname = \"x\"\n\n[dependencies]\nregex = \"1\"\n";
        let r = add_dependency("Cargo.toml", m, dep).unwrap();
        let out = super::super::edit::apply(m, &[&r]).unwrap();
        assert_eq!(
            out,
            "[package]\nname = \"x\"\n\n[dependencies]\nrustc-hash = \"2\"\nregex = \"1\"\n"
        );
        assert_eq!(add_dependency("Cargo.toml", &out, dep), None);
        let bare = "[package]\nname = \"x\"";
        let r = add_dependency("Cargo.toml", bare, dep).unwrap();
        assert!(super::super::edit::apply(bare, &[&r])
            .unwrap()
            .ends_with("name = \"x\"\n\n[dependencies]\nrustc-hash = \"2\"\n"));
    }
}
