//! The static census of a binary as `costbench census` prints it (the document `CensusView`): a
//! table or versioned JSON. Pure functions of their inputs.

use costbench_record::instrument::census::classify::Kind;
use costbench_record::instrument::census::{Frame, Guard, StaticCensus, SCHEMA, SCHEMA_VERSION};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A path as people want to read it: relative to `base` when under it, std's sources as
/// `library/...` instead of `/rustc/HASH/library/...`.
pub fn short_path(path: &str, base: Option<&std::path::Path>) -> String {
    if let Some(rest) = path
        .strip_prefix("/rustc/")
        .and_then(|r| r.split_once('/'))
        .map(|(_, rest)| rest)
    {
        return rest.to_string();
    }
    if let Some(base) = base {
        if let Ok(rel) = std::path::Path::new(path).strip_prefix(base) {
            return rel.display().to_string();
        }
    }
    path.to_string()
}

/// `function at file:line` (parts the debug info lacks are left out).
pub fn frame_text(f: &Frame) -> String {
    let loc = match (&f.file, f.line) {
        (Some(file), Some(line)) => format!("{file}:{line}"),
        (Some(file), None) => file.clone(),
        _ => "?".into(),
    };
    match &f.function {
        Some(func) => format!("{func} at {loc}"),
        None => loc,
    }
}

fn location(g: &Guard, base: Option<&std::path::Path>) -> String {
    match (&g.file, g.line) {
        (Some(f), Some(l)) => format!("{}:{l}", short_path(f, base)),
        (Some(f), None) => short_path(f, base),
        _ => "?".into(),
    }
}

/// Guard counts per kind, in report order.
fn kind_counts<'a>(guards: impl Iterator<Item = &'a Guard>) -> BTreeMap<Kind, usize> {
    let mut m = BTreeMap::new();
    for g in guards {
        *m.entry(g.kind).or_insert(0) += 1;
    }
    m
}

fn kinds_text(m: &BTreeMap<Kind, usize>) -> String {
    m.iter()
        .map(|(k, n)| format!("{n} {}", k.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Guards grouped by function, functions by most guards first (ties by name).
fn by_function<'a>(guards: &[&'a Guard]) -> Vec<(String, Vec<&'a Guard>)> {
    let mut m: BTreeMap<&str, Vec<&Guard>> = BTreeMap::new();
    for g in guards {
        m.entry(g.function.as_str()).or_default().push(g);
    }
    let mut v: Vec<(String, Vec<&Guard>)> =
        m.into_iter().map(|(f, g)| (f.to_string(), g)).collect();
    v.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    v
}

/// The static census as a table: totals per kind and per crate, then every function with its
/// guards (source line and inline chain). `base` shortens paths under it; `scope`, when the
/// guards are not all of the binary's, says which are shown (the second line).
pub fn table(
    c: &StaticCensus,
    guards: &[&Guard],
    base: Option<&std::path::Path>,
    scope: Option<&str>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "census of {}: {} guards (checks that survived optimisation) in {} of {} functions",
        c.binary.display(),
        guards.len(),
        by_function(guards).len(),
        c.functions_scanned
    );
    if let Some(scope) = scope {
        let _ = writeln!(out, "{scope}");
    }
    let _ = writeln!(out, "\nper kind");
    for (k, n) in kind_counts(guards.iter().copied()) {
        let _ = writeln!(out, "  {:>7}  {}", n, k.as_str());
    }
    let mut crates: BTreeMap<&str, Vec<&Guard>> = BTreeMap::new();
    for g in guards {
        crates.entry(g.krate.as_str()).or_default().push(g);
    }
    let mut crates: Vec<_> = crates.into_iter().collect();
    crates.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    let _ = writeln!(out, "\nper crate");
    for (name, gs) in &crates {
        let _ = writeln!(
            out,
            "  {:>7}  {name}  ({})",
            gs.len(),
            kinds_text(&kind_counts(gs.iter().copied()))
        );
    }
    let _ = writeln!(out, "\nper function");
    for (f, gs) in by_function(guards) {
        let _ = writeln!(
            out,
            "  {:>7}  {f}  ({})",
            gs.len(),
            kinds_text(&kind_counts(gs.iter().copied()))
        );
        for g in gs {
            let chain: Vec<String> = g
                .inline_chain
                .iter()
                .skip(1)
                .map(|fr| {
                    let mut fr = fr.clone();
                    fr.file = fr.file.map(|p| short_path(p.as_str(), base));
                    frame_text(&fr)
                })
                .collect();
            let inlined = match g.inline_chain.first().and_then(|f| f.function.as_ref()) {
                Some(inner) if g.inline_chain.len() > 1 => {
                    format!("  in {inner}, inlined into {}", chain.join(" <- "))
                }
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "           {:#x}  {:<12}  {}{inlined}",
                g.address,
                g.kind.as_str(),
                location(g, base)
            );
        }
    }
    out
}

/// The static census as versioned JSON: totals, per crate, per function, one record per guard.
pub fn json(c: &StaticCensus, guards: &[&Guard]) -> Value {
    let counts = |gs: &[&Guard]| -> Value {
        let m = kind_counts(gs.iter().copied());
        Value::Object(
            m.into_iter()
                .map(|(k, n)| (k.as_str().to_string(), json!(n)))
                .collect(),
        )
    };
    let mut crates: BTreeMap<&str, Vec<&Guard>> = BTreeMap::new();
    for g in guards {
        crates.entry(g.krate.as_str()).or_default().push(g);
    }
    let functions: Vec<Value> = by_function(guards)
        .iter()
        .map(|(f, gs)| {
            json!({
                "function": f,
                "crate": gs[0].krate,
                "guards": gs.len(),
                "by_kind": counts(gs),
            })
        })
        .collect();
    json!({
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "binary": c.binary.display().to_string(),
        "arch": "x86_64",
        "functions_scanned": c.functions_scanned,
        "totals": { "guards": guards.len(), "by_kind": counts(guards) },
        "crates": crates.iter().map(|(name, gs)| json!({
            "crate": name, "guards": gs.len(), "by_kind": counts(gs),
        })).collect::<Vec<_>>(),
        "functions": functions,
        "guards": guards,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_shortened() {
        assert_eq!(
            short_path("/rustc/abc123/library/core/src/slice/index.rs", None),
            "library/core/src/slice/index.rs"
        );
        let base = std::path::Path::new("/w/repo");
        assert_eq!(short_path("/w/repo/src/a.rs", Some(base)), "src/a.rs");
        assert_eq!(short_path("/elsewhere/a.rs", Some(base)), "/elsewhere/a.rs");
    }
}
