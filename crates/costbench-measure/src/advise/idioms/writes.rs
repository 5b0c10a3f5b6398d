//! Writes without a buffer: a `File`, `Stdout` or `TcpStream` (`UnixStream`) bound by a `let` and
//! written to inside a loop issues one system call per write. The rewrite wraps the value the
//! `let` binds in a `std::io::BufWriter`, which flushes when it is dropped; code that uses the
//! binding as anything but a writer then no longer compiles, and is reported as such.
//!
//! `println!` (and `print!`) in a loop is reported with no rewrite: standard output is locked and
//! flushed at every line break, but buffering it would reorder its lines with any other output
//! of the program.

use super::source::{binding, called_path, tail, unwrapped};
use super::{Context, Found, Idiom};
use syn::visit::Visit;

/// What `init` opens when it is an unbuffered writer: `File::create(..)`, `OpenOptions::..
/// .open(..)`, `TcpStream::connect(..)`, `UnixStream::connect(..)`, `stdout()` (and its
/// `.lock()`).
fn opens(init: &syn::Expr) -> Option<&'static str> {
    let e = unwrapped(init);
    if let Some((path, _)) = called_path(e) {
        return match tail(path) {
            (ty, f) if ty == "File" && f == "create" => Some("File"),
            (ty, f) if ty == "File" && f == "create_new" => Some("File"),
            (ty, f) if ty == "TcpStream" && f == "connect" => Some("TcpStream"),
            (ty, f) if ty == "UnixStream" && f == "connect" => Some("UnixStream"),
            (_, f) if f == "stdout" => Some("Stdout"),
            _ => None,
        };
    }
    if let syn::Expr::MethodCall(m) = e {
        if m.method == "lock" && m.args.is_empty() {
            return opens(&m.receiver).filter(|o| *o == "Stdout");
        }
        if m.method == "open" {
            let mut r = &*m.receiver;
            while let syn::Expr::MethodCall(inner) = r {
                r = &inner.receiver;
            }
            if let Some((path, _)) = called_path(r) {
                if tail(path) == ("OpenOptions".to_string(), "new".to_string()) {
                    return Some("File");
                }
            }
        }
    }
    None
}

/// Whether a macro is `write!`/`writeln!` to `name`.
fn writes_to(m: &syn::Macro, name: &str) -> bool {
    let is_write = m.path.is_ident("write") || m.path.is_ident("writeln");
    is_write
        && m.tokens
            .clone()
            .into_iter()
            .next()
            .is_some_and(|t| t.to_string() == name)
}

/// Finds a write to one name inside a loop.
struct LoopWrites<'a> {
    name: &'a str,
    loops: usize,
    hit: bool,
}

impl LoopWrites<'_> {
    fn looped(&mut self, f: impl FnOnce(&mut Self)) {
        self.loops += 1;
        f(self);
        self.loops -= 1;
    }
}

impl<'e> Visit<'e> for LoopWrites<'_> {
    fn visit_expr(&mut self, e: &'e syn::Expr) {
        match e {
            syn::Expr::ForLoop(f) => {
                self.visit_expr(&f.expr);
                self.looped(|w| w.visit_block(&f.body));
            }
            syn::Expr::While(w) => self.looped(|s| s.visit_block(&w.body)),
            syn::Expr::Loop(l) => self.looped(|w| w.visit_block(&l.body)),
            syn::Expr::MethodCall(m) => {
                let write = matches!(
                    m.method.to_string().as_str(),
                    "write_all" | "write" | "write_fmt" | "write_vectored"
                );
                if self.loops > 0
                    && write
                    && super::source::ident(&m.receiver).as_deref() == Some(self.name)
                {
                    self.hit = true;
                }
                self.visit_expr(&m.receiver);
                for a in &m.args {
                    if matches!(a, syn::Expr::Closure(_)) {
                        self.looped(|w| w.visit_expr(a));
                    } else {
                        self.visit_expr(a);
                    }
                }
            }
            _ => syn::visit::visit_expr(self, e),
        }
    }

    fn visit_macro(&mut self, m: &'e syn::Macro) {
        if self.loops > 0 && writes_to(m, self.name) {
            self.hit = true;
        }
    }
}

/// `let mut out = File::create(..)?;` followed, in the same block, by a loop writing to `out`.
pub(super) fn block(found: &mut Found<'_, '_>, cx: &Context, b: &syn::Block) {
    let src = found.src;
    for (i, stmt) in b.stmts.iter().enumerate() {
        let Some((_, name, init)) = binding(stmt) else {
            continue;
        };
        let Some(what) = opens(init) else {
            continue;
        };
        let mut w = LoopWrites {
            name: &name,
            loops: 0,
            hit: false,
        };
        for later in &b.stmts[i + 1..] {
            w.visit_stmt(later);
        }
        if !w.hit {
            continue;
        }
        let fix = format!("::std::io::BufWriter::new({})", src.text_of(init));
        found.add(
            Idiom::UnbufferedWrites,
            stmt,
            cx,
            format!(
                "`{name}` ({what}) is written to in a loop without a buffer, one system call per \
                 write: wrapped in a BufWriter (flushed when dropped)"
            ),
            vec![src.replace(init, fix)],
        );
    }
}

/// `println!`/`print!` in a loop: reported, not rewritten.
pub(super) fn mac(found: &mut Found<'_, '_>, cx: &Context, m: &syn::Macro) {
    if cx.loops == 0 || !(m.path.is_ident("println") || m.path.is_ident("print")) {
        return;
    }
    found.add(
        Idiom::PrintInLoop,
        m,
        cx,
        "println! in a loop: standard output is locked and flushed at every line; no rewrite is \
         offered (a BufWriter over stdout().lock() around the loop would reorder these lines \
         with any other output)"
            .to_string(),
        Vec::new(),
    );
}

#[cfg(test)]
mod tests {
    use super::super::{rewritten, scan, Idiom};

    #[test]
    fn a_file_written_in_a_loop_gets_a_bufwriter() {
        let text = "pub fn save(path: &Path, rows: &[u64]) -> io::Result<()> {\n    let mut out = File::create(path)?;\n    for r in rows {\n        writeln!(out, \"{r}\")?;\n    }\n    Ok(())\n}\n";
        let f = scan("src/lib.rs", text).unwrap();
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].idiom, Idiom::UnbufferedWrites);
        assert_eq!(f[0].line, 2);
        assert!(rewritten(text, &f[0])
            .contains("let mut out = ::std::io::BufWriter::new(File::create(path)?);"));
    }

    #[test]
    fn write_all_on_a_stream_and_stdout_lock_are_found_a_single_write_is_not() {
        let text = "fn f(b: &[&[u8]]) {\n    let mut s = TcpStream::connect(\"x\").unwrap();\n    b.iter().for_each(|x| s.write_all(x).unwrap());\n    let mut o = io::stdout().lock();\n    loop { o.write_all(b\"y\").unwrap(); }\n}\nfn g() -> io::Result<()> { let mut f = File::create(\"a\")?; f.write_all(b\"once\") }\n";
        let f = scan("a.rs", text).unwrap();
        let lines: Vec<u32> = f.iter().map(|f| f.line).collect();
        assert_eq!(lines, [2, 4], "{f:?}");
    }

    #[test]
    fn println_in_a_loop_is_reported_without_a_rewrite() {
        let text = "fn f(v: &[u8]) { for x in v { println!(\"{x}\"); } println!(\"done\"); }\n";
        let f = scan("a.rs", text).unwrap();
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].idiom, Idiom::PrintInLoop);
        assert!(f[0].replacements.is_empty());
    }
}
