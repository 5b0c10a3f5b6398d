//! `HashMap` and `HashSet` with the default hasher. std's hasher (SipHash-1-3 with a random key)
//! resists hash flooding, and costs tens of instructions per short key; FxHash (`rustc-hash`,
//! the hasher of the Rust compiler) costs a few. Per file: where `HashMap`/`HashSet` are imported
//! from `std::collections` and built with `new`, `with_capacity` or `from`, the import is
//! replaced by a type alias with `rustc_hash::FxBuildHasher`, the constructors by their
//! hasher-generic forms, and `rustc-hash` is added to the package's dependencies. The finding says
//! what the rewrite gives up: keep SipHash where keys come from an attacker.

use super::source::{tail, Source};
use super::{Dependency, Finding, Idiom};
use syn::visit::Visit;

/// The crate the rewrite adds.
pub const RUSTC_HASH: Dependency = Dependency {
    name: "rustc-hash",
    version: "2",
};

/// The two types and their aliases with FxHash.
const TYPES: &[(&str, &str)] = &[
    (
        "HashMap",
        "type HashMap<K, V> = ::std::collections::HashMap<K, V, ::rustc_hash::FxBuildHasher>;",
    ),
    (
        "HashSet",
        "type HashSet<T> = ::std::collections::HashSet<T, ::rustc_hash::FxBuildHasher>;",
    ),
];

