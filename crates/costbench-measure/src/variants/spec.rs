//! The variant model: what one named build variant changes (profile keys, cargo features, extra
//! rustflags, the global allocator, the toolchain), parsed from `costbench.toml`'s
//! `[variants.NAME]` tables or from `--variant NAME:KEY=VALUE,...` on the command line, and
//! validated key by key.
//!
//! Both sources go through one validator, so a key means the same in both and every mistake gets
//! one error naming the variant, the key and what to write instead. Everything here is a pure
//! function of its input: checks that need cargo or rustup (does the crate have this feature, is
//! this toolchain installed) live in `build.rs`.

use anyhow::{bail, Result};
// The validated variant is plain data of the record crate, so that the variant matrix (judged in
// `costbench-judge`) can carry it; this module parses and checks it.
use costbench_record::variant::{Allocator, Variant};

/// Every key a variant may set, in the order they are described and applied.
pub const KEYS: &[&str] = &[
    "overflow-checks",
    "debug-assertions",
    "codegen-units",
    "lto",
    "opt-level",
    "panic",
    "incremental",
    "debug",
    "features",
    "no-default-features",
    "rustflags",
    "allocator",
    "toolchain",
];

/// The keys that become `profile.bench.KEY` overrides (`panic` is special: see [`Variant`]).
pub const PROFILE_KEYS: &[&str] = &[
    "overflow-checks",
    "debug-assertions",
    "codegen-units",
    "lto",
    "opt-level",
    "panic",
    "incremental",
    "debug",
];

/// A value as written: TOML gives typed values, the command line gives strings.
#[derive(Debug, Clone, PartialEq)]
pub enum Raw {
    /// A string (every value from the command line).
    Str(String),
    /// A TOML boolean.
    Bool(bool),
    /// A TOML integer.
    Int(i64),
    /// A TOML array of strings.
    List(Vec<String>),
}

impl Raw {
    fn shown(&self) -> String {
        match self {
            Raw::Str(s) => format!("{s:?}"),
            Raw::Bool(b) => b.to_string(),
            Raw::Int(i) => i.to_string(),
            Raw::List(l) => format!("{l:?}"),
        }
    }

