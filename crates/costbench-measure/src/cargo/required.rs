//! Which bench targets a build with the user's feature flags can have: a `[[bench]]` with
//! `required-features` that the flags do not turn on is left out by `cargo bench`, and so by a
//! run that measures every bench target (issue 41). Pure functions over the package's feature
//! table; it never asks cargo.

use std::collections::{BTreeMap, BTreeSet};

/// The features of a package that `asked` (`--features`, one per item or comma and space
/// separated), its `default` unless `no_default`, and every feature these turn on, turn on;
/// `None` with `all` (every feature is on). `dep:NAME` turns on the optional dependency `NAME`,
/// which counts as a feature of that name; `DEP/FEATURE` turns on `DEP`.
pub(crate) fn enabled(
    table: &BTreeMap<String, Vec<String>>,
    asked: &[String],
    all: bool,
    no_default: bool,
) -> Option<BTreeSet<String>> {
    if all {
        return None;
    }
    let mut todo: Vec<String> = asked
        .iter()
        .flat_map(|f| f.split([',', ' ']))
        .filter(|f| !f.is_empty())
        .map(str::to_string)
        .collect();
    if !no_default {
        todo.push("default".into());
    }
    let mut on = BTreeSet::new();
    while let Some(f) = todo.pop() {
        let f = f
            .strip_prefix("dep:")
            .unwrap_or(&f)
            .split(['/', '?'])
            .next()
            .unwrap_or_default()
            .to_string();
        if on.insert(f.clone()) {
            todo.extend(table.get(&f).into_iter().flatten().cloned());
        }
    }
    Some(on)
}

/// The features of `required` that `on` lacks (none: the target builds). A required
/// `DEP/FEATURE` is taken as met when `DEP` is on.
pub(crate) fn missing(required: &[String], on: Option<&BTreeSet<String>>) -> Vec<String> {
    let Some(on) = on else {
        return Vec::new();
    };
    required
        .iter()
        .filter(|r| !on.contains(r.split('/').next().unwrap_or_default()))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> BTreeMap<String, Vec<String>> {
        [
            ("default", vec!["std"]),
            ("std", vec!["alloc", "dep:memchr", "serde?/std"]),
            ("alloc", vec![]),
            ("real_blackbox", vec!["criterion/real_blackbox"]),
            ("extra", vec![]),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
        .collect()
    }

    /// tinyvec's benches need `alloc` and `real_blackbox`; `cargo bench` without features
    /// skips the second (issue 41: a run of every target must skip it too, not fail).
    #[test]
    fn required_features_are_met_as_cargo_turns_features_on() {
        let t = table();
        let on = enabled(&t, &[], false, false);
        assert!(missing(&["alloc".into()], on.as_ref()).is_empty());
        assert!(missing(&["memchr".into()], on.as_ref()).is_empty());
        assert_eq!(
            missing(&["alloc".into(), "real_blackbox".into()], on.as_ref()),
            ["real_blackbox"]
        );
        let on = enabled(&t, &["real_blackbox extra".into()], false, true);
        assert_eq!(missing(&["alloc".into()], on.as_ref()), ["alloc"]);
        assert!(missing(&["extra".into(), "real_blackbox".into()], on.as_ref()).is_empty());
        assert!(missing(&["anything".into()], enabled(&t, &[], true, true).as_ref()).is_empty());
    }
}
