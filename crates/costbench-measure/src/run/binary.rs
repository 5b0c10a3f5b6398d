//! A built scenario binary: the child arguments every mode shares, and its listing (the
//! scenarios it offers), asked for before anything is measured.
//!
//! One run may measure several bench targets (issue 41: every bench target of a package, as
//! `cargo bench` runs them all): a [`Binary`] then holds the others' builds too, lists them all
//! as one listing ([`merge_listings`]) and says, for each measured scenario, which executable
//! runs it, in which directory and under which name it knows it. Where two targets offer the
//! same id, each is measured as `TARGET/ID`; ids that do not collide stay as their target names
//! them.

use super::child;
use crate::cargo::BuiltBench;
use anyhow::{bail, Context, Result};
use costbench_protocol::{self as proto, Listing, CHILD_FLAG, PROTOCOL_VERSION};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A built scenario binary and where to run it, with the other bench targets measured in the
/// same run.
#[derive(Debug, Clone)]
pub struct Binary {
    /// Path of the bench executable.
    pub exe: PathBuf,
    /// Directory the scenarios' children run in.
    pub cwd: PathBuf,
    /// The bench target's name (naming its ids where they collide with another target's).
    bench: String,
    /// The other bench targets measured in the same run; usually none.
    others: Vec<BuiltBench>,
    /// Set by [`Binary::list`] when there are others.
    routes: Routes,
    /// The bench targets whose scenarios are measured, set by [`Binary::list`]: those of the
    /// run less any whose binary does not answer costbench's protocol.
    measured: Vec<String>,
}

/// Per measured scenario name, which binary runs it (0: the first, k: the k-th other) and the
/// name that binary knows it by.
type Routes = BTreeMap<String, (usize, String)>;

impl Binary {
    /// The executable `exe` of one bench target, its scenarios run in `cwd`.
    pub fn new(exe: PathBuf, cwd: PathBuf) -> Binary {
        Binary {
            exe,
            cwd,
            bench: String::new(),
            others: Vec::new(),
            routes: BTreeMap::new(),
            measured: Vec::new(),
        }
    }

    /// The executable of bench target `bench` with `others` measured beside it.
    pub fn with_others(mut self, bench: &str, others: Vec<BuiltBench>) -> Binary {
        self.bench = bench.to_string();
        self.others = others;
        self
    }

    /// Whether other bench targets are measured with this one.
    pub fn several(&self) -> bool {
        !self.others.is_empty()
    }

    /// Which executable runs the measured scenario `name`, and in which directory.
    fn route(&self, name: &str) -> (&Path, &Path) {
        match self.routes.get(name) {
            Some((k, _)) if *k > 0 => {
                let o = &self.others[k - 1];
                (&o.exe, &o.cwd)
            }
            _ => (&self.exe, &self.cwd),
        }
    }

    /// The executable that runs the measured scenario `name`.
    pub(crate) fn exe_for(&self, name: &str) -> &Path {
        self.route(name).0
    }

    /// The directory the measured scenario `name` runs in.
    pub(crate) fn cwd_for(&self, name: &str) -> &Path {
        self.route(name).1
    }

    /// The name the scenario measured as `name` has in its own binary.
    pub(crate) fn child_name(&self, name: &str) -> String {
        self.routes
            .get(name)
            .map_or_else(|| name.to_string(), |(_, own)| own.clone())
    }

    pub(crate) fn child_args(&self, mode: &str) -> Vec<String> {
        vec![
            CHILD_FLAG.into(),
            mode.into(),
            "--protocol".into(),
            PROTOCOL_VERSION.to_string(),
        ]
    }

    /// The bench targets measured, after [`Binary::list`], when there are several.
    pub fn measured(&self) -> &[String] {
        &self.measured
    }

    /// Asks the binary (and the others measured with it) for its scenarios, killing each after
    /// `timeout`; with others, one listing of them all, ids kept unique (`merge_listings`).
    /// With others, a target whose binary does not answer costbench's protocol (a bench of the
    /// same package on another harness: the package's dependency on costbench says nothing of
    /// each target) is left out with a warning, as long as one target answers.
    pub fn list(&mut self, timeout: Duration) -> Result<Listing> {
        if self.others.is_empty() {
            return list_one(&self.exe, &self.cwd, timeout);
        }
        let parts = self.list_parts(timeout)?;
        self.merge(parts, &BTreeSet::new())
    }