    /// Converts a TOML value; only strings, booleans, integers and arrays of strings are keys'
    /// values.
    pub fn from_toml(v: &toml::Value) -> Option<Raw> {
        Some(match v {
            toml::Value::String(s) => Raw::Str(s.clone()),
            toml::Value::Boolean(b) => Raw::Bool(*b),
            toml::Value::Integer(i) => Raw::Int(*i),
            toml::Value::Array(a) => Raw::List(
                a.iter()
                    .map(|x| x.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()?,
            ),
            _ => return None,
        })
    }
}

/// A variant's settings as written, `(key, value)` in order, not yet validated.
pub type Settings = Vec<(String, Raw)>;

/// Checks a variant name: it names a directory and a history entry.
pub fn check_name(name: &str) -> Result<()> {
    if name.is_empty() {
        bail!("a variant needs a name");
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        bail!(
            "variant name {name:?} contains {c:?}: use letters, digits, '-', '_' and '.' (it names a directory)"
        );
    }
    if name.starts_with('.') {
        bail!("variant name {name:?} must not start with '.'");
    }
    Ok(())
}

fn bool_value(v: &Raw) -> Option<bool> {
    match v {
        Raw::Bool(b) => Some(*b),
        Raw::Str(s) => match s.as_str() {
            "true" | "on" | "yes" => Some(true),
            "false" | "off" | "no" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// A list value: TOML arrays as they are; a string is split at whitespace (and, for features,
/// at commas, as `cargo --features` does).
fn list_value(v: &Raw, commas: bool) -> Option<Vec<String>> {
    match v {
        Raw::List(l) => Some(l.clone()),
        Raw::Str(s) => Some(
            s.split(|c: char| c.is_whitespace() || (commas && c == ','))
                .filter(|x| !x.is_empty())
                .map(str::to_string)
                .collect(),
        ),
        _ => None,
    }
}

/// The profile value as a TOML literal, or what is expected instead.
fn profile_literal(key: &str, v: &Raw) -> std::result::Result<String, &'static str> {
    let s = match v {
        Raw::Str(s) => Some(s.as_str()),
        _ => None,
    };
    match key {
        "overflow-checks" | "debug-assertions" | "incremental" => bool_value(v)
            .map(|b| b.to_string())
            .ok_or("true or false"),
        "codegen-units" => {
            let n = match v {
                Raw::Int(i) => Some(*i),
                Raw::Str(s) => s.parse().ok(),
                _ => None,
            };
            match n {
                Some(n) if (1..=256).contains(&n) => Ok(n.to_string()),
                _ => Err("a whole number from 1 to 256"),
            }
        }
        "lto" => match (v, s) {
            (Raw::Bool(b), _) => Ok(b.to_string()),
            (_, Some("true" | "false")) => Ok(s.unwrap_or_default().to_string()),
            (_, Some(x @ ("fat" | "thin" | "off"))) => Ok(format!("{x:?}")),
            _ => Err("true, false, \"fat\", \"thin\" or \"off\""),
        },
        "opt-level" => match (v, s) {
            (Raw::Int(i), _) if (0..=3).contains(i) => Ok(i.to_string()),
            (_, Some(x @ ("0" | "1" | "2" | "3"))) => Ok(x.to_string()),
            (_, Some(x @ ("s" | "z"))) => Ok(format!("{x:?}")),
            _ => Err("0, 1, 2, 3, \"s\" or \"z\""),
        },
        "panic" => match s {
            Some(x @ ("unwind" | "abort")) => Ok(format!("{x:?}")),
            _ => Err("\"unwind\" or \"abort\""),
        },
        "debug" => match (v, s) {
            (Raw::Bool(b), _) => Ok(b.to_string()),
            (Raw::Int(i), _) if (0..=2).contains(i) => Ok(i.to_string()),
            (_, Some(x @ ("true" | "false" | "0" | "1" | "2"))) => Ok(x.to_string()),
            (
                _,
                Some(
                    x @ ("none" | "line-directives-only" | "line-tables-only" | "limited" | "full"),
                ),
            ) => Ok(format!("{x:?}")),
            _ => Err(
                "true, false, 0, 1, 2, \"none\", \"line-directives-only\", \"line-tables-only\", \"limited\" or \"full\"",
            ),
        },
        _ => unreachable!("only profile keys"),
    }
}

fn check_feature_name(f: &str) -> bool {
    let (dep, feat) = match f.split_once('/') {
        Some((d, f)) => (Some(d), f),
        None => (None, f.strip_prefix("dep:").unwrap_or(f)),
    };
    let ok = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '.'))
    };
    dep.is_none_or(ok) && ok(feat)
}

/// The codegen option a rustflags list sets through `-C NAME=...` / `-CNAME=...` /
/// `--codegen NAME=...`, for each flag.
fn codegen_options(flags: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = flags.iter();
    while let Some(f) = it.next() {
        let opt = if f == "-C" || f == "--codegen" {
            it.next().map(String::as_str)
        } else if let Some(rest) = f.strip_prefix("--codegen=") {
            Some(rest)
        } else {
            f.strip_prefix("-C")
        };
        if let Some(o) = opt {
            out.push(o.split('=').next().unwrap_or_default().to_string());
        }
    }
    out
}