/// `use std::collections::{.., HashMap, ..};`: the leaves naming one of [`TYPES`] (not renamed),
/// with the `use` item they are in.
fn imported(file: &syn::File) -> Vec<(&syn::ItemUse, &syn::Ident)> {
    fn leaves<'a>(tree: &'a syn::UseTree, path: &mut Vec<String>, out: &mut Vec<&'a syn::Ident>) {
        match tree {
            syn::UseTree::Path(p) => {
                path.push(p.ident.to_string());
                leaves(&p.tree, path, out);
                path.pop();
            }
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| leaves(t, path, out)),
            syn::UseTree::Name(n) => {
                let std = path.len() == 2 && path[0] == "std" && path[1] == "collections";
                if std && TYPES.iter().any(|(t, _)| n.ident == t) {
                    out.push(&n.ident);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for item in &file.items {
        if let syn::Item::Use(u) = item {
            let mut found = Vec::new();
            leaves(&u.tree, &mut Vec::new(), &mut found);
            out.extend(found.into_iter().map(|i| (u, i)));
        }
    }
    out
}

/// The constructors of `ty` called in the file: the ident of `new`, `with_capacity` or `from`
/// in `TY::new()`, with the call's arguments.
struct Constructors<'a, 'e> {
    types: &'a [String],
    calls: Vec<(&'e syn::Ident, &'e syn::ExprCall)>,
    /// A path naming a type with three parameters or a method that needs RandomState.
    unsupported: bool,
}

impl<'e> Visit<'e> for Constructors<'_, 'e> {
    fn visit_item_mod(&mut self, m: &'e syn::ItemMod) {
        if !super::test_only(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_item_fn(&mut self, f: &'e syn::ItemFn) {
        if !super::test_only(&f.attrs) {
            syn::visit::visit_item_fn(self, f);
        }
    }

    fn visit_expr_call(&mut self, c: &'e syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func {
            let (ty, f) = tail(&p.path);
            if self.types.contains(&ty) && p.path.segments.len() == 2 {
                match f.as_str() {
                    "new" | "with_capacity" | "from" => {
                        let ident = &p.path.segments[1].ident;
                        self.calls.push((ident, c));
                    }
                    "with_hasher" | "with_capacity_and_hasher" => self.unsupported = true,
                    _ => {}
                }
            }
        }
        syn::visit::visit_expr_call(self, c);
    }
}

/// The finding of one file, if it builds a `HashMap` or `HashSet` with the default hasher.
pub(super) fn file(src: &Source<'_>, parsed: &syn::File) -> Vec<Finding> {
    let imports = imported(parsed);
    if imports.is_empty() {
        return Vec::new();
    }
    let types: Vec<String> = imports.iter().map(|(_, i)| i.to_string()).collect();
    let mut ctors = Constructors {
        types: &types,
        calls: Vec::new(),
        unsupported: false,
    };
    ctors.visit_file(parsed);
    if ctors.calls.is_empty() || ctors.unsupported {
        return Vec::new();
    }
    let mut replacements = Vec::new();
    for (u, ident) in &imports {
        replacements.push(src.replace(*ident, format!("{ident} as _")));
        let alias = TYPES
            .iter()
            .find(|(t, _)| *ident == t)
            .map(|(_, a)| *a)
            .expect("imported() keeps only TYPES");
        let (_, end) = src.range(*u);
        replacements.push(src.replace_bytes(end, end, format!("\n{alias}")));
    }
    for (ident, call) in &ctors.calls {
        let with = match ident.to_string().as_str() {
            "new" => "default".to_string(),
            "with_capacity" => "with_capacity_and_hasher".to_string(),
            _ => "from_iter".to_string(),
        };
        replacements.push(src.replace(*ident, with));
        if *ident == "with_capacity" {
            let (_, end) = src.range(*call);
            // Before the closing parenthesis: `with_capacity_and_hasher(n, Default::default())`.
            replacements.push(src.replace_bytes(
                end - 1,
                end - 1,
                ", ::core::default::Default::default()",
            ));
        }
    }
    let first = ctors.calls[0].1;
    vec![Finding {
        idiom: Idiom::DefaultHasher,
        message: format!(
            "{} built with the default hasher (SipHash-1-3, {} construction{} in this file): \
             FxHash (rustc-hash) in its place; keep SipHash where keys come from an attacker",
            types.join(" and "),
            ctors.calls.len(),
            if ctors.calls.len() == 1 { "" } else { "s" }
        ),
        file: src.file.to_string(),
        line: src.line(first),
        function: String::new(),
        replacements,
        dependency: Some(RUSTC_HASH),
    }]
}

#[cfg(test)]
mod tests {
    use super::super::{rewritten, scan, Idiom};

    #[test]
    fn the_default_hasher_becomes_fxhash_in_the_whole_file() {
        let text = "use std::collections::{BTreeMap, HashMap};\n\npub fn count(words: &[&str]) -> HashMap<String, usize> {\n    let mut m = HashMap::new();\n    let _n: HashMap<u8, u8> = HashMap::with_capacity(words.len());\n    for w in words { *m.entry(w.to_string()).or_insert(0) += 1; }\n    m\n}\n";
        let f = scan("src/lib.rs", text).unwrap();
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].idiom, Idiom::DefaultHasher);
        assert_eq!(f[0].dependency.map(|d| d.name), Some("rustc-hash"));
        let out = rewritten(text, &f[0]);
        assert_eq!(
            out,
            "use std::collections::{BTreeMap, HashMap as _};\ntype HashMap<K, V> = ::std::collections::HashMap<K, V, ::rustc_hash::FxBuildHasher>;\n\npub fn count(words: &[&str]) -> HashMap<String, usize> {\n    let mut m = HashMap::default();\n    let _n: HashMap<u8, u8> = HashMap::with_capacity_and_hasher(words.len(), ::core::default::Default::default());\n    for w in words { *m.entry(w.to_string()).or_insert(0) += 1; }\n    m\n}\n"
        );
    }

    #[test]
    fn a_file_that_never_builds_one_or_picks_its_hasher_is_left_alone() {
        assert!(scan(
            "a.rs",
            "use std::collections::HashMap;\nfn f(m: &HashMap<u8, u8>) -> usize { m.len() }\n"
        )
        .unwrap()
        .is_empty());
        assert!(scan("a.rs", "use std::collections::HashMap;\nfn f() { let m: HashMap<u8, u8, S> = HashMap::with_hasher(S); }\n").unwrap().is_empty());
    }
}