    /// Each bench target's own listing, `(index, name, listing)`, without merging them: index 0
    /// is this binary's target, k the k-th other. A target whose binary does not answer
    /// costbench's protocol is left out with a warning, as long as one target answers (see
    /// [`Binary::list`]).
    pub(crate) fn list_parts(&self, timeout: Duration) -> Result<Vec<Part>> {
        let parts = std::iter::once((&self.bench, &self.exe, &self.cwd))
            .chain(self.others.iter().map(|o| (&o.bench, &o.exe, &o.cwd)));
        let mut listings = Vec::new();
        let mut first_error = None;
        for (k, (bench, exe, cwd)) in parts.enumerate() {
            match list_one(exe, cwd, timeout) {
                Ok(l) => listings.push((k, bench.clone(), l)),
                Err(e) if e.is::<NotCostbench>() && self.several() => {
                    eprintln!(
                        "warning: bench target {bench} left out: {e} (it runs another harness's \
                         main; `cargo bench --bench {bench}` runs it)"
                    );
                    first_error.get_or_insert(e);
                }
                Err(e) => return Err(e),
            }
        }
        if listings.is_empty() {
            return Err(first_error.expect("every target failed to list"));
        }
        Ok(listings)
    }

    /// One listing of `parts` (from [`Binary::list_parts`]), ids kept unique as
    /// [`merge_listings`] keeps them, and also named by their target where `prefixed` holds
    /// them: ids that collide on another side of the run, so that every side names an id the
    /// same way and the sides pair up by id.
    pub(crate) fn merge(
        &mut self,
        parts: Vec<Part>,
        prefixed: &BTreeSet<String>,
    ) -> Result<Listing> {
        self.measured = parts.iter().map(|(_, b, _)| b.clone()).collect();
        let (listing, routes) = merge_listings(parts, prefixed)?;
        self.routes = routes;
        Ok(listing)
    }

    /// The bench target that offers the measured scenario `name` and the name it knows it by
    /// there, after [`Binary::list`].
    pub fn origin(&self, name: &str) -> (&str, String) {
        match self.routes.get(name) {
            Some((k, own)) if *k > 0 => (&self.others[k - 1].bench, own.clone()),
            Some((_, own)) => (&self.bench, own.clone()),
            None => (&self.bench, name.to_string()),
        }
    }

    /// Whether the measured scenario `name` runs in this binary's own target (not one of the
    /// others): a code layout relinked from [`Binary::exe`] holds only its scenarios.
    pub(crate) fn on_first(&self, name: &str) -> bool {
        self.routes.get(name).is_none_or(|(k, _)| *k == 0)
    }
}

/// One bench target's listing: its index in a [`Binary`] (0: the first), its name, and what it
/// lists.
pub(super) type Part = (usize, String, Listing);

/// The scenario ids that two bench targets of one part list both offer (the library's internal
/// scenarios aside): those each side names `TARGET/ID`.
pub(crate) fn colliding(parts: &[Part]) -> BTreeSet<String> {
    let mut offered: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, _, l) in parts {
        for s in l.scenarios.iter().filter(|s| !s.internal) {
            *offered.entry(s.name.as_str()).or_default() += 1;
        }
    }
    offered
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(name, _)| name.to_string())
        .collect()
}

/// A scenario binary that printed no costbench listing: its main is not `Suite::main`'s. With
/// how it failed, when it exited with an error (another harness refusing the protocol's
/// arguments, as tango's does).
#[derive(Debug)]
struct NotCostbench(PathBuf, Option<String>);

impl std::fmt::Display for NotCostbench {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "scenario binary {} did not answer the costbench protocol{}; its main must end with \
             costbench::Suite::main()",
            self.0.display(),
            self.1
                .as_ref()
                .map(|why| format!(" ({why})"))
                .unwrap_or_default()
        )
    }
}

impl std::error::Error for NotCostbench {}

/// Asks the binary `exe` for its scenarios.
fn list_one(exe: &Path, cwd: &Path, timeout: Duration) -> Result<Listing> {
    let mut cmd = Command::new(exe);
    cmd.args(Binary::new(PathBuf::new(), PathBuf::new()).child_args("list"))
        .current_dir(cwd)
        .stdin(std::process::Stdio::null());
    let (outcome, stdout) = child::run_captured(&mut cmd, timeout, Default::default())
        .with_context(|| format!("cannot run scenario binary {}", exe.display()))?;
    if !outcome.success() {
        let (_, what) = outcome.describe(timeout);
        // A binary without the library failed as another harness's main does: not a scenario
        // binary whose listing broke (that one keeps the error below).
        if !links_costbench(exe) {
            let said = outcome.stderr_tail.lines().find(|l| !l.trim().is_empty());
            let why = match said {
                Some(line) => format!("{what}: {}", line.trim()),
                None => what,
            };
            return Err(NotCostbench(exe.to_path_buf(), Some(why)).into());
        }
        bail!(
            "scenario binary {} failed to list its scenarios ({what}):\n{}",
            exe.display(),
            outcome.stderr_tail
        );
    }
    Listing::from_stdout(&stdout).map_err(|e| match e {
        proto::DecodeError::NoListing => NotCostbench(exe.to_path_buf(), None).into(),
        e => e.into(),
    })
}

