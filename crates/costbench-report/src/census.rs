//! Printing the census: the static census as a table or versioned JSON, and the dynamic census
//! lines under `costbench run`'s table. Pure functions of their inputs.

use costbench_record::census::classify::Kind;
use costbench_record::census::{Frame, Guard, StaticCensus, SCHEMA, SCHEMA_VERSION};
use costbench_record::fmt::fmt_ir_exact_zero;
use costbench_record::model::{Census, RunRecord};
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

/// One line per measured id with a census: "N bounds checks per op at M sites, K overflow
/// checks per op", other kinds when present, and the top sites with their source lines.
pub fn dynamic_summary(run: &RunRecord, base: Option<&std::path::Path>) -> String {
    let mut out = String::new();
    let with: Vec<_> = run
        .results
        .iter()
        .filter_map(|r| r.census.as_ref().map(|c| (r, c)))
        .collect();
    if with.is_empty() {
        return out;
    }
    let _ = writeln!(out, "\nchecks executed per op (census):");
    for (r, c) in with {
        let _ = writeln!(out, "  {}: {}", r.id, census_sentence(c, &r.unit));
        for s in c.top_sites.iter().take(3) {
            let at = |file: &Option<String>, line: Option<u32>| match (file, line) {
                (Some(f), Some(l)) => format!("{}:{l}", short_path(f, base)),
                (Some(f), None) => short_path(f, base),
                _ => "?".into(),
            };
            // A check inlined from elsewhere (std's slicing code, a helper) also names the
            // line in the function it ended up in.
            let via = match s.inline_chain.last() {
                Some(outer) if s.inline_chain.len() > 1 => {
                    format!(" via {}", at(&outer.file, outer.line))
                }
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "      {:>10}/op  {:<12} {}{via}  ({})",
                fmt_ir_exact_zero(s.per_op),
                s.kind,
                at(&s.file, s.line),
                s.function
            );
        }
    }
    out
}

/// "2.000 bounds checks per op at 1 site, 0 overflow checks per op (+ 1.000 unwrap)".
pub fn census_sentence(c: &Census, unit: &str) -> String {
    let (bounds, bsites) =
        c.per_op_where(|k| matches!(k, "slice-index" | "slice-range" | "str-boundary"));
    let (ovf, osites) = c.per_op_where(|k| k == "overflow");
    let plural = |n: usize| if n == 1 { "site" } else { "sites" };
    let mut s = format!(
        "{} bounds checks per op at {bsites} {}, {} overflow checks per op",
        fmt_ir_exact_zero(bounds),
        plural(bsites),
        fmt_ir_exact_zero(ovf)
    );
    if osites > 0 {
        let _ = write!(s, " at {osites} {}", plural(osites));
    }
    let others: Vec<String> = c
        .by_kind
        .iter()
        .filter(|k| {
            k.checks > 0
                && !matches!(
                    k.kind.as_str(),
                    "slice-index" | "slice-range" | "str-boundary" | "overflow"
                )
        })
        .map(|k| format!("{} {}", fmt_ir_exact_zero(k.checks_per_op), k.kind))
        .collect();
    if !others.is_empty() {
        let _ = write!(s, "; also per op: {}", others.join(", "));
    }
    let _ = write!(s, " (op = {unit})");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_record::model::{CensusKind, CensusSite};

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

    #[test]
    fn sentence_names_bounds_overflow_and_the_rest() {
        let kind = |k: &str, checks: u64, sites: usize| CensusKind {
            kind: k.into(),
            checks,
            checks_per_op: checks as f64 / 10.0,
            sites,
        };
        let c = Census {
            checks: 45,
            checks_per_op: 4.5,
            sites: 4,
            by_kind: vec![
                kind("slice-index", 20, 1),
                kind("slice-range", 10, 2),
                kind("overflow", 0, 0),
                kind("unwrap", 15, 1),
            ],
            top_sites: vec![CensusSite {
                address: "0x1".into(),
                kind: "slice-index".into(),
                function: "f".into(),
                file: None,
                line: None,
                inline_chain: vec![],
                executions: 20,
                per_op: 2.0,
            }],
        };
        assert_eq!(
            census_sentence(&c, "lookups"),
            "3.000 bounds checks per op at 3 sites, 0 overflow checks per op; also per op: 1.500 unwrap (op = lookups)"
        );
    }

    #[test]
    fn dynamic_summary_snapshot() {
        use costbench_record::testing::{assert_snapshot, every_figure};
        assert_snapshot!(
            "census_dynamic_summary",
            &dynamic_summary(&every_figure(), None),
        );
    }
}