/// Validates the settings of variant `name`. `source` says where they were written, for
/// messages ("[variants.fast] in costbench.toml", "--variant fast").
pub fn validate(name: &str, settings: &[(String, Raw)], source: &str) -> Result<Variant> {
    check_name(name).map_err(|e| anyhow::anyhow!("{source}: {e}"))?;
    let mut v = Variant::plain(name);
    let mut seen: Vec<&str> = Vec::new();
    for (key, value) in settings {
        let Some(known) = KEYS.iter().find(|k| **k == key.as_str()) else {
            let hint = KEYS
                .iter()
                .find(|k| k.replace('-', "_") == key.replace('-', "_"))
                .map(|k| format!(" (did you mean {k}?)"))
                .unwrap_or_default();
            bail!(
                "{source}: unknown key {key:?}{hint}; a variant may set: {}",
                KEYS.join(", ")
            );
        };
        if seen.contains(known) {
            bail!("{source}: {key} is set twice; keep one");
        }
        seen.push(known);
        let bad = |expected: &str| {
            anyhow::anyhow!(
                "{source}: {key} = {} is not valid; expected {expected}",
                value.shown()
            )
        };
        match *known {
            k if PROFILE_KEYS.contains(&k) => {
                let lit = profile_literal(k, value).map_err(bad)?;
                v.profile.push((k.to_string(), lit));
            }
            "features" => {
                for f in list_value(value, true).ok_or_else(|| {
                    bad("a list of features: [\"a\", \"-b\"], or \"a b\" (-NAME turns a default feature off)")
                })? {
                    let (off, name) = match f.strip_prefix('-') {
                        Some(n) => (true, n.to_string()),
                        None => (false, f.clone()),
                    };
                    if !check_feature_name(&name) || (off && name.contains('/')) {
                        bail!(
                            "{source}: features: {f:?} is not a feature name (NAME, DEPENDENCY/NAME, or -NAME to turn a default feature off)"
                        );
                    }
                    let list = if off {
                        &mut v.disabled_features
                    } else {
                        &mut v.features
                    };
                    if !list.contains(&name) {
                        list.push(name);
                    }
                }
            }
            "no-default-features" => {
                v.no_default_features = bool_value(value).ok_or_else(|| bad("true or false"))?;
            }
            "rustflags" => {
                v.rustflags = list_value(value, false).ok_or_else(|| {
                    bad("flags for rustc: \"-C target-cpu=native\" or [\"-C\", \"target-cpu=native\"]")
                })?;
            }
            "allocator" => {
                v.allocator = Some(match value {
                    Raw::Str(s) if s == "system" => Allocator::System,
                    Raw::Str(s) if s == "mimalloc" => Allocator::Mimalloc,
                    Raw::Str(s) if s == "jemalloc" => Allocator::Jemalloc,
                    _ => return Err(bad("\"system\", \"mimalloc\" or \"jemalloc\"")),
                });
            }
            "toolchain" => {
                let t = match value {
                    Raw::Str(s) => s.strip_prefix('+').unwrap_or(s),
                    _ => return Err(bad("a toolchain name such as \"nightly\" or \"1.95.0\"")),
                };
                if t.is_empty() || t.contains(char::is_whitespace) || t.contains('/') {
                    return Err(bad("a toolchain name such as \"nightly\" or \"1.95.0\""));
                }
                v.toolchain = Some(t.to_string());
            }
            _ => unreachable!("every key is handled"),
        }
    }
    v.profile.sort_by_key(|(k, _)| {
        PROFILE_KEYS
            .iter()
            .position(|p| p == k)
            .expect("profile keys only")
    });
    check_contradictions(&v, source)?;
    Ok(v)
}

/// Settings that cannot all hold: the same thing set two ways, or turned on and off.
fn check_contradictions(v: &Variant, source: &str) -> Result<()> {
    if let Some(f) = v.features.iter().find(|f| v.disabled_features.contains(f)) {
        bail!(
            "{source}: feature {f:?} is both enabled and disabled (\"{f}\" and \"-{f}\"); keep one"
        );
    }
    for f in &v.features {
        let Some(lib) = f.strip_prefix("costbench/") else {
            continue;
        };
        if matches!(lib, "mimalloc" | "jemalloc") {
            match v.allocator {
                Some(a) if a.library_feature() == Some(lib) => {}
                Some(a) => bail!(
                    "{source}: allocator = {} contradicts features = {f:?}; choose the allocator with `allocator` only",
                    a.name()
                ),
                None => {}
            }
        }
    }
    let lib_allocs: Vec<&String> = v
        .features
        .iter()
        .filter(|f| matches!(f.as_str(), "costbench/mimalloc" | "costbench/jemalloc"))
        .collect();
    if lib_allocs.len() > 1 {
        bail!(
            "{source}: features turn on two global allocators ({}); choose one with `allocator`",
            lib_allocs
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" and ")
        );
    }
    // A codegen option in rustflags silently wins over (or loses to) the profile key cargo
    // turns into the same option: refuse the pair rather than guess which was meant.
    for opt in codegen_options(&v.rustflags) {
        let key = match opt.as_str() {
            "debuginfo" => "debug",
            o => o,
        };
        if v.profile_value(key).is_some() {
            bail!(
                "{source}: {key} is set both as a key and in rustflags (-C {opt}=...); set it once"
            );
        }
    }
    Ok(())
}