/// Whether the executable `exe` holds code of the `costbench` library (a function of its crate
/// among its symbols, which costbench's builds keep); true where it cannot be read, so that
/// only a binary known to lack the library is taken for another harness's.
fn links_costbench(exe: &Path) -> bool {
    use object::{Object, ObjectSymbol};
    let Ok(data) = std::fs::read(exe) else {
        return true;
    };
    let Ok(file) = object::File::parse(&*data) else {
        return true;
    };
    file.symbols().chain(file.dynamic_symbols()).any(|s| {
        s.name()
            .is_ok_and(|n| crate::size::crate_of(n) == "costbench")
    })
}

/// One listing of several bench targets' `(index, name, listing)`, the first's library
/// version and protocol, the capabilities they all have, their budgets; and per measured
/// scenario name, the index of the binary that offers it and its own name there. A scenario id
/// two targets both offer, or one `prefixed` names (it collides on another side), is measured
/// as `TARGET/ID` in each; the library's internal scenarios
/// (the empty one every binary has) are taken from the first only.
pub(crate) fn merge_listings(
    listings: Vec<Part>,
    prefixed: &BTreeSet<String>,
) -> Result<(Listing, Routes)> {
    let mut prefixed = prefixed.clone();
    prefixed.extend(colliding(&listings));
    let mut scenarios = Vec::new();
    let mut routes = BTreeMap::new();
    for (n, (k, bench, l)) in listings.iter().enumerate() {
        for s in &l.scenarios {
            if s.internal && n > 0 {
                continue;
            }
            let mut s = s.clone();
            let own = s.name.clone();
            if !s.internal && prefixed.contains(&own) {
                s.name = format!("{bench}/{own}");
            }
            if routes.insert(s.name.clone(), (*k, own)).is_some() {
                bail!(
                    "two bench targets offer scenario {:?} (after naming ids both offer by their \
                     target); measure them one at a time with --bench NAME",
                    s.name
                );
            }
            scenarios.push(s);
        }
    }
    let first = &listings[0].2;
    let capabilities = first
        .capabilities
        .iter()
        .filter(|c| listings.iter().all(|(_, _, l)| l.capabilities.contains(c)))
        .cloned()
        .collect();
    let listing = Listing {
        protocol: first.protocol,
        library_version: first.library_version.clone(),
        scenarios,
        capabilities,
        budgets: listings
            .iter()
            .flat_map(|(_, _, l)| l.budgets.iter().cloned())
            .collect(),
    };
    Ok((listing, routes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use costbench_protocol::ScenarioInfo;

    fn listing(names: &[&str], caps: &[&str]) -> Listing {
        Listing {
            protocol: PROTOCOL_VERSION,
            library_version: "0.1.0".into(),
            scenarios: names
                .iter()
                .map(|n| ScenarioInfo {
                    name: n.trim_start_matches('!').into(),
                    ops: 1,
                    unit: "op".into(),
                    parties: Vec::new(),
                    internal: n.starts_with('!'),
                    service: None,
                })
                .collect(),
            capabilities: caps.iter().map(|c| c.to_string()).collect(),
            budgets: Vec::new(),
        }
    }

    /// Issue 41: a bench target of another harness that exits with an error when asked for a
    /// listing (merni's tango) is told from a costbench binary whose listing broke by the
    /// library's symbols. This test binary has `costbench_measure`'s and `costbench_protocol`'s
    /// but not the library's: a crate whose name only starts with `costbench` is not it.
    #[test]
    fn another_harness_is_told_by_the_librarys_symbols() {
        let me = std::env::current_exe().unwrap();
        assert!(!links_costbench(&me));
        let data = std::fs::read(&me).unwrap();
        let file = object::File::parse(&*data).unwrap();
        use object::{Object, ObjectSymbol};
        assert!(
            file.symbols().any(|s| s
                .name()
                .is_ok_and(|n| crate::size::crate_of(n) == "costbench_measure")),
            "the test binary keeps its symbols"
        );
        // Unreadable: taken for a costbench binary, whose error is kept.
        assert!(links_costbench(Path::new(
            "/nonexistent/costbench-test-binary"
        )));
    }

    /// Issue 41: two bench targets in one listing; an id both offer is named by its target in
    /// each, the others stay as they are, and every name is routed to the binary that has it.
    #[test]
    fn ids_stay_unique_across_targets() {
        let (l, routes) = merge_listings(
            vec![
                (
                    0,
                    "a".into(),
                    listing(&["!empty", "parse", "only_a"], &["x", "y"]),
                ),
                (
                    1,
                    "b".into(),
                    listing(&["!empty", "parse", "b::only"], &["y"]),
                ),
            ],
            &BTreeSet::new(),
        )
        .unwrap();
        let names: Vec<&str> = l.scenarios.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["empty", "a/parse", "only_a", "b/parse", "b::only"]);
        assert_eq!(routes["a/parse"], (0, "parse".to_string()));
        assert_eq!(routes["b/parse"], (1, "parse".to_string()));
        assert_eq!(routes["b::only"], (1, "b::only".to_string()));
        assert_eq!(l.capabilities, ["y"]);
        let bin = Binary::new("/a".into(), "/pa".into()).with_others(
            "a",
            vec![BuiltBench {
                bench: "b".into(),
                exe: "/b".into(),
                cwd: "/pb".into(),
            }],
        );
        let bin = Binary { routes, ..bin };
        assert_eq!(bin.exe_for("b/parse"), Path::new("/b"));
        assert_eq!(bin.cwd_for("b/parse"), Path::new("/pb"));
        assert_eq!(bin.child_name("b/parse"), "parse");
        assert_eq!(bin.exe_for("a/parse"), Path::new("/a"));
        assert_eq!(bin.exe_for("empty"), Path::new("/a"));
        // A prefixed id that another target offers as it is cannot be told apart.
        let e = merge_listings(
            vec![
                (0, "a".into(), listing(&["x", "b/x"], &[])),
                (1, "b".into(), listing(&["x"], &[])),
            ],
            &BTreeSet::new(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("\"b/x\""), "{e}");
        // A target left out (index 0 here): the internal scenario comes from the first listed,
        // every route to the binary that has it.
        let (l, routes) = merge_listings(
            vec![(1, "b".into(), listing(&["!empty", "x"], &[]))],
            &BTreeSet::new(),
        )
        .unwrap();
        assert_eq!(l.scenarios.len(), 2);
        assert_eq!(routes["x"], (1, "x".to_string()));
        assert_eq!(routes["empty"], (1, "empty".to_string()));
    }

    /// Issue 41, sides compared by id: an id that collides on one side (the candidate added a
    /// second target offering it) is named by its target on a side where it does not collide,
    /// even a side of one target, so that both sides name it `a/parse` and pair up.
    #[test]
    fn ids_colliding_on_another_side_are_named_alike() {
        let cand = vec![
            (0, "a".to_string(), listing(&["!empty", "parse", "x"], &[])),
            (1, "b".to_string(), listing(&["!empty", "parse"], &[])),
        ];
        let base = vec![(0, "a".to_string(), listing(&["!empty", "parse", "x"], &[]))];
        let prefixed: BTreeSet<String> =
            colliding(&cand).union(&colliding(&base)).cloned().collect();
        assert_eq!(prefixed, BTreeSet::from(["parse".to_string()]));
        let names = |parts| {
            let (l, _) = merge_listings(parts, &prefixed).unwrap();
            l.scenarios.into_iter().map(|s| s.name).collect::<Vec<_>>()
        };
        assert_eq!(names(base), ["empty", "a/parse", "x"]);
        assert_eq!(names(cand), ["empty", "a/parse", "x", "b/parse"]);
        // The first target's own scenarios run in its (relinkable) executable; the others' not.
        let mut bin = Binary::new("/a".into(), "/pa".into()).with_others(
            "a",
            vec![BuiltBench {
                bench: "b".into(),
                exe: "/b".into(),
                cwd: "/pb".into(),
            }],
        );
        bin.merge(
            vec![
                (0, "a".to_string(), listing(&["parse"], &[])),
                (1, "b".to_string(), listing(&["parse"], &[])),
            ],
            &BTreeSet::new(),
        )
        .unwrap();
        assert!(bin.on_first("a/parse"));
        assert_eq!(bin.origin("b/parse"), ("b", "parse".to_string()));
        assert_eq!(bin.origin("a/parse"), ("a", "parse".to_string()));
        assert!(!bin.on_first("b/parse"));
        assert_eq!(bin.measured(), ["a", "b"]);
    }
}