/// Parses `--variant` text: `NAME` alone (a variant from costbench.toml: returns no settings),
/// or `NAME:` (the plain bench profile), or `NAME:KEY=VALUE,KEY=VALUE`. A value may be quoted
/// with `'` or `"` to hold commas: `rustflags='-C target-feature=+avx2,+fma'`.
pub fn parse_cli(text: &str) -> Result<(String, Option<Settings>)> {
    let Some((name, rest)) = text.split_once(':') else {
        return Ok((text.to_string(), None));
    };
    let source = format!("--variant {name}");
    let mut settings = Vec::new();
    let mut chars = rest.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        if chars.peek().is_none() {
            break;
        }
        let mut key = String::new();
        let mut has_value = false;
        for c in chars.by_ref() {
            if c == '=' {
                has_value = true;
                break;
            }
            if c == ',' {
                break;
            }
            key.push(c);
        }
        let key = key.trim().to_string();
        if !has_value {
            bail!("{source}: {key:?} has no value; write KEY=VALUE");
        }
        let mut value = String::new();
        match chars.peek().copied() {
            Some(q @ ('\'' | '"')) => {
                chars.next();
                let mut closed = false;
                for c in chars.by_ref() {
                    if c == q {
                        closed = true;
                        break;
                    }
                    value.push(c);
                }
                if !closed {
                    bail!("{source}: the value of {key} opens a {q} quote that is never closed");
                }
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
                match chars.next() {
                    None | Some(',') => {}
                    Some(c) => bail!(
                        "{source}: unexpected {c:?} after the quoted value of {key}; separate settings with ','"
                    ),
                }
            }
            _ => {
                for c in chars.by_ref() {
                    if c == ',' {
                        break;
                    }
                    value.push(c);
                }
            }
        }
        if key.is_empty() {
            bail!("{source}: a setting has no key; write KEY=VALUE");
        }
        settings.push((key, Raw::Str(value.trim().to_string())));
    }
    Ok((name.to_string(), Some(settings)))
}

/// Reads `[variants.NAME]` tables (in file order) into unvalidated settings.
pub fn from_config(table: &toml::Table) -> Result<Vec<(String, Settings)>> {
    let mut out = Vec::new();
    for (name, body) in table {
        let source = format!("[variants.{name}] in costbench.toml");
        let Some(body) = body.as_table() else {
            bail!(
                "{source}: expected a table of settings ([variants.{name}] then KEY = VALUE lines)"
            );
        };
        let mut settings = Vec::new();
        for (k, v) in body {
            let raw = Raw::from_toml(v).ok_or_else(|| {
                anyhow::anyhow!(
                    "{source}: {k} must be a string, boolean, integer or array of strings"
                )
            })?;
            settings.push((k.clone(), raw));
        }
        out.push((name.clone(), settings));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(text: &str) -> Result<Variant> {
        let (name, settings) = parse_cli(text)?;
        validate(&name, &settings.unwrap_or_default(), "test")
    }

    #[test]
    fn parses_every_key_from_the_command_line() {
        let v = cli(
            "all:overflow-checks=true,debug-assertions=on,codegen-units=1,lto=fat,\
                     opt-level=s,panic=abort,incremental=false,debug=line-tables-only,\
                     features=unaligned,no-default-features=true,rustflags=-C target-cpu=native,\
                     allocator=mimalloc,toolchain=+nightly",
        )
        .unwrap();
        assert_eq!(
            v.profile,
            [
                ("overflow-checks", "true"),
                ("debug-assertions", "true"),
                ("codegen-units", "1"),
                ("lto", "\"fat\""),
                ("opt-level", "\"s\""),
                ("panic", "\"abort\""),
                ("incremental", "false"),
                ("debug", "\"line-tables-only\""),
            ]
            .map(|(k, v)| (k.to_string(), v.to_string()))
        );
        assert_eq!(v.features, ["unaligned"]);
        assert!(v.no_default_features);
        assert_eq!(v.rustflags, ["-C", "target-cpu=native"]);
        assert_eq!(v.allocator, Some(Allocator::Mimalloc));
        assert_eq!(v.toolchain.as_deref(), Some("nightly"));
    }

    #[test]
    fn bare_names_empty_settings_and_quotes() {
        assert_eq!(parse_cli("fast").unwrap(), ("fast".into(), None));
        let v = cli("release:").unwrap();
        assert_eq!(v, Variant::plain("release"));
        assert_eq!(v.describe(), "the plain bench profile");
        let v = cli("avx:rustflags='-C target-feature=+avx2,+fma', opt-level=3").unwrap();
        assert_eq!(v.rustflags, ["-C", "target-feature=+avx2,+fma"]);
        assert_eq!(v.profile_value("opt-level"), Some("3"));
        let v = cli("f:features=\"a,b -c\"").unwrap();
        assert_eq!(v.features, ["a", "b"]);
        assert_eq!(v.disabled_features, ["c"]);
        assert_eq!(v.describe(), "features=a b -c");
    }

    #[test]
    fn each_mistake_gets_one_clear_error() {
        let cases = [
            (
                "x:overflow_checks=true",
                "unknown key \"overflow_checks\" (did you mean overflow-checks?)",
            ),
            ("x:frobnicate=1", "unknown key \"frobnicate\""),
            (
                "x:codegen-units=0",
                "codegen-units = \"0\" is not valid; expected a whole number from 1 to 256",
            ),
            (
                "x:lto=maybe",
                "expected true, false, \"fat\", \"thin\" or \"off\"",
            ),
            ("x:opt-level=4", "opt-level = \"4\" is not valid"),
            ("x:panic=explode", "expected \"unwind\" or \"abort\""),
            (
                "x:allocator=tcmalloc",
                "expected \"system\", \"mimalloc\" or \"jemalloc\"",
            ),
            ("x:lto=thin,lto=fat", "lto is set twice"),
            (
                "x:features='a,-a'",
                "feature \"a\" is both enabled and disabled",
            ),
            (
                "x:features='a -a'",
                "feature \"a\" is both enabled and disabled",
            ),
            (
                "x:allocator=jemalloc,features=costbench/mimalloc",
                "allocator = jemalloc contradicts",
            ),
            (
                "x:opt-level=2,rustflags=-C opt-level=3",
                "opt-level is set both as a key and in rustflags",
            ),
            (
                "x:panic=unwind,rustflags=-Cpanic=abort",
                "panic is set both as a key and in rustflags",
            ),
            (
                "x:debug=0,rustflags=-C debuginfo=2",
                "debug is set both as a key and in rustflags",
            ),
            ("x:features=a$b", "\"a$b\" is not a feature name"),
            ("x:rustflags='-C x", "never closed"),
            ("x:codegen-units", "has no value"),
            ("x:=3", "has no key"),
            ("a/b:lto=fat", "contains '/'"),
            (":lto=fat", "needs a name"),
            ("x:toolchain=", "toolchain = \"\" is not valid"),
        ];
        for (text, want) in cases {
            let e = format!("{:#}", cli(text).unwrap_err());
            assert!(e.contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn config_tables_use_the_same_validator() {
        let table: toml::Table = toml::from_str(
            "[variants.release]\n\
             [variants.checked]\noverflow-checks = true\ncodegen-units = 1\nlto = true\n\
             features = [\"unaligned\"]\nrustflags = [\"-C\", \"target-cpu=native\"]\n\
             [variants.bad]\ncodegen-units = \"many\"\n",
        )
        .unwrap();
        let vars = from_config(table["variants"].as_table().unwrap()).unwrap();
        let names: Vec<&str> = vars.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["release", "checked", "bad"], "file order is kept");
        let c = validate(&vars[1].0, &vars[1].1, "[variants.checked]").unwrap();
        assert_eq!(c.profile_value("lto"), Some("true"));
        assert_eq!(c.profile_value("codegen-units"), Some("1"));
        assert_eq!(c.rustflags, ["-C", "target-cpu=native"]);
        let e = validate(&vars[2].0, &vars[2].1, "[variants.bad] in costbench.toml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "[variants.bad] in costbench.toml: codegen-units = \"many\" is not valid; expected a whole number from 1 to 256"
        );
        let table: toml::Table = toml::from_str("[variants.x]\nlto = 1.5\n").unwrap();
        let e = from_config(table["variants"].as_table().unwrap()).unwrap_err();
        assert!(e.to_string().contains("lto must be a string"), "{e}");
    }
}
